/* Hashing: the adapter over xxHash (the only file that includes xxhash.h). Inlined,
 * because value hashing is on the engine's hot path. Used for hash tables
 * (value_hash) and for stable fingerprints of plans and state: XXH3-64 is stable
 * across runs and machines. */
#ifndef WEIR_BASE_HASH_H
#define WEIR_BASE_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

/* 64-bit hash of n bytes. */
static inline uint64_t hash_bytes(const void *p, size_t n, uint64_t seed)
{
    return XXH3_64bits_withSeed(p, n, seed);
}

/* Hash of a NUL-terminated string (NULL hashes differently from every string). */
static inline uint64_t hash_str(const char *s, uint64_t seed)
{
    if (!s) return XXH3_64bits_withSeed("\xff", 1, seed);
    return XXH3_64bits_withSeed(s, strlen(s), seed);
}

/* Mix a 64-bit integer into a seed. */
static inline uint64_t hash_u64(uint64_t v, uint64_t seed)
{
    return XXH3_64bits_withSeed(&v, sizeof v, seed);
}

#endif
