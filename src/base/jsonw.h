/* A small streaming JSON writer over StrBuf with deterministic, pretty output.
 * Used for every machine-readable artifact (manifest, explain --format json, ...). */
#ifndef WEIR_BASE_JSONW_H
#define WEIR_BASE_JSONW_H

#include "base/strbuf.h"

#include <stdbool.h>
#include <stdint.h>

#define JSONW_MAX_DEPTH 64

typedef struct JsonW {
    StrBuf *out;
    int depth;
    bool pretty;
    bool need_comma[JSONW_MAX_DEPTH];
    bool after_key;
} JsonW;

/* Start writing into out (appends). pretty = two-space indentation. */
void jw_init(JsonW *w, StrBuf *out, bool pretty);
void jw_obj(JsonW *w);                 /* { */
void jw_arr(JsonW *w);                 /* [ */
void jw_end_obj(JsonW *w);             /* } */
void jw_end_arr(JsonW *w);             /* ] */
void jw_key(JsonW *w, const char *k);  /* "k": (next call writes the value) */
void jw_str(JsonW *w, const char *s);  /* NULL writes null */
void jw_strn(JsonW *w, const char *s, size_t n);
void jw_int(JsonW *w, int64_t v);
void jw_bool(JsonW *w, bool v);
void jw_null(JsonW *w);
/* A pre-rendered JSON value (must be valid JSON). */
void jw_raw(JsonW *w, const char *json);
/* Convenience: "k": "v" / "k": n */
void jw_kstr(JsonW *w, const char *k, const char *v);
void jw_kint(JsonW *w, const char *k, int64_t v);
void jw_kbool(JsonW *w, const char *k, bool v);

#endif
