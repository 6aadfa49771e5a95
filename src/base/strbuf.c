/* Growable byte buffer (see strbuf.h). */
#include "base/strbuf.h"
#include "base/arena.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sb_init(StrBuf *sb) { sb->data = NULL; sb->len = 0; sb->cap = 0; }

void sb_free(StrBuf *sb)
{
    free(sb->data);
    sb_init(sb);
}

void sb_clear(StrBuf *sb)
{
    sb->len = 0;
    if (sb->data) sb->data[0] = '\0';
}

void sb_reserve(StrBuf *sb, size_t extra)
{
    size_t need = sb->len + extra + 1;
    if (need <= sb->cap) return;
    size_t cap = sb->cap ? sb->cap : 64;
    while (cap < need) cap *= 2;
    sb->data = xrealloc(sb->data, cap);
    sb->cap = cap;
}

void sb_append(StrBuf *sb, const char *s, size_t n)
{
    sb_reserve(sb, n);
    if (n) memcpy(sb->data + sb->len, s, n);
    sb->len += n;
    sb->data[sb->len] = '\0';
}

void sb_puts(StrBuf *sb, const char *s) { sb_append(sb, s, strlen(s)); }

void sb_putc(StrBuf *sb, char c)
{
    sb_reserve(sb, 1);
    sb->data[sb->len++] = c;
    sb->data[sb->len] = '\0';
}

void sb_vprintf(StrBuf *sb, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n <= 0) return;
    sb_reserve(sb, (size_t)n);
    vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap);
    sb->len += (size_t)n;
}

void sb_printf(StrBuf *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(sb, fmt, ap);
    va_end(ap);
}

void sb_json_str(StrBuf *sb, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    sb_reserve(sb, n + 2);
    sb_putc(sb, '"');
    size_t start = 0;
    for (size_t i = 0; i < n; i++) {
        /* skip 8 plain bytes at a time: none < 0x20, '"' or '\\' (SWAR; bytes >= 0x80
         * never match) */
        while (i + 8 <= n) {
            uint64_t w;
            memcpy(&w, s + i, 8);
            const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
            uint64_t q = w ^ (ones * '"'), b = w ^ (ones * '\\');
            uint64_t hit = ((w - ones * 0x20) & ~w) | ((q - ones) & ~q) | ((b - ones) & ~b);
            if (hit & highs) break;
            i += 8;
        }
        if (i >= n) break;
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != '"' && c != '\\') continue;
        sb_append(sb, s + start, i - start);
        start = i + 1;
        switch (c) {
        case '"': sb_append(sb, "\\\"", 2); break;
        case '\\': sb_append(sb, "\\\\", 2); break;
        case '\n': sb_append(sb, "\\n", 2); break;
        case '\r': sb_append(sb, "\\r", 2); break;
        case '\t': sb_append(sb, "\\t", 2); break;
        case '\b': sb_append(sb, "\\b", 2); break;
        case '\f': sb_append(sb, "\\f", 2); break;
        default: {
            char u[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            sb_append(sb, u, 6);
        }
        }
    }
    sb_append(sb, s + start, n - start);
    sb_putc(sb, '"');
}

void sb_indent(StrBuf *sb, int n)
{
    for (int i = 0; i < n; i++) sb_putc(sb, ' ');
}

const char *sb_cstr(StrBuf *sb)
{
    if (!sb->data) sb_reserve(sb, 0), sb->data[0] = '\0';
    return sb->data;
}

char *sb_take(StrBuf *sb)
{
    char *p = (char *)sb_cstr(sb);
    sb_init(sb);
    return p;
}
