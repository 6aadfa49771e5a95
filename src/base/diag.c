/* Diagnostics collection and rendering (see diag.h). */
#include "base/diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

SrcPos diag_text_pos(const char *file, const char *text, size_t len, size_t off)
{
    SrcPos p = {file, 1, 1};
    if (off > len) off = len;
    for (size_t i = 0; i < off; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c == '\n') {
            p.line++;
            p.col = 1;
        } else if ((c & 0xC0) != 0x80) {
            p.col++;
        }
    }
    return p;
}

void diag_init(DiagList *dl)
{
    memset(dl, 0, sizeof *dl);
    arena_init(&dl->arena, 16 * 1024);
}

void diag_fini(DiagList *dl)
{
    free(dl->items);
    free(dl->sources);
    strmap_fini(&dl->source_index);
    arena_fini(&dl->arena);
    memset(dl, 0, sizeof *dl);
}

void diag_add_source(DiagList *dl, const char *file, const char *text)
{
    if (!file || !text || strmap_get(&dl->source_index, file) >= 0) return;
    if (dl->nsources == dl->capsources) {
        dl->capsources = dl->capsources ? dl->capsources * 2 : 16;
        dl->sources = xrealloc(dl->sources, sizeof(DiagSource) * (size_t)dl->capsources);
    }
    dl->sources[dl->nsources].file = arena_strdup(&dl->arena, file);
    dl->sources[dl->nsources].text = arena_strdup(&dl->arena, text);
    strmap_put(&dl->source_index, dl->sources[dl->nsources].file, dl->nsources);
    dl->nsources++;
}

Diag *diag_add(DiagList *dl, DiagSeverity sev, SrcPos pos, const char *code,
               const char *hint, const char *fmt, ...)
{
    if (dl->count == dl->cap) {
        dl->cap = dl->cap ? dl->cap * 2 : 16;
        dl->items = xrealloc(dl->items, sizeof(Diag) * (size_t)dl->cap);
    }
    Diag *d = &dl->items[dl->count++];
    StrBuf sb = STRBUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(&sb, fmt, ap);
    va_end(ap);
    d->severity = sev;
    d->pos.file = pos.file ? arena_strdup(&dl->arena, pos.file) : NULL;
    d->pos.line = pos.line;
    d->pos.col = pos.col;
    d->code = arena_strdup(&dl->arena, code ? code : "error");
    d->message = arena_strdup(&dl->arena, sb_cstr(&sb));
    d->hint = hint ? arena_strdup(&dl->arena, hint) : NULL;
    sb_free(&sb);
    if (sev == DIAG_ERROR) dl->errors++;
    if (sev == DIAG_WARNING) dl->warnings++;
    return d;
}

static int cmp_diag(const void *pa, const void *pb)
{
    const Diag *a = pa, *b = pb;
    const char *fa = a->pos.file ? a->pos.file : "", *fb = b->pos.file ? b->pos.file : "";
    int c = strcmp(fa, fb);
    if (c) return c;
    if (a->pos.line != b->pos.line) return a->pos.line < b->pos.line ? -1 : 1;
    if (a->pos.col != b->pos.col) return a->pos.col < b->pos.col ? -1 : 1;
    return 0;
}

/* Bottom-up merge sort: stable, so equal positions keep their emission order. */
void diag_sort(DiagList *dl)
{
    int n = dl->count;
    if (n < 2) return;
    Diag *a = dl->items, *b = xmalloc(sizeof(Diag) * (size_t)n);
    for (int w = 1; w < n; w *= 2) {
        for (int lo = 0; lo < n; lo += 2 * w) {
            int mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            int i = lo, j = mid, k = lo;
            while (i < mid && j < hi) b[k++] = cmp_diag(&a[j], &a[i]) < 0 ? a[j++] : a[i++];
            while (i < mid) b[k++] = a[i++];
            while (j < hi) b[k++] = a[j++];
        }
        Diag *t = a;
        a = b;
        b = t;
    }
    if (a != dl->items) {
        memcpy(dl->items, a, sizeof(Diag) * (size_t)n);
        b = a;
    }
    free(b);
}

static const char *severity_name(DiagSeverity s)
{
    switch (s) {
    case DIAG_ERROR: return "error";
    case DIAG_WARNING: return "warning";
    default: return "note";
    }
}

static const char *find_source(const DiagList *dl, const char *file)
{
    int i = file ? strmap_get(&dl->source_index, file) : -1;
    return i >= 0 ? dl->sources[i].text : NULL;
}

/* Where the previous line was found: diagnostics are rendered sorted by position, so
 * the search for the next line of the same file continues from here instead of from
 * the start of the file (which would be quadratic for many diagnostics in one file). */
typedef struct LineCursor {
    const char *text;
    int line;              /* the line p starts, or 0 */
    const char *p;
} LineCursor;

static void render_line(StrBuf *out, LineCursor *cur, const char *text, int line, int col)
{
    if (cur->text != text || cur->line < 1 || cur->line > line) {
        cur->text = text;
        cur->line = 1;
        cur->p = text;
    }
    const char *p = cur->p;
    for (int l = cur->line; l < line && p; l++) {
        p = strchr(p, '\n');
        if (p) p++;
    }
    if (!p) {
        cur->line = 0;
        return;
    }
    cur->line = line;
    cur->p = p;
    if (!*p) return;
    const char *e = strchr(p, '\n');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    char gutter[16];
    int gw = snprintf(gutter, sizeof gutter, "%d", line);
    sb_printf(out, " %s | ", gutter);
    for (size_t i = 0; i < n; i++) sb_putc(out, p[i] == '\t' ? ' ' : p[i]);
    sb_putc(out, '\n');
    if (col > 0) {
        sb_indent(out, gw + 1);
        sb_puts(out, " | ");
        sb_indent(out, col - 1);
        sb_puts(out, "^\n");
    }
}

void diag_render_text(const DiagList *dl, StrBuf *out, bool color)
{
    LineCursor cur = {NULL, 0, NULL};
    for (int i = 0; i < dl->count; i++) {
        const Diag *d = &dl->items[i];
        if (color) sb_puts(out, "\033[1m");
        if (d->pos.file) {
            sb_puts(out, d->pos.file);
            if (d->pos.line > 0) sb_printf(out, ":%d", d->pos.line);
            if (d->pos.line > 0 && d->pos.col > 0) sb_printf(out, ":%d", d->pos.col);
            sb_puts(out, ": ");
        }
        if (color)
            sb_puts(out, d->severity == DIAG_ERROR ? "\033[31m" : "\033[35m");
        sb_puts(out, severity_name(d->severity));
        if (color) sb_puts(out, "\033[0m\033[1m");
        sb_printf(out, ": %s", d->message);
        if (color) sb_puts(out, "\033[0m");
        sb_putc(out, '\n');
        const char *text = find_source(dl, d->pos.file);
        if (text && d->pos.line > 0) render_line(out, &cur, text, d->pos.line, d->pos.col);
        if (d->hint) sb_printf(out, "  hint: %s\n", d->hint);
    }
}

void diag_render_json(const DiagList *dl, StrBuf *out)
{
    sb_putc(out, '[');
    for (int i = 0; i < dl->count; i++) {
        const Diag *d = &dl->items[i];
        if (i) sb_putc(out, ',');
        sb_puts(out, "\n  {\"severity\": ");
        sb_json_str(out, severity_name(d->severity), strlen(severity_name(d->severity)));
        sb_puts(out, ", \"code\": ");
        sb_json_str(out, d->code, strlen(d->code));
        sb_puts(out, ", \"file\": ");
        if (d->pos.file) sb_json_str(out, d->pos.file, strlen(d->pos.file));
        else sb_puts(out, "null");
        sb_printf(out, ", \"line\": %d, \"col\": %d, \"message\": ", d->pos.line, d->pos.col);
        sb_json_str(out, d->message, strlen(d->message));
        sb_puts(out, ", \"hint\": ");
        if (d->hint) sb_json_str(out, d->hint, strlen(d->hint));
        else sb_puts(out, "null");
        sb_putc(out, '}');
    }
    sb_puts(out, dl->count ? "\n]\n" : "]\n");
}

/* Case-insensitive edit distance of a and b, or a number above max as soon as the
 * distance is known to exceed max (every cell of a row above it). */
static int edit_distance(const char *a, size_t la, const char *b, size_t lb, int max)
{
    if (la > 64 || lb > 64) return 1000;
    if ((la > lb ? la - lb : lb - la) > (size_t)max) return max + 1;
    int prev[65], cur[65];
    for (size_t j = 0; j <= lb; j++) prev[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = (int)i;
        int row_min = cur[0];
        for (size_t j = 1; j <= lb; j++) {
            int cost = (a[i - 1] | 32) == (b[j - 1] | 32) ? 0 : 1;
            int v = prev[j - 1] + cost;
            if (prev[j] + 1 < v) v = prev[j] + 1;
            if (cur[j - 1] + 1 < v) v = cur[j - 1] + 1;
            cur[j] = v;
            if (v < row_min) row_min = v;
        }
        if (row_min > max) return max + 1;
        memcpy(prev, cur, sizeof(int) * (lb + 1));
    }
    return prev[lb];
}

const char *diag_closest(const char *word, const char *const *candidates, int n)
{
    if (!word) return NULL;
    size_t len = strlen(word);
    int limit = len / 3 > 2 ? (int)(len / 3) : 2;
    int best = limit + 1;
    const char *best_s = NULL;
    for (int i = 0; i < n && best > 0; i++) {
        if (!candidates[i]) continue;
        int d = edit_distance(word, len, candidates[i], strlen(candidates[i]), best - 1);
        if (d < best) {
            best = d;
            best_s = candidates[i];
        }
    }
    return best_s;
}

/* Candidates compared by the hints of one list, at most: many unknown names against
 * many candidates (thousands of configs of renamed models) would otherwise make
 * checking a project quadratic; past it, diagnostics come without a suggestion. */
#define HINT_BUDGET 4000000L

const char *diag_did_you_mean(DiagList *dl, const char *word, const char *const *candidates, int n)
{
    if (n > 0 && dl->hint_work + n > HINT_BUDGET) return NULL;
    dl->hint_work += n;
    const char *c = diag_closest(word, candidates, n);
    return c ? arena_printf(&dl->arena, "did you mean '%s'?", c) : NULL;
}
