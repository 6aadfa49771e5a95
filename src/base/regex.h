/* Regular expressions for the ~ operators and the regexp_* functions: PostgreSQL's
 * advanced regular expressions (AREs) and flag letters, run by PCRE2. The adapter
 * (regex.c, the only file that includes pcre2.h) rewrites the ARE spellings PCRE2
 * spells differently (\m \M \y \Y \Z \b \B \v \d \D \uXXXX \xhhh, [[:<:]] [[:>:]],
 * [[.c.]] [[=c=]], embedded options and the ***= / ***: directors) and maps PCRE2's
 * compile errors to PostgreSQL's messages. What cannot be matched exactly (ARE's
 * leftmost-longest rule versus PCRE2's leftmost-first, ...) is listed in docs/sql.md.
 *
 * Subjects and patterns are UTF-8; offsets are in bytes. Not thread-safe: a compiled
 * Regex carries its own match buffer. */
#ifndef WEIR_BASE_REGEX_H
#define WEIR_BASE_REGEX_H

#include "base/arena.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct Regex Regex;

/* Compile options: PostgreSQL's flag letters. */
enum {
    REGEX_ICASE = 1 << 0,     /* i (c turns it off) */
    REGEX_NL_DOT = 1 << 1,    /* n, p: '.' and [^...] do not match a newline */
    REGEX_NL_ANCHOR = 1 << 2, /* n, w: ^ and $ also match after / before a newline */
    REGEX_EXPANDED = 1 << 3,  /* x: white space and #-comments in the pattern are ignored */
    REGEX_LITERAL = 1 << 4,   /* q: the whole pattern is a literal string */
};

/* Applies a PostgreSQL flags string (regexp_replace's and regexp_like's `flags`) to
 * *opts, letter by letter (later letters win: 'ic' is case-sensitive), and sets
 * *global for 'g'. False for a letter PostgreSQL does not know, with its message
 * (invalid regular expression option: "z"), or for 'b' (basic REs: not supported). */
bool regex_parse_flags(const char *s, size_t n, int *opts, bool *global, char *err, size_t errsize);

/* Compiles pattern (n bytes of UTF-8) with opts. NULL on an invalid pattern, with
 * PostgreSQL's message in err ("invalid regular expression: parentheses () not
 * balanced"); free the result with regex_free. */
Regex *regex_compile(const char *pattern, size_t n, int opts, char *err, size_t errsize);
/* As regex_compile, but the result is freed when arena a is released. */
Regex *regex_compile_in(Arena *a, const char *pattern, size_t n, int opts, char *err, size_t errsize);
void regex_free(Regex *re);

/* Number of capturing groups (parenthesised subexpressions). */
int regex_groups(const Regex *re);

/* Searches subject s (n bytes) for the first match that starts at byte offset `start`
 * or later; what precedes `start` stays visible to ^ and lookbehind, as for
 * PostgreSQL's search offsets. `checked`: the subject was already searched once (its
 * UTF-8 is not validated again). On a match returns 1 and stores byte offsets in
 * m[0..2*(groups+1)) (at most mcap entries): pairs (start, end), the whole match first,
 * -1 for a group that did not take part. 0: no match. -1: an error (invalid UTF-8 in
 * the subject, a resource limit), with the message in err. */
int regex_search(Regex *re, const char *s, size_t n, size_t start, bool checked, int64_t *m, int mcap,
                 char *err, size_t errsize);

#endif
