/* The array halves of value.c's operations (value_array.c), for value.c only. */
#ifndef WEIR_BASE_VALUE_INTERNAL_H
#define WEIR_BASE_VALUE_INTERNAL_H

#include "base/value.h"

int array_compare(Type t, const Value *a, const Value *b);
bool array_equal(Type t, const Value *a, const Value *b);
uint64_t array_hash(Type t, const Value *a, uint64_t seed);
void array_format_text(Type t, const Value *a, StrBuf *out);
void array_format_json(Type t, const Value *a, StrBuf *out);
bool array_parse(Type t, const char *text, size_t len, Arena *arena, Value *out, char *err, size_t errsize);
bool json_parse(const char *text, size_t len, Arena *arena, Value *out, char *err, size_t errsize);
bool array_cast(Type from, Type to, const Value *in, Arena *arena, Value *out, char *err, size_t errsize);

#endif
