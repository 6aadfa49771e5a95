/* Small filesystem helpers shared by every layer that writes files: directory
 * creation and atomic replacement of a file's contents. */
#ifndef WEIR_BASE_FSUTIL_H
#define WEIR_BASE_FSUTIL_H

#include <stdbool.h>
#include <stddef.h>

/* mkdir -p of dir. Returns false with errno set on failure. */
bool fs_mkdirs(const char *dir);
/* mkdir -p of the directory part of path (nothing when path has no '/'). */
bool fs_mkdirs_for(const char *path);
/* Replace path's contents atomically (temp file in the same directory + rename).
 * Returns false with a message naming the file on failure. */
bool fs_write_atomic(const char *path, const char *data, size_t len, char *err, size_t errsize);

#endif
