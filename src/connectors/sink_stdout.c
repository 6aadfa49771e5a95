/* The stdout sink: the line sink of sink_file.c on descriptor 1 (lines of several
 * models interleave per step; progress and messages go to stderr). */
#include "connectors/sink.h"

ConnSink *sink_stdout_open(const ConnSinkSpec *spec, DataFormat format, char *err, size_t errsize)
{
    return sink_fd_open(1, "<stdout>", spec, format, err, errsize);
}
