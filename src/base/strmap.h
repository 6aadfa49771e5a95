/* A map from strings to non-negative ints (typically indexes into an array), for the
 * name lookups of loading and binding, which must stay linear in the size of a project.
 * Open addressing with linear probing; keys are borrowed (the caller keeps them alive
 * and unchanged while they are in the map). */
#ifndef WEIR_BASE_STRMAP_H
#define WEIR_BASE_STRMAP_H

#include <stddef.h>

typedef struct StrMapSlot {
    const char *key;   /* NULL = empty */
    size_t len;
    int value;
} StrMapSlot;

typedef struct StrMap {
    StrMapSlot *slots; /* heap array of cap slots (cap a power of two), NULL when empty */
    size_t cap, count;
} StrMap;

#define STRMAP_INIT {NULL, 0, 0}

void strmap_fini(StrMap *m);
/* The value of key (len bytes, need not be NUL-terminated), or -1 when absent. */
int strmap_get_n(const StrMap *m, const char *key, size_t len);
int strmap_get(const StrMap *m, const char *key);
/* Sets key (len bytes; NUL-terminated for strmap_put) to value (>= 0), replacing an
 * earlier value. */
void strmap_put_n(StrMap *m, const char *key, size_t len, int value);
void strmap_put(StrMap *m, const char *key, int value);

#endif
