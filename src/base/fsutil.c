/* Filesystem helpers (see fsutil.h). */
#include "base/fsutil.h"
#include "base/arena.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool fs_mkdirs(const char *dir)
{
    char *buf = xstrdup(dir);
    bool ok = true;
    for (char *p = buf + 1;; p++) {
        if (*p != '/' && *p != '\0') continue;
        char c = *p;
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
            ok = false;
            break;
        }
        *p = c;
        if (c == '\0') break;
    }
    int e = errno;
    free(buf);
    errno = e;
    return ok;
}

bool fs_mkdirs_for(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash || slash == path) return true;
    char *dir = xstrdup(path);
    dir[slash - path] = '\0';
    bool ok = fs_mkdirs(dir);
    int e = errno;
    free(dir);
    errno = e;
    return ok;
}

bool fs_write_atomic(const char *path, const char *data, size_t len, char *err, size_t errsize)
{
    size_t n = strlen(path) + 32;
    char *tmp = xmalloc(n);
    snprintf(tmp, n, "%s.tmp.%d", path, (int)getpid());
    FILE *f = fopen(tmp, "wb");
    bool ok = f != NULL;
    if (ok) {
        ok = fwrite(data ? data : "", 1, len, f) == len;
        ok = (fclose(f) == 0) && ok;
    }
    if (ok && rename(tmp, path) != 0) ok = false;
    if (!ok) {
        snprintf(err, errsize, "cannot write %s: %s", path, strerror(errno));
        unlink(tmp);
    }
    free(tmp);
    return ok;
}
