/* PostgreSQL's number templates for to_char(numeric | integer | bigint | real |
 * double precision, text): 9 0 . , D G S PL MI SG PR FM TH th V L RN rn EEEE B, in
 * the C locale (D is '.', G is ',', L is a space), with PostgreSQL's rules for signs,
 * blank and zero padding, fill mode and the '#' output of a number too wide for its
 * template. */
#ifndef WEIR_BASE_NUMFMT_H
#define WEIR_BASE_NUMFMT_H

#include "base/strbuf.h"
#include "base/value.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The number to format: one of the kinds below. */
typedef enum NumFmtKind { NUMFMT_NUMERIC, NUMFMT_INT4, NUMFMT_INT8, NUMFMT_FLOAT4, NUMFMT_FLOAT8 } NumFmtKind;

typedef struct NumFmtValue {
    NumFmtKind kind;
    i128 num;        /* NUMFMT_NUMERIC: num / 10^scale */
    int scale;
    int64_t i;       /* NUMFMT_INT4 / NUMFMT_INT8 */
    double f;        /* NUMFMT_FLOAT4 / NUMFMT_FLOAT8 */
} NumFmtValue;

/* Appends to_char(v, template) to out; false with PostgreSQL's message in err for an
 * invalid template ("multiple decimal points", ...) or a value error (bigint out of
 * range from V). An empty template gives an empty string. */
bool numfmt_to_char(const NumFmtValue *v, const char *fmt, size_t fmtlen, StrBuf *out, char *err, size_t errsize);

#endif
