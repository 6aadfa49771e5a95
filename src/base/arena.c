/* Arena allocator and checked malloc wrappers (see arena.h). */
#include "base/arena.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

struct ArenaCleanup {
    ArenaCleanup *next;
    void (*fn)(void *);
    void *arg;
};

struct ArenaBlock {
    ArenaBlock *next;
    size_t size;
    size_t used;
    _Alignas(16) unsigned char data[];
};

static void out_of_memory(size_t n)
{
    fprintf(stderr, "weir: out of memory (requested %zu bytes)\n", n);
    abort();
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) out_of_memory(n);
    return p;
}

void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) out_of_memory(n * size);
    return p;
}

void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) out_of_memory(n);
    return q;
}

#define LARGE_MIN ((size_t)2 * 1024 * 1024)

static size_t large_size(size_t n)
{
    return (n + LARGE_MIN - 1) & ~(LARGE_MIN - 1);
}

void *xcalloc_large(size_t n)
{
    if (n < LARGE_MIN) return xcalloc(1, n);
    size_t sz = large_size(n);
    /* map 2 MiB more than needed and trim, so the block starts on a huge-page boundary */
    char *raw = mmap(NULL, sz + LARGE_MIN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) out_of_memory(n);
    uintptr_t start = ((uintptr_t)raw + LARGE_MIN - 1) & ~(uintptr_t)(LARGE_MIN - 1);
    size_t head = start - (uintptr_t)raw, tail = LARGE_MIN - head;
    if (head) munmap(raw, head);
    if (tail) munmap((char *)start + sz, tail);
#ifdef MADV_HUGEPAGE
    madvise((void *)start, sz, MADV_HUGEPAGE);
#endif
    return (void *)start;
}

void xfree_large(void *p, size_t n)
{
    if (!p) return;
    if (n < LARGE_MIN) free(p);
    else munmap(p, large_size(n));
}

char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = xmalloc(n);
    memcpy(p, s, n);
    return p;
}

char *xstrndup(const char *s, size_t n)
{
    char *p = xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

void arena_init(Arena *a, size_t block_size)
{
    a->head = NULL;
    a->block_size = block_size ? block_size : 64 * 1024;
    a->total = 0;
    a->cleanups = NULL;
}

/* Runs and forgets the registered cleanups (their nodes live in the arena). */
static void run_cleanups(Arena *a)
{
    ArenaCleanup *c = a->cleanups;
    a->cleanups = NULL;
    for (; c; c = c->next) c->fn(c->arg);
}

void arena_on_release(Arena *a, void (*fn)(void *), void *arg)
{
    ArenaCleanup *c = arena_alloc_raw(a, sizeof *c);
    c->fn = fn;
    c->arg = arg;
    c->next = a->cleanups;
    a->cleanups = c;
}

void arena_fini(Arena *a)
{
    run_cleanups(a);
    ArenaBlock *b = a->head;
    while (b) {
        ArenaBlock *next = b->next;
        free(b);
        b = next;
    }
    a->head = NULL;
    a->total = 0;
    a->gen++;
}

void arena_reset(Arena *a)
{
    run_cleanups(a);
    a->gen++;
    if (!a->head) return;
    /* keep the oldest (last in list) block only when it is the regular size */
    ArenaBlock *b = a->head, *keep = NULL;
    while (b) {
        ArenaBlock *next = b->next;
        if (!keep && b->size == a->block_size) {
            keep = b;
        } else {
            free(b);
        }
        b = next;
    }
    a->head = keep;
    a->total = 0;
    if (keep) {
        keep->next = NULL;
        keep->used = 0;
        a->total = keep->size;
    }
}

void *arena_alloc_raw(Arena *a, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    ArenaBlock *b = a->head;
    if (!b || b->size - b->used < n) {
        size_t size = n > a->block_size ? n : a->block_size;
        ArenaBlock *nb = malloc(sizeof(ArenaBlock) + size);
        if (!nb) out_of_memory(size);
        nb->size = size;
        nb->used = 0;
        /* an oversized block goes behind the current one so the current block keeps serving */
        if (b && size > a->block_size) {
            nb->next = b->next;
            b->next = nb;
        } else {
            nb->next = b;
            a->head = nb;
        }
        a->total += size;
        b = nb;
    }
    void *p = b->data + b->used;
    b->used += n;
    return p;
}

void *arena_alloc(Arena *a, size_t n)
{
    void *p = arena_alloc_raw(a, n);
    memset(p, 0, n);
    return p;
}

char *arena_strndup(Arena *a, const char *s, size_t len)
{
    char *p = arena_alloc_raw(a, len + 1);
    if (len) memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

char *arena_strdup(Arena *a, const char *s)
{
    return arena_strndup(a, s, strlen(s));
}

char *arena_printf(Arena *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *p = arena_alloc_raw(a, (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}
