/* Growable byte buffer used to build text (messages, JSON, SQL). Heap-backed. */
#ifndef WEIR_BASE_STRBUF_H
#define WEIR_BASE_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

typedef struct StrBuf {
    char *data;   /* always NUL-terminated when len > 0 or after sb_cstr */
    size_t len;
    size_t cap;
} StrBuf;

#define STRBUF_INIT {NULL, 0, 0}

void sb_init(StrBuf *sb);
void sb_free(StrBuf *sb);
void sb_clear(StrBuf *sb);                       /* len = 0, keeps capacity */
void sb_reserve(StrBuf *sb, size_t extra);        /* ensure room for extra bytes + NUL */
void sb_append(StrBuf *sb, const char *s, size_t n);
void sb_puts(StrBuf *sb, const char *s);
void sb_putc(StrBuf *sb, char c);
void sb_printf(StrBuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_vprintf(StrBuf *sb, const char *fmt, va_list ap);
/* Append s as a JSON string literal (with quotes and escapes). */
void sb_json_str(StrBuf *sb, const char *s, size_t n);
/* Append n spaces. */
void sb_indent(StrBuf *sb, int n);
/* Returns a NUL-terminated view (valid until the next modification). */
const char *sb_cstr(StrBuf *sb);
/* Transfers ownership of the buffer to the caller (malloc'd); sb becomes empty. */
char *sb_take(StrBuf *sb);

#endif
