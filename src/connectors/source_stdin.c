/* Standard input as a source transport: the line reader of source_file.c over a
 * duplicate of descriptor 0 (so closing the reader leaves stdin itself alone). gzip
 * data piped in is inflated like a .gz file. Progress has no total. */
#include "connectors/source.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

ConnReader *src_stdin_reader_open(ConnFraming framing, char *err, size_t errsize)
{
    int fd = dup(0);
    if (fd < 0) {
        snprintf(err, errsize, "<stdin>: cannot read standard input: %s", strerror(errno));
        return NULL;
    }
    ConnReader *r = src_fd_reader_open(fd, true, "<stdin>", framing, err, errsize);
    if (!r) close(fd);
    return r;
}
