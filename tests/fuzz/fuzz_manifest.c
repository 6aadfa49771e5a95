/* Fuzz target for manifests (`weir plan --against FILE`, and the manifest a durable
 * run keeps): the input is parsed as a manifest and, when it is one, planned against
 * itself and against an empty project's manifest, and both plans are rendered. */
#include "lifecycle/plan.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512];
    Manifest m;
    if (!manifest_parse((const char *)data, size, "fuzz.json", &m, err, sizeof err)) return 0;
    Manifest empty;
    static const char empty_json[] = "{\"manifest_version\": 1, \"models\": [], \"state\": []}";
    if (manifest_parse(empty_json, sizeof empty_json - 1, "empty", &empty, err, sizeof err)) {
        Plan p;
        StrBuf out = STRBUF_INIT;
        plan_compute(&m, &m, &p);
        plan_render_text(&p, "itself", &out);
        plan_free(&p);
        plan_compute(&m, &empty, &p);
        plan_render_json(&p, "empty", &out);
        plan_free(&p);
        plan_compute(&empty, &m, &p);
        plan_render_text(&p, "empty", &out);
        plan_free(&p);
        sb_free(&out);
        manifest_free(&empty);
    }
    manifest_free(&m);
    return 0;
}
