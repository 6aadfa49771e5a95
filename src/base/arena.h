/* Arena (bump) allocator: compile-time objects and per-batch scratch memory are
 * allocated here and freed all at once. Out of memory aborts with a message. */
#ifndef WEIR_BASE_ARENA_H
#define WEIR_BASE_ARENA_H

#include <stddef.h>
#include <stdint.h>

typedef struct ArenaBlock ArenaBlock;
typedef struct ArenaCleanup ArenaCleanup;

typedef struct Arena {
    ArenaBlock *head;      /* current block (blocks form a list) */
    size_t block_size;     /* size of newly created blocks */
    size_t total;          /* bytes reserved by all blocks (for accounting) */
    uint64_t gen;          /* changes whenever earlier allocations become invalid (reset,
                              fini): a pointer into the arena taken at generation g is
                              valid while gen == g */
    ArenaCleanup *cleanups; /* run by arena_fini / arena_reset, newest first */
} Arena;

/* Initialise an empty arena; no memory is reserved until the first allocation. */
void arena_init(Arena *a, size_t block_size);
/* Release every block. The arena may be reused after arena_init. */
void arena_fini(Arena *a);
/* Keep the first block, drop the rest, and make all memory reusable. Pointers
 * previously returned become invalid. Used for per-batch scratch memory. */
void arena_reset(Arena *a);
/* Registers fn(arg) to run when the arena's memory is released (arena_fini, or
 * arena_reset), newest first: for objects that live as long as the arena but own
 * memory of their own (a compiled regular expression). */
void arena_on_release(Arena *a, void (*fn)(void *), void *arg);
/* Allocate n bytes aligned to 16, zero-filled. Never returns NULL. */
void *arena_alloc(Arena *a, size_t n);
/* Allocate n bytes aligned to 16, not zeroed. Never returns NULL. */
void *arena_alloc_raw(Arena *a, size_t n);
/* Copy len bytes of s into the arena and NUL-terminate. */
char *arena_strndup(Arena *a, const char *s, size_t len);
char *arena_strdup(Arena *a, const char *s);
/* printf into arena memory. */
char *arena_printf(Arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define ARENA_NEW(a, T) ((T *)arena_alloc((a), sizeof(T)))
#define ARENA_ARRAY(a, T, n) ((T *)arena_alloc((a), sizeof(T) * (size_t)(n)))

/* Large zeroed blocks for operator state (pool chunks, hash-table slot arrays): from
 * 2 MiB up they are mapped on their own, 2 MiB aligned, with transparent huge pages
 * requested (madvise), which makes first touches of a growing state several times
 * cheaper than with 4 KiB pages; smaller ones come from calloc. Release with
 * xfree_large and the same size. Out of memory aborts with a message. */
void *xcalloc_large(size_t n);
void xfree_large(void *p, size_t n);

/* malloc/realloc wrappers that abort with a message when memory runs out. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
/* The first n bytes of s (which need not be NUL-terminated) as a malloc'd string. */
char *xstrndup(const char *s, size_t n);

#endif
