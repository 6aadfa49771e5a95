/* xxHash adapter (see hash.h). */
#include "base/hash.h"

#include <string.h>
#include <xxhash.h>

uint64_t hash_bytes(const void *p, size_t n, uint64_t seed)
{
    return XXH3_64bits_withSeed(p, n, seed);
}

uint64_t hash_str(const char *s, uint64_t seed)
{
    if (!s) return XXH3_64bits_withSeed("\xff", 1, seed);
    return XXH3_64bits_withSeed(s, strlen(s), seed);
}

uint64_t hash_u64(uint64_t v, uint64_t seed)
{
    return XXH3_64bits_withSeed(&v, sizeof v, seed);
}
