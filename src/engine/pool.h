/* Size-class memory pool for keyed operator state: blocks of up to POOL_MAX_SMALL
 * bytes are carved from large chunks (no per-block malloc header, dense in memory)
 * and recycled through one free list per 16-byte size class; bigger blocks are
 * malloc'd and kept on a list. Blocks never move. Releasing the pool releases every
 * block at once, so dropping a state of millions of entries costs a few frees.
 * Memory is counted: `reserved` is what the pool holds from the system, `used` what
 * its callers hold. Not thread-safe (one pool per operator state). */
#ifndef WEIR_ENGINE_POOL_H
#define WEIR_ENGINE_POOL_H

#include <stddef.h>
#include <stdint.h>

#define POOL_MAX_SMALL 1024
#define POOL_CLASSES (POOL_MAX_SMALL / 16)

typedef struct PoolChunk PoolChunk;
typedef struct PoolLarge PoolLarge;

typedef struct Pool {
    char *cur, *end;                 /* unused tail of the newest chunk */
    PoolChunk *chunks;               /* every chunk, newest first */
    PoolLarge *large;                /* malloc'd blocks above POOL_MAX_SMALL */
    void *free_list[POOL_CLASSES];   /* recycled blocks per size class */
    size_t next_chunk;               /* size of the next chunk (grows to a cap) */
    int64_t reserved;                /* bytes of chunks and large blocks */
    int64_t used;                    /* bytes of live blocks (rounded to their class) */
} Pool;

/* A zeroed Pool is empty and ready (pool_init only spells that out). */
void pool_init(Pool *p);
/* Release every block; the pool is empty and reusable afterwards. */
void pool_fini(Pool *p);
/* A block of n bytes (n > 0), 16-byte aligned, not zeroed. Out of memory aborts. */
void *pool_alloc(Pool *p, size_t n);
/* Return a block obtained from pool_alloc(p, n) with the same n. */
void pool_free(Pool *p, void *block, size_t n);

#endif
