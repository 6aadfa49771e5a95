/* Fuzz target for the TZif reader (base/tz.c): the input is parsed as a TZif file and,
 * separately, as a POSIX TZ string; a zone that parses answers offsets for instants
 * and wall-clock times across and far beyond its transitions without reading outside
 * the input, and every offset is one of its types' or its rule's. */
#include "base/tz.h"

#include <stdint.h>
#include <stdlib.h>

static void probe(const TzZone *z)
{
    static const int64_t at[] = {-(INT64_C(1) << 40), -2208988800, -1, 0, 1, 1774746000, 1792890000,
                                 4102444800, INT64_C(1) << 40, INT64_C(9223372036854)};
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
        volatile int32_t a = tz_offset_at(z, at[i]);
        volatile int32_t b = tz_offset_for_local(z, at[i]);
        (void)a;
        (void)b;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    TzZone *z = tz_parse_tzif(data, size);
    if (z) {
        probe(z);
        tz_free(z);
    }
    if (size < 512) {
        z = tz_parse_posix((const char *)data, size);
        if (z) {
            probe(z);
            tz_free(z);
        }
    }
    return 0;
}
