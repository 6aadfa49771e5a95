/* Size-class pool for operator state (see pool.h). Chunks start small, so the many
 * small tables of a pipeline stay small, and double up to POOL_CHUNK_MAX, so a state
 * of millions of entries is a few hundred chunks. */
#include "engine/pool.h"

#include "base/arena.h"

#include <stdlib.h>
#include <string.h>

/* Under AddressSanitizer, free and not-yet-handed-out pool memory is poisoned, so a
 * use after pool_free is still reported as it would be with malloc. */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define POOL_CHUNK_MIN (16u * 1024u)
#define POOL_CHUNK_MAX (4u * 1024u * 1024u)

struct PoolChunk {
    PoolChunk *next;
    size_t size;
};

struct PoolLarge {
    PoolLarge *next, *prev;
};

/* Chunk and large-block headers are 16 bytes, so blocks after them stay 16-aligned
 * (small blocks start 64 bytes into their chunk, see pool_alloc). */
_Static_assert(sizeof(PoolChunk) == 16 && sizeof(PoolLarge) == 16, "pool headers must be 16 bytes");

void pool_init(Pool *p)
{
    memset(p, 0, sizeof *p);
}

void pool_fini(Pool *p)
{
    for (PoolChunk *c = p->chunks; c;) {
        PoolChunk *next = c->next;
        UNPOISON(c, c->size);
        xfree_large(c, c->size);
        c = next;
    }
    for (PoolLarge *l = p->large; l;) {
        PoolLarge *next = l->next;
        free(l);
        l = next;
    }
    memset(p, 0, sizeof *p);
}

static inline size_t class_bytes(size_t n)
{
    return (n + 15) & ~(size_t)15;
}

void *pool_alloc(Pool *p, size_t n)
{
    size_t sz = class_bytes(n ? n : 1);
    if (sz > POOL_MAX_SMALL) {
        PoolLarge *l = xmalloc(sizeof(PoolLarge) + sz);
        l->prev = NULL;
        l->next = p->large;
        if (p->large) p->large->prev = l;
        p->large = l;
        p->reserved += (int64_t)(sizeof(PoolLarge) + sz);
        p->used += (int64_t)sz;
        return l + 1;
    }
    p->used += (int64_t)sz;
    void **head = &p->free_list[sz / 16 - 1];
    if (*head) {
        void *b = *head;
        UNPOISON(b, sz);
        *head = *(void **)b;
        return b;
    }
    if ((size_t)(p->end - p->cur) < sz) {
        size_t csz = p->next_chunk ? p->next_chunk : POOL_CHUNK_MIN;
        if (p->next_chunk < POOL_CHUNK_MAX) p->next_chunk = csz * 2;
        PoolChunk *c = xcalloc_large(csz);
        c->size = csz;
        c->next = p->chunks;
        p->chunks = c;
        p->reserved += (int64_t)csz;
        /* blocks start a cache line into the chunk: blocks of a size that is a multiple
         * of 64 (a keyed table's entries of one size) then each take whole lines, so a
         * 256-byte entry is 4 lines, not 5 */
        p->cur = (char *)c + 64;
        p->end = (char *)c + csz;
        POISON(p->cur, (size_t)(p->end - p->cur));
    }
    void *b = p->cur;
    p->cur += sz;
    UNPOISON(b, sz);
    return b;
}

void pool_free(Pool *p, void *block, size_t n)
{
    if (!block) return;
    size_t sz = class_bytes(n ? n : 1);
    p->used -= (int64_t)sz;
    if (sz > POOL_MAX_SMALL) {
        PoolLarge *l = (PoolLarge *)block - 1;
        if (l->prev) l->prev->next = l->next;
        else p->large = l->next;
        if (l->next) l->next->prev = l->prev;
        p->reserved -= (int64_t)(sizeof(PoolLarge) + sz);
        free(l);
        return;
    }
    void **head = &p->free_list[sz / 16 - 1];
    *(void **)block = *head;
    *head = block;
    POISON(block, sz);
}
