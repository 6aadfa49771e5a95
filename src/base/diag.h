/* Diagnostics: compile-time errors and warnings with a position (file:line:col),
 * a message and a hint. Collected in a DiagList, sorted by file and position, and
 * rendered with the source line and a caret. Only the CLI prints them. */
#ifndef WEIR_BASE_DIAG_H
#define WEIR_BASE_DIAG_H

#include "base/arena.h"
#include "base/strbuf.h"
#include "base/strmap.h"

#include <stdbool.h>

typedef enum { DIAG_ERROR, DIAG_WARNING, DIAG_NOTE } DiagSeverity;

/* A position in a project file. line and col are 1-based; 0 means unknown. */
typedef struct SrcPos {
    const char *file;   /* project-relative path, or NULL */
    int line;
    int col;
} SrcPos;

typedef struct Diag {
    DiagSeverity severity;
    SrcPos pos;
    const char *code;     /* stable machine-readable kind, e.g. "unknown-key" */
    const char *message;
    const char *hint;     /* may be NULL */
} Diag;

typedef struct DiagSource {
    const char *file;
    const char *text;     /* full contents; used to print the offending line */
} DiagSource;

typedef struct DiagList {
    Arena arena;          /* owns messages and copies of sources */
    Diag *items;
    int count, cap;
    DiagSource *sources;
    int nsources, capsources;
    StrMap source_index;  /* file -> index of sources */
    long hint_work;       /* candidates compared by diag_did_you_mean so far */
    int errors, warnings;
} DiagList;

/* The position (line and column, 1-based, columns in UTF-8 characters) of byte offset
 * off (clamped to len) in the text of file. */
SrcPos diag_text_pos(const char *file, const char *text, size_t len, size_t off);

void diag_init(DiagList *dl);
void diag_fini(DiagList *dl);
/* Register a file's text so rendered diagnostics can show the offending line.
 * The text is copied. */
void diag_add_source(DiagList *dl, const char *file, const char *text);
/* Add a diagnostic. message and hint are copied; hint may be NULL. Returns the diag. */
Diag *diag_add(DiagList *dl, DiagSeverity sev, SrcPos pos, const char *code,
               const char *hint, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
#define diag_error(dl, pos, code, hint, ...) diag_add((dl), DIAG_ERROR, (pos), (code), (hint), __VA_ARGS__)
#define diag_warning(dl, pos, code, hint, ...) diag_add((dl), DIAG_WARNING, (pos), (code), (hint), __VA_ARGS__)
/* Stable sort by file, line, col (diagnostics without a file come first); O(n log n). */
void diag_sort(DiagList *dl);
/* Render all diagnostics as text ("file:line:col: error: msg", source line, caret, hint).
 * Linear in the diagnostics and the files they point into. */
void diag_render_text(const DiagList *dl, StrBuf *out, bool color);
/* Render as a JSON array of {severity, code, file, line, col, message, hint}. */
void diag_render_json(const DiagList *dl, StrBuf *out);

/* "did you mean" support: the candidate closest to word by edit distance, or NULL
 * when none is close enough (distance > max(2, len/3)). */
const char *diag_closest(const char *word, const char *const *candidates, int n);
/* Formats a hint "did you mean 'x'?" into the list's arena, or returns NULL (also once
 * the list's hints have compared a few million candidates in all). */
const char *diag_did_you_mean(DiagList *dl, const char *word, const char *const *candidates, int n);

#endif
