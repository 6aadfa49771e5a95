/* Streaming JSON writer (see jsonw.h). */
#include "base/jsonw.h"

#include <string.h>

void jw_init(JsonW *w, StrBuf *out, bool pretty)
{
    memset(w, 0, sizeof *w);
    w->out = out;
    w->pretty = pretty;
}

static void newline(JsonW *w)
{
    if (!w->pretty) return;
    sb_putc(w->out, '\n');
    sb_indent(w->out, 2 * w->depth);
}

/* Called before every value or key: writes the separator. */
static void before_value(JsonW *w)
{
    if (w->after_key) {
        w->after_key = false;
        return;
    }
    if (w->depth > 0) {
        if (w->need_comma[w->depth]) sb_putc(w->out, ',');
        newline(w);
    }
    w->need_comma[w->depth] = true;
}

static void open(JsonW *w, char c)
{
    before_value(w);
    sb_putc(w->out, c);
    if (w->depth < JSONW_MAX_DEPTH - 1) w->depth++;
    w->need_comma[w->depth] = false;
}

static void close(JsonW *w, char c)
{
    bool had = w->need_comma[w->depth];
    if (w->depth > 0) w->depth--;
    if (had) newline(w);
    sb_putc(w->out, c);
    if (w->depth == 0 && w->pretty) sb_putc(w->out, '\n');
}

void jw_obj(JsonW *w) { open(w, '{'); }
void jw_arr(JsonW *w) { open(w, '['); }
void jw_end_obj(JsonW *w) { close(w, '}'); }
void jw_end_arr(JsonW *w) { close(w, ']'); }

void jw_key(JsonW *w, const char *k)
{
    before_value(w);
    sb_json_str(w->out, k, strlen(k));
    sb_puts(w->out, w->pretty ? ": " : ":");
    w->after_key = true;
}

void jw_strn(JsonW *w, const char *s, size_t n)
{
    before_value(w);
    sb_json_str(w->out, s, n);
}

void jw_str(JsonW *w, const char *s)
{
    if (!s) {
        jw_null(w);
        return;
    }
    jw_strn(w, s, strlen(s));
}

void jw_int(JsonW *w, int64_t v)
{
    before_value(w);
    sb_printf(w->out, "%lld", (long long)v);
}

void jw_bool(JsonW *w, bool v)
{
    before_value(w);
    sb_puts(w->out, v ? "true" : "false");
}

void jw_null(JsonW *w)
{
    before_value(w);
    sb_puts(w->out, "null");
}

void jw_raw(JsonW *w, const char *json)
{
    before_value(w);
    sb_puts(w->out, json);
}

void jw_kstr(JsonW *w, const char *k, const char *v) { jw_key(w, k); jw_str(w, v); }
void jw_kint(JsonW *w, const char *k, int64_t v) { jw_key(w, k); jw_int(w, v); }
void jw_kbool(JsonW *w, const char *k, bool v) { jw_key(w, k); jw_bool(w, v); }
