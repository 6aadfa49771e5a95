/* Hashing: the adapter over xxHash (the only file that includes xxhash.h). Used for
 * hash tables (value_hash) and for stable fingerprints of plans and state. */
#ifndef WEIR_BASE_HASH_H
#define WEIR_BASE_HASH_H

#include <stddef.h>
#include <stdint.h>

/* 64-bit hash of n bytes; stable across runs and machines (XXH3-64). */
uint64_t hash_bytes(const void *p, size_t n, uint64_t seed);
/* Hash of a NUL-terminated string (NULL hashes like the empty string plus a marker). */
uint64_t hash_str(const char *s, uint64_t seed);
/* Mix a 64-bit integer into a seed. */
uint64_t hash_u64(uint64_t v, uint64_t seed);

#endif
