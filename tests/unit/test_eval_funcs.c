/* Unit tests of the scalar function library (src/engine/eval_func*.c and the base
 * modules behind it: md5, decmath, datefmt, numfmt, regex): string functions, math on
 * floats and exact numerics, date/time constructors and arithmetic, to_char,
 * to_timestamp/to_date and regular expressions, including NULL arguments, empty and
 * multi-byte strings, extreme values and the error cases. Every expected value is
 * PostgreSQL 15's result of the SQL in the comment above the case (session time zone
 * UTC, a UTF-8 database in the C.UTF-8 locale). */
#include "test_eval_util.h"

#include "base/regex.h"

static void test_lpad_rpad(void **state)
{
    (void)state;
    /* select lpad('hi', (5)::int4) */
    CHECK(fn(FN_LPAD, TT, 2, txt("hi"), i4(5)), "   hi");
    /* select lpad('hi', (5)::int4, 'xy') */
    CHECK(fn(FN_LPAD, TT, 3, txt("hi"), i4(5), txt("xy")), "xyxhi");
    /* select lpad('hello', (3)::int4, 'xy') */
    CHECK(fn(FN_LPAD, TT, 3, txt("hello"), i4(3), txt("xy")), "hel");
    /* select lpad('héllo', (7)::int4, 'é') */
    CHECK(fn(FN_LPAD, TT, 3, txt("héllo"), i4(7), txt("é")), "ééhéllo");
    /* select lpad('日本', (5)::int4, '語x') */
    CHECK(fn(FN_LPAD, TT, 3, txt("日本"), i4(5), txt("語x")), "語x語日本");
    /* select lpad('hi', (-1)::int4, 'x') */
    CHECK(fn(FN_LPAD, TT, 3, txt("hi"), i4(-1), txt("x")), "");
    /* select lpad('hi', (5)::int4, '') */
    CHECK(fn(FN_LPAD, TT, 3, txt("hi"), i4(5), txt("")), "hi");
    /* select lpad('', (3)::int4, 'ab') */
    CHECK(fn(FN_LPAD, TT, 3, txt(""), i4(3), txt("ab")), "aba");
    /* select lpad('a', (268435455)::int4) */
    CHECK(fn(FN_LPAD, TT, 2, txt("a"), i4(268435455)), "ERROR: requested length too large");
    /* select lpad('a', (2147483647)::int4, 'x') */
    CHECK(fn(FN_LPAD, TT, 3, txt("a"), i4(2147483647), txt("x")), "ERROR: requested length too large");
    /* select lpad('x', (3)::int4, NULL::text) */
    CHECK(fn(FN_LPAD, TT, 3, txt("x"), i4(3), nul(TT)), "NULL");
    /* select lpad(NULL::text, (3)::int4) */
    CHECK(fn(FN_LPAD, TT, 2, nul(TT), i4(3)), "NULL");
    /* select rpad('hi', (5)::int4) */
    CHECK(fn(FN_RPAD, TT, 2, txt("hi"), i4(5)), "hi   ");
    /* select rpad('hi', (5)::int4, 'xy') */
    CHECK(fn(FN_RPAD, TT, 3, txt("hi"), i4(5), txt("xy")), "hixyx");
    /* select rpad('hello', (3)::int4, 'xy') */
    CHECK(fn(FN_RPAD, TT, 3, txt("hello"), i4(3), txt("xy")), "hel");
    /* select rpad('héllo', (8)::int4, 'éa') */
    CHECK(fn(FN_RPAD, TT, 3, txt("héllo"), i4(8), txt("éa")), "hélloéaé");
    /* select rpad('hi', (0)::int4) */
    CHECK(fn(FN_RPAD, TT, 2, txt("hi"), i4(0)), "");
    /* select rpad('hi', NULL::int4) */
    CHECK(fn(FN_RPAD, TT, 2, txt("hi"), nul(TI4)), "NULL");
}

static void test_initcap_reverse(void **state)
{
    (void)state;
    /* select initcap('hello wORLD foo_bar 3rd x-y') */
    CHECK(fn(FN_INITCAP, TT, 1, txt("hello wORLD foo_bar 3rd x-y")), "Hello World Foo_Bar 3rd X-Y");
    /* select initcap('élan ÉCOLE ǆemal straße') */
    CHECK(fn(FN_INITCAP, TT, 1, txt("élan ÉCOLE ǆemal straße")), "Élan École Ǆemal Straße");
    /* select initcap('') */
    CHECK(fn(FN_INITCAP, TT, 1, txt("")), "");
    /* select initcap('ΑΒΓ δεζ') */
    CHECK(fn(FN_INITCAP, TT, 1, txt("ΑΒΓ δεζ")), "Αβγ Δεζ");
    /* select initcap(NULL::text) */
    CHECK(fn(FN_INITCAP, TT, 1, nul(TT)), "NULL");
    /* select upper('ɐɑɫ') */
    CHECK(fn(FN_UPPER, TT, 1, txt("ɐɑɫ")), "ⱯⱭⱢ");
    /* select lower('ȺȾ') */
    CHECK(fn(FN_LOWER, TT, 1, txt("ȺȾ")), "ⱥⱦ");
    /* select reverse('héllo') */
    CHECK(fn(FN_REVERSE, TT, 1, txt("héllo")), "olléh");
    /* select reverse('日本語') */
    CHECK(fn(FN_REVERSE, TT, 1, txt("日本語")), "語本日");
    /* select reverse('') */
    CHECK(fn(FN_REVERSE, TT, 1, txt("")), "");
    /* select reverse('a') */
    CHECK(fn(FN_REVERSE, TT, 1, txt("a")), "a");
    /* select reverse(NULL::text) */
    CHECK(fn(FN_REVERSE, TT, 1, nul(TT)), "NULL");
}

static void test_repeat_md5(void **state)
{
    (void)state;
    /* select repeat('ab', (3)::int4) */
    CHECK(fn(FN_REPEAT, TT, 2, txt("ab"), i4(3)), "ababab");
    /* select repeat('é', (2)::int4) */
    CHECK(fn(FN_REPEAT, TT, 2, txt("é"), i4(2)), "éé");
    /* select repeat('ab', (0)::int4) */
    CHECK(fn(FN_REPEAT, TT, 2, txt("ab"), i4(0)), "");
    /* select repeat('ab', (-1)::int4) */
    CHECK(fn(FN_REPEAT, TT, 2, txt("ab"), i4(-1)), "");
    /* select repeat('ab', (1)::int4) */
    CHECK(fn(FN_REPEAT, TT, 2, txt("ab"), i4(1)), "ab");
    /* select repeat('ab', (1000000000)::int4) */
    CHECK(fn(FN_REPEAT, TT, 2, txt("ab"), i4(1000000000)), "ERROR: requested length too large");
    /* select repeat('x', (2147483647)::int4) */
    CHECK(fn(FN_REPEAT, TT, 2, txt("x"), i4(2147483647)), "ERROR: requested length too large");
    /* select repeat('', (1000000000)::int4) */
    CHECK(fn(FN_REPEAT, TT, 2, txt(""), i4(1000000000)), "");
    /* select repeat('ab', NULL::int4) */
    CHECK(fn(FN_REPEAT, TT, 2, txt("ab"), nul(TI4)), "NULL");
    /* select md5('') */
    CHECK(fn(FN_MD5, TT, 1, txt("")), "d41d8cd98f00b204e9800998ecf8427e");
    /* select md5('abc') */
    CHECK(fn(FN_MD5, TT, 1, txt("abc")), "900150983cd24fb0d6963f7d28e17f72");
    /* select md5('héllo') */
    CHECK(fn(FN_MD5, TT, 1, txt("héllo")), "be50e8478cf24ff3595bc7307fb91b50");
    /* select md5('The quick brown fox jumps over the lazy dog') */
    CHECK(fn(FN_MD5, TT, 1, txt("The quick brown fox jumps over the lazy dog")), "9e107d9d372bb6826bd81d3542a419d6");
    /* select md5('xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx') */
    CHECK(fn(FN_MD5, TT, 1, txt("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx")), "04364420e25c512fd958a70738aa8f72");
    /* select md5('xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx') */
    CHECK(fn(FN_MD5, TT, 1, txt("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx")), "668a72d5ba17f08e62dabcafad6db14b");
    /* select md5('xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx') */
    CHECK(fn(FN_MD5, TT, 1, txt("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx")), "c1bb4f81d892b2d57947682aeb252456");
    /* select md5('xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx') */
    CHECK(fn(FN_MD5, TT, 1, txt("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx")), "30a83621ce5422fbdfdd539777458c78");
    /* select md5(NULL::text) */
    CHECK(fn(FN_MD5, TT, 1, nul(TT)), "NULL");
}

static void test_starts_translate_ascii_chr(void **state)
{
    (void)state;
    /* select starts_with('hello', 'he') */
    CHECK(fn(FN_STARTS_WITH, TB, 2, txt("hello"), txt("he")), "t");
    /* select starts_with('hello', '') */
    CHECK(fn(FN_STARTS_WITH, TB, 2, txt("hello"), txt("")), "t");
    /* select starts_with('hello', 'hello!') */
    CHECK(fn(FN_STARTS_WITH, TB, 2, txt("hello"), txt("hello!")), "f");
    /* select starts_with('', '') */
    CHECK(fn(FN_STARTS_WITH, TB, 2, txt(""), txt("")), "t");
    /* select starts_with('héllo', 'hé') */
    CHECK(fn(FN_STARTS_WITH, TB, 2, txt("héllo"), txt("hé")), "t");
    /* select starts_with('hello', NULL::text) */
    CHECK(fn(FN_STARTS_WITH, TB, 2, txt("hello"), nul(TT)), "NULL");
    /* select translate('12345', '143', 'ax') */
    CHECK(fn(FN_TRANSLATE, TT, 3, txt("12345"), txt("143"), txt("ax")), "a2x5");
    /* select translate('héllo', 'él', 'EL') */
    CHECK(fn(FN_TRANSLATE, TT, 3, txt("héllo"), txt("él"), txt("EL")), "hELLo");
    /* select translate('abc', '', 'x') */
    CHECK(fn(FN_TRANSLATE, TT, 3, txt("abc"), txt(""), txt("x")), "abc");
    /* select translate('', 'a', 'b') */
    CHECK(fn(FN_TRANSLATE, TT, 3, txt(""), txt("a"), txt("b")), "");
    /* select translate('aaa', 'aa', 'xy') */
    CHECK(fn(FN_TRANSLATE, TT, 3, txt("aaa"), txt("aa"), txt("xy")), "xxx");
    /* select translate('abc', 'abc', '日本') */
    CHECK(fn(FN_TRANSLATE, TT, 3, txt("abc"), txt("abc"), txt("日本")), "日本");
    /* select translate('abc', 'b', NULL::text) */
    CHECK(fn(FN_TRANSLATE, TT, 3, txt("abc"), txt("b"), nul(TT)), "NULL");
    /* select ascii('A') */
    CHECK(fn(FN_ASCII, TI4, 1, txt("A")), "65");
    /* select ascii('é') */
    CHECK(fn(FN_ASCII, TI4, 1, txt("é")), "233");
    /* select ascii('') */
    CHECK(fn(FN_ASCII, TI4, 1, txt("")), "0");
    /* select ascii('€uro') */
    CHECK(fn(FN_ASCII, TI4, 1, txt("€uro")), "8364");
    /* select ascii(NULL::text) */
    CHECK(fn(FN_ASCII, TI4, 1, nul(TT)), "NULL");
    /* select chr((65)::int4) */
    CHECK(fn(FN_CHR, TT, 1, i4(65)), "A");
    /* select chr((233)::int4) */
    CHECK(fn(FN_CHR, TT, 1, i4(233)), "é");
    /* select chr((8364)::int4) */
    CHECK(fn(FN_CHR, TT, 1, i4(8364)), "€");
    /* select chr((128512)::int4) */
    CHECK(fn(FN_CHR, TT, 1, i4(128512)), "😀");
    /* select chr((0)::int4) */
    CHECK(fn(FN_CHR, TT, 1, i4(0)), "ERROR: null character not permitted");
    /* select chr((-1)::int4) */
    CHECK(fn(FN_CHR, TT, 1, i4(-1)), "ERROR: character number must be positive");
    /* select chr((1114112)::int4) */
    CHECK(fn(FN_CHR, TT, 1, i4(1114112)), "ERROR: requested character too large for encoding: 1114112");
    /* select chr((55296)::int4) */
    CHECK(fn(FN_CHR, TT, 1, i4(55296)), "ERROR: requested character not valid for encoding: 55296");
    /* select chr(NULL::int4) */
    CHECK(fn(FN_CHR, TT, 1, nul(TI4)), "NULL");
    /* select octet_length('héllo') */
    CHECK(fn(FN_OCTET_LENGTH, TI4, 1, txt("héllo")), "6");
    /* select octet_length('') */
    CHECK(fn(FN_OCTET_LENGTH, TI4, 1, txt("")), "0");
    /* select octet_length('日本') */
    CHECK(fn(FN_OCTET_LENGTH, TI4, 1, txt("日本")), "6");
    /* select octet_length(NULL::text) */
    CHECK(fn(FN_OCTET_LENGTH, TI4, 1, nul(TT)), "NULL");
}

static void test_float_math(void **state)
{
    (void)state;
    /* select exp('1.0'::float8) */
    CHECK(fn(FN_EXP, TF8, 1, f8(1.0)), "2.718281828459045");
    /* select exp('-740.0'::float8) */
    CHECK(fn(FN_EXP, TF8, 1, f8(-740.0)), "4.2e-322");
    /* select exp('-746.0'::float8) */
    CHECK(fn(FN_EXP, TF8, 1, f8(-746.0)), "ERROR: value out of range: underflow");
    /* select exp('710.0'::float8) */
    CHECK(fn(FN_EXP, TF8, 1, f8(710.0)), "ERROR: value out of range: overflow");
    /* select exp('Infinity'::float8) */
    CHECK(fn(FN_EXP, TF8, 1, f8(INFINITY)), "Infinity");
    /* select exp('-Infinity'::float8) */
    CHECK(fn(FN_EXP, TF8, 1, f8(-INFINITY)), "0");
    /* select exp('NaN'::float8) */
    CHECK(fn(FN_EXP, TF8, 1, f8(NAN)), "NaN");
    /* select exp(NULL::float8) */
    CHECK(fn(FN_EXP, TF8, 1, nul(TF8)), "NULL");
    /* select ln('2.0'::float8) */
    CHECK(fn(FN_LN, TF8, 1, f8(2.0)), "0.6931471805599453");
    /* select ln('0.0'::float8) */
    CHECK(fn(FN_LN, TF8, 1, f8(0.0)), "ERROR: cannot take logarithm of zero");
    /* select ln('-1.0'::float8) */
    CHECK(fn(FN_LN, TF8, 1, f8(-1.0)), "ERROR: cannot take logarithm of a negative number");
    /* select ln('NaN'::float8) */
    CHECK(fn(FN_LN, TF8, 1, f8(NAN)), "NaN");
    /* select ln('Infinity'::float8) */
    CHECK(fn(FN_LN, TF8, 1, f8(INFINITY)), "Infinity");
    /* select log('1000.0'::float8) */
    CHECK(fn(FN_LOG, TF8, 1, f8(1000.0)), "3");
    /* select log('0.5'::float8) */
    CHECK(fn(FN_LOG, TF8, 1, f8(0.5)), "-0.3010299956639812");
    /* select log10('0.0'::float8) */
    CHECK(fn(FN_LOG10, TF8, 1, f8(0.0)), "ERROR: cannot take logarithm of zero");
    /* select log10('12345.678'::float8) */
    CHECK(fn(FN_LOG10, TF8, 1, f8(12345.678)), "4.091514945509202");
    /* select cbrt('27.0'::float8) */
    CHECK(fn(FN_CBRT, TF8, 1, f8(27.0)), "3.0000000000000004");
    /* select cbrt('-8.0'::float8) */
    CHECK(fn(FN_CBRT, TF8, 1, f8(-8.0)), "-2");
    /* select cbrt('Infinity'::float8) */
    CHECK(fn(FN_CBRT, TF8, 1, f8(INFINITY)), "Infinity");
    /* select pi() */
    CHECK(fn(FN_PI, TF8, 0), "3.141592653589793");
    /* select degrees('1.0'::float8) */
    CHECK(fn(FN_DEGREES, TF8, 1, f8(1.0)), "57.29577951308232");
    /* select degrees('1e+308'::float8) */
    CHECK(fn(FN_DEGREES, TF8, 1, f8(1e+308)), "ERROR: value out of range: overflow");
    /* select radians('180.0'::float8) */
    CHECK(fn(FN_RADIANS, TF8, 1, f8(180.0)), "3.141592653589793");
    /* select radians('1e-320'::float8) */
    CHECK(fn(FN_RADIANS, TF8, 1, f8(1e-320)), "1.73e-322");
    /* select sin('1.0'::float8) */
    CHECK(fn(FN_SIN, TF8, 1, f8(1.0)), "0.8414709848078965");
    /* select sin('Infinity'::float8) */
    CHECK(fn(FN_SIN, TF8, 1, f8(INFINITY)), "ERROR: input is out of range");
    /* select cos('NaN'::float8) */
    CHECK(fn(FN_COS, TF8, 1, f8(NAN)), "NaN");
    /* select cos('3.0'::float8) */
    CHECK(fn(FN_COS, TF8, 1, f8(3.0)), "-0.9899924966004454");
    /* select tan('1.5707963267948966'::float8) */
    CHECK(fn(FN_TAN, TF8, 1, f8(1.5707963267948966)), "1.633123935319537e+16");
    /* select asin('0.5'::float8) */
    CHECK(fn(FN_ASIN, TF8, 1, f8(0.5)), "0.5235987755982989");
    /* select asin('2.0'::float8) */
    CHECK(fn(FN_ASIN, TF8, 1, f8(2.0)), "ERROR: input is out of range");
    /* select acos('-1.5'::float8) */
    CHECK(fn(FN_ACOS, TF8, 1, f8(-1.5)), "ERROR: input is out of range");
    /* select acos('-1.0'::float8) */
    CHECK(fn(FN_ACOS, TF8, 1, f8(-1.0)), "3.141592653589793");
    /* select atan('Infinity'::float8) */
    CHECK(fn(FN_ATAN, TF8, 1, f8(INFINITY)), "1.5707963267948966");
    /* select atan2('0.0'::float8, '-1.0'::float8) */
    CHECK(fn(FN_ATAN2, TF8, 2, f8(0.0), f8(-1.0)), "3.141592653589793");
    /* select atan2('1.0'::float8, '2.0'::float8) */
    CHECK(fn(FN_ATAN2, TF8, 2, f8(1.0), f8(2.0)), "0.4636476090008061");
    /* select atan2('NaN'::float8, '1.0'::float8) */
    CHECK(fn(FN_ATAN2, TF8, 2, f8(NAN), f8(1.0)), "NaN");
}

static void test_numeric_math(void **state)
{
    (void)state;
    /* select exp((1)::numeric) */
    CHECK(fn(FN_EXP, TN, 1, num("1")), "2.7182818284590452");
    /* select exp((1.5)::numeric) */
    CHECK(fn(FN_EXP, TN, 1, num("1.5")), "4.4816890703380648");
    /* select exp((-20.5)::numeric) */
    CHECK(fn(FN_EXP, TN, 1, num("-20.5")), "0.000000001250152866386743");
    /* select exp((80)::numeric) */
    CHECK(fn(FN_EXP, TN, 1, num("80")), "55406223843935100525711733958316613");
    /* select exp((87.5)::numeric) => PostgreSQL: 100176802734681518542535425401131872802.7; weir's numeric holds 38 digits */
    CHECK(fn(FN_EXP, TN, 1, num("87.5")), "ERROR: value overflows numeric format");
    /* select exp((1.23456789012345678901234567890)::numeric) */
    CHECK(fn(FN_EXP, TN, 1, num("1.23456789012345678901234567890")), "3.43689308434600800459142431476");
    /* select exp((0)::numeric) */
    CHECK(fn(FN_EXP, TN, 1, num("0")), "1.0000000000000000");
    /* select ln((2)::numeric) */
    CHECK(fn(FN_LN, TN, 1, num("2")), "0.6931471805599453");
    /* select ln((10.000000000000000000000000)::numeric) */
    CHECK(fn(FN_LN, TN, 1, num("10.000000000000000000000000")), "2.302585092994045684017991");
    /* select ln((1.0000000001)::numeric) */
    CHECK(fn(FN_LN, TN, 1, num("1.0000000001")), "0.00000000009999999999500000");
    /* select ln((0.9999999999)::numeric) */
    CHECK(fn(FN_LN, TN, 1, num("0.9999999999")), "-0.00000000010000000000500000");
    /* select ln((99999999999999999999)::numeric) */
    CHECK(fn(FN_LN, TN, 1, num("99999999999999999999")), "46.051701859880914");
    /* select ln((1)::numeric) */
    CHECK(fn(FN_LN, TN, 1, num("1")), "0.0000000000000000");
    /* select ln((0)::numeric) */
    CHECK(fn(FN_LN, TN, 1, num("0")), "ERROR: cannot take logarithm of zero");
    /* select ln((-2.5)::numeric) */
    CHECK(fn(FN_LN, TN, 1, num("-2.5")), "ERROR: cannot take logarithm of a negative number");
    /* select log((1000)::numeric) */
    CHECK(fn(FN_LOG, TN, 1, num("1000")), "3.0000000000000000");
    /* select log((0.001)::numeric) */
    CHECK(fn(FN_LOG, TN, 1, num("0.001")), "-3.0000000000000000");
    /* select log((2)::numeric, (8)::numeric) */
    CHECK(fn(FN_LOG, TN, 2, num("2"), num("8")), "3.0000000000000000");
    /* select log((1.0001)::numeric, (3.14159265358979323846264338327950288)::numeric) => PostgreSQL: 11447.87121389798766668944413248539219526; 38 digits: the last fraction digits are rounded off */
    CHECK(fn(FN_LOG, TN, 2, num("1.0001"), num("3.14159265358979323846264338327950288")), "11447.871213897987666689444132485392195");
    /* select log((10)::numeric, (1)::numeric) */
    CHECK(fn(FN_LOG, TN, 2, num("10"), num("1")), "0.0000000000000000");
    /* select log((1)::numeric, (10)::numeric) */
    CHECK(fn(FN_LOG, TN, 2, num("1"), num("10")), "ERROR: division by zero");
    /* select log((0)::numeric, (10)::numeric) */
    CHECK(fn(FN_LOG, TN, 2, num("0"), num("10")), "ERROR: cannot take logarithm of zero");
    /* select log((10)::numeric, (-1)::numeric) */
    CHECK(fn(FN_LOG, TN, 2, num("10"), num("-1")), "ERROR: cannot take logarithm of a negative number");
    /* select log10((12345.678)::numeric) */
    CHECK(fn(FN_LOG10, TN, 1, num("12345.678")), "4.0915149455092013");
    /* select power((2)::numeric, (0.5)::numeric) */
    CHECK(fn(FN_POWER, TN, 2, num("2"), num("0.5")), "1.4142135623730950");
    /* select power((1.5)::numeric, (-3.75)::numeric) */
    CHECK(fn(FN_POWER, TN, 2, num("1.5"), num("-3.75")), "0.2186038359901870");
    /* select power((36.9325)::numeric, (22.672)::numeric) => PostgreSQL: 343787588588526401737597797192306024.3696; 38 digits: the last fraction digits are rounded off */
    CHECK(fn(FN_POWER, TN, 2, num("36.9325"), num("22.672")), "343787588588526401737597797192306024.37");
    /* select power((2)::numeric, (-200)::numeric) */
    CHECK(fn(FN_POWER, TN, 2, num("2"), num("-200")), "0.0000000000000000");
    /* select power((0)::numeric, (0.5)::numeric) */
    CHECK(fn(FN_POWER, TN, 2, num("0"), num("0.5")), "0.0000000000000000");
    /* select power((-1)::numeric, (4000000001)::numeric) */
    CHECK(fn(FN_POWER, TN, 2, num("-1"), num("4000000001")), "-1.0000000000000000");
    /* select div((-7)::numeric, (2)::numeric) */
    CHECK(fn(FN_DIV, TN, 2, num("-7"), num("2")), "-3");
    /* select div((7.9)::numeric, (-2)::numeric) */
    CHECK(fn(FN_DIV, TN, 2, num("7.9"), num("-2")), "-3");
    /* select div((1)::numeric, (0)::numeric) */
    CHECK(fn(FN_DIV, TN, 2, num("1"), num("0")), "ERROR: division by zero");
    /* select div((123456789012345678901234567.89)::numeric, (0.001)::numeric) */
    CHECK(fn(FN_DIV, TN, 2, num("123456789012345678901234567.89"), num("0.001")), "123456789012345678901234567890");
    /* select div((1e37)::numeric, (0.0000000000000000000000000000000000003)::numeric) => PostgreSQL: 33333333333333333333333333333333333333333333333333333333333333333333333333; weir's numeric holds 38 digits */
    CHECK(fn(FN_DIV, TN, 2, num("1e37"), num("0.0000000000000000000000000000000000003")), "ERROR: value overflows numeric format");
}

static void test_width_bucket_gcd(void **state)
{
    (void)state;
    /* select width_bucket('0.3'::float8, '0.0'::float8, '0.9'::float8, (3)::int4) */
    CHECK(fn(FN_WIDTH_BUCKET, TI4, 4, f8(0.3), f8(0.0), f8(0.9), i4(3)), "2");
    /* select width_bucket('0.7'::float8, '0.1'::float8, '1.0'::float8, (3)::int4) */
    CHECK(fn(FN_WIDTH_BUCKET, TI4, 4, f8(0.7), f8(0.1), f8(1.0), i4(3)), "3");
    /* select width_bucket('5.0'::float8, '10.0'::float8, '0.0'::float8, (4)::int4) */
    CHECK(fn(FN_WIDTH_BUCKET, TI4, 4, f8(5.0), f8(10.0), f8(0.0), i4(4)), "3");
    /* select width_bucket('11.0'::float8, '0.0'::float8, '10.0'::float8, (4)::int4) */
    CHECK(fn(FN_WIDTH_BUCKET, TI4, 4, f8(11.0), f8(0.0), f8(10.0), i4(4)), "5");
    /* select width_bucket('-1.0'::float8, '0.0'::float8, '10.0'::float8, (4)::int4) */
    CHECK(fn(FN_WIDTH_BUCKET, TI4, 4, f8(-1.0), f8(0.0), f8(10.0), i4(4)), "0");
    /* select width_bucket('0.9999999999999999'::float8, '-1e-16'::float8, '1.0'::float8, (10)::int4) */
    CHECK(fn(FN_WIDTH_BUCKET, TI4, 4, f8(0.9999999999999999), f8(-1e-16), f8(1.0), i4(10)), "11");
    /* select width_bucket('5.0'::float8, '-1e+308'::float8, '1.5e+308'::float8, (10)::int4) */
    CHECK(fn(FN_WIDTH_BUCKET, TI4, 4, f8(5.0), f8(-1e+308), f8(1.5e+308), i4(10)), "-2147483648");
    /* select width_bucket('5.0'::float8, '0.0'::float8, '10.0'::float8, (0)::int4) */
    CHECK(fn(FN_WIDTH_BUCKET, TI4, 4, f8(5.0), f8(0.0), f8(10.0), i4(0)), "ERROR: count must be greater than zero");
    /* select width_bucket('5.0'::float8, '5.0'::float8, '5.0'::float8, (3)::int4) */
    CHECK(fn(FN_WIDTH_BUCKET, TI4, 4, f8(5.0), f8(5.0), f8(5.0), i4(3)), "ERROR: lower bound cannot equal upper bound");
    /* select width_bucket('NaN'::float8, '5.0'::float8, '6.0'::float8, (3)::int4) */
    CHECK(fn(FN_WIDTH_BUCKET, TI4, 4, f8(NAN), f8(5.0), f8(6.0), i4(3)), "ERROR: operand, lower bound, and upper bound cannot be NaN");
    /* select width_bucket('5.0'::float8, '-Infinity'::float8, '6.0'::float8, (3)::int4) */
    CHECK(fn(FN_WIDTH_BUCKET, TI4, 4, f8(5.0), f8(-INFINITY), f8(6.0), i4(3)), "ERROR: lower and upper bounds must be finite");
    /* select width_bucket('Infinity'::float8, '5.0'::float8, '6.0'::float8, (3)::int4) */
    CHECK(fn(FN_WIDTH_BUCKET, TI4, 4, f8(INFINITY), f8(5.0), f8(6.0), i4(3)), "4");
    /* select width_bucket('11.0'::float8, '0.0'::float8, '10.0'::float8, (2147483647)::int4) */
    CHECK(fn(FN_WIDTH_BUCKET, TI4, 4, f8(11.0), f8(0.0), f8(10.0), i4(2147483647)), "ERROR: integer out of range");
    /* select width_bucket((5.5)::numeric, (0)::numeric, (10)::numeric, (4)::int4) */
    CHECK(fn(FN_WIDTH_BUCKET, TI4, 4, num("5.5"), num("0"), num("10"), i4(4)), "3");
    /* select width_bucket((5.5)::numeric, (10)::numeric, (0)::numeric, (4)::int4) */
    CHECK(fn(FN_WIDTH_BUCKET, TI4, 4, num("5.5"), num("10"), num("0"), i4(4)), "2");
    /* select width_bucket((3.3333333333333333333333)::numeric, (0)::numeric, (10.0)::numeric, (3)::int4) */
    CHECK(fn(FN_WIDTH_BUCKET, TI4, 4, num("3.3333333333333333333333"), num("0"), num("10.0"), i4(3)), "2");
    /* select width_bucket((2.9999999999999999999)::numeric, (0.0)::numeric, (3.0)::numeric, (3)::int4) */
    CHECK(fn(FN_WIDTH_BUCKET, TI4, 4, num("2.9999999999999999999"), num("0.0"), num("3.0"), i4(3)), "3");
    /* select width_bucket((10.1)::numeric, (0)::numeric, (10.0)::numeric, (2147483647)::int4) */
    CHECK(fn(FN_WIDTH_BUCKET, TI4, 4, num("10.1"), num("0"), num("10.0"), i4(2147483647)), "ERROR: integer out of range");
    /* select width_bucket((5.0)::numeric, (5)::numeric, (5)::numeric, (3)::int4) */
    CHECK(fn(FN_WIDTH_BUCKET, TI4, 4, num("5.0"), num("5"), num("5"), i4(3)), "ERROR: lower bound cannot equal upper bound");
    /* select width_bucket((5.0)::numeric, (0)::numeric, (10)::numeric, (-1)::int4) */
    CHECK(fn(FN_WIDTH_BUCKET, TI4, 4, num("5.0"), num("0"), num("10"), i4(-1)), "ERROR: count must be greater than zero");
    /* select gcd((12)::int4, (18)::int4) */
    CHECK(fn(FN_GCD, TI4, 2, i4(12), i4(18)), "6");
    /* select gcd((-12)::int4, (-18)::int4) */
    CHECK(fn(FN_GCD, TI4, 2, i4(-12), i4(-18)), "6");
    /* select gcd((0)::int4, (0)::int4) */
    CHECK(fn(FN_GCD, TI4, 2, i4(0), i4(0)), "0");
    /* select gcd((-2147483648)::int4, (0)::int4) */
    CHECK(fn(FN_GCD, TI4, 2, i4(-2147483648), i4(0)), "ERROR: integer out of range");
    /* select gcd((-2147483648)::int4, (-1)::int4) */
    CHECK(fn(FN_GCD, TI4, 2, i4(-2147483648), i4(-1)), "1");
    /* select gcd((-2147483648)::int4, (6)::int4) */
    CHECK(fn(FN_GCD, TI4, 2, i4(-2147483648), i4(6)), "2");
    /* select gcd((-9223372036854775808)::int8, (0)::int8) */
    CHECK(fn(FN_GCD, TI8, 2, i8(INT64_MIN), i8(INT64_C(0))), "ERROR: bigint out of range");
    /* select gcd((123456789012)::int8, (36)::int8) */
    CHECK(fn(FN_GCD, TI8, 2, i8(INT64_C(123456789012)), i8(INT64_C(36))), "12");
    /* select lcm((4)::int4, (6)::int4) */
    CHECK(fn(FN_LCM, TI4, 2, i4(4), i4(6)), "12");
    /* select lcm((-4)::int4, (6)::int4) */
    CHECK(fn(FN_LCM, TI4, 2, i4(-4), i4(6)), "12");
    /* select lcm((0)::int4, (5)::int4) */
    CHECK(fn(FN_LCM, TI4, 2, i4(0), i4(5)), "0");
    /* select lcm((65536)::int4, (65537)::int4) */
    CHECK(fn(FN_LCM, TI4, 2, i4(65536), i4(65537)), "ERROR: integer out of range");
    /* select lcm((3037000500)::int8, (3037000501)::int8) */
    CHECK(fn(FN_LCM, TI8, 2, i8(INT64_C(3037000500)), i8(INT64_C(3037000501))), "ERROR: bigint out of range");
    /* select gcd((-12.50)::numeric, (7.5)::numeric) */
    CHECK(fn(FN_GCD, TN, 2, num("-12.50"), num("7.5")), "2.50");
    /* select gcd((0.0)::numeric, (0)::numeric) */
    CHECK(fn(FN_GCD, TN, 2, num("0.0"), num("0")), "0.0");
    /* select lcm((-12.50)::numeric, (7.5)::numeric) */
    CHECK(fn(FN_LCM, TN, 2, num("-12.50"), num("7.5")), "37.50");
    /* select lcm((12345678901234567890)::numeric, (9876543210987654321)::numeric) */
    CHECK(fn(FN_LCM, TN, 2, num("12345678901234567890"), num("9876543210987654321")), "1354807012498094801236261410");
}

static void test_date_bin_make(void **state)
{
    (void)state;
    /* select date_bin(interval '15 minutes', timestamp '2020-02-11 15:44:17', timestamp '2001-01-01') */
    CHECK(fn(FN_DATE_BIN, TTS, 3, iv("15 minutes"), ts("2020-02-11 15:44:17"), ts("2001-01-01")), "2020-02-11 15:30:00");
    /* select date_bin(interval '15 minutes', timestamp '2020-02-11 15:44:17', timestamp '2001-01-01 00:02:30') */
    CHECK(fn(FN_DATE_BIN, TTS, 3, iv("15 minutes"), ts("2020-02-11 15:44:17"), ts("2001-01-01 00:02:30")), "2020-02-11 15:32:30");
    /* select date_bin(interval '15 minutes', timestamp '2020-02-11 15:44:17', timestamp '2030-01-01') */
    CHECK(fn(FN_DATE_BIN, TTS, 3, iv("15 minutes"), ts("2020-02-11 15:44:17"), ts("2030-01-01")), "2020-02-11 15:30:00");
    /* select date_bin(interval '15 minutes', timestamp '2020-02-11 15:45:00', timestamp '2030-01-01') */
    CHECK(fn(FN_DATE_BIN, TTS, 3, iv("15 minutes"), ts("2020-02-11 15:45:00"), ts("2030-01-01")), "2020-02-11 15:45:00");
    /* select date_bin(interval '1 day', timestamp '1969-12-31 23:00:00', timestamp '1970-01-01') */
    CHECK(fn(FN_DATE_BIN, TTS, 3, iv("1 day"), ts("1969-12-31 23:00:00"), ts("1970-01-01")), "1969-12-31 00:00:00");
    /* select date_bin(interval '2 days 3 hours', timestamp '2020-02-11 15:44:17', timestamp '2001-01-01') */
    CHECK(fn(FN_DATE_BIN, TTS, 3, iv("2 days 3 hours"), ts("2020-02-11 15:44:17"), ts("2001-01-01")), "2020-02-11 15:00:00");
    /* select date_bin(interval '1 month', timestamp '2020-02-11 15:44:17', timestamp '2001-01-01') */
    CHECK(fn(FN_DATE_BIN, TTS, 3, iv("1 month"), ts("2020-02-11 15:44:17"), ts("2001-01-01")), "ERROR: timestamps cannot be binned into intervals containing months or years");
    /* select date_bin(interval '0 days', timestamp '2020-02-11 15:44:17', timestamp '2001-01-01') */
    CHECK(fn(FN_DATE_BIN, TTS, 3, iv("0 days"), ts("2020-02-11 15:44:17"), ts("2001-01-01")), "ERROR: stride must be greater than zero");
    /* select date_bin(interval '-1 hour', timestamp '2020-02-11 15:44:17', timestamp '2001-01-01') */
    CHECK(fn(FN_DATE_BIN, TTS, 3, iv("-1 hour"), ts("2020-02-11 15:44:17"), ts("2001-01-01")), "ERROR: stride must be greater than zero");
    /* select date_bin(interval '1 hour', timestamp 'infinity', timestamp '2001-01-01') */
    CHECK(fn(FN_DATE_BIN, TTS, 3, iv("1 hour"), ts("infinity"), ts("2001-01-01")), "infinity");
    /* select date_bin(interval '1 hour', timestamp '2020-01-01', timestamp 'infinity') */
    CHECK(fn(FN_DATE_BIN, TTS, 3, iv("1 hour"), ts("2020-01-01"), ts("infinity")), "ERROR: origin out of range");
    /* select date_bin(interval '106751992 days', timestamp '2020-01-01', timestamp '2001-01-01') */
    CHECK(fn(FN_DATE_BIN, TTS, 3, iv("106751992 days"), ts("2020-01-01"), ts("2001-01-01")), "ERROR: interval out of range");
    /* select date_bin(interval '1 hour', timestamp '4714-11-24 00:30 BC', timestamp '2001-01-01') */
    CHECK(fn(FN_DATE_BIN, TTS, 3, iv("1 hour"), ts("4714-11-24 00:30 BC"), ts("2001-01-01")), "4714-11-24 00:00:00 BC");
    /* select date_bin(interval '1 hour', timestamptz '2020-02-11 15:44:17+00', timestamptz '2001-01-01 00:00:00+00') */
    CHECK(fn(FN_DATE_BIN, TTZ, 3, iv("1 hour"), tstz("2020-02-11 15:44:17+00"), tstz("2001-01-01 00:00:00+00")), "2020-02-11 15:00:00+00");
    /* select date_bin(NULL::interval, timestamp '2020-01-01', timestamp '2001-01-01') */
    CHECK(fn(FN_DATE_BIN, TTS, 3, nul(TIV), ts("2020-01-01"), ts("2001-01-01")), "NULL");
    /* select make_date((2024)::int4, (2)::int4, (29)::int4) */
    CHECK(fn(FN_MAKE_DATE, TD, 3, i4(2024), i4(2), i4(29)), "2024-02-29");
    /* select make_date((2023)::int4, (2)::int4, (29)::int4) */
    CHECK(fn(FN_MAKE_DATE, TD, 3, i4(2023), i4(2), i4(29)), "ERROR: date field value out of range: 2023-02-29");
    /* select make_date((-44)::int4, (3)::int4, (15)::int4) */
    CHECK(fn(FN_MAKE_DATE, TD, 3, i4(-44), i4(3), i4(15)), "0044-03-15 BC");
    /* select make_date((0)::int4, (3)::int4, (15)::int4) */
    CHECK(fn(FN_MAKE_DATE, TD, 3, i4(0), i4(3), i4(15)), "ERROR: date field value out of range: 0-03-15");
    /* select make_date((-44)::int4, (2)::int4, (30)::int4) */
    CHECK(fn(FN_MAKE_DATE, TD, 3, i4(-44), i4(2), i4(30)), "ERROR: date field value out of range: -43-02-30");
    /* select make_date((2024)::int4, (13)::int4, (1)::int4) */
    CHECK(fn(FN_MAKE_DATE, TD, 3, i4(2024), i4(13), i4(1)), "ERROR: date field value out of range: 2024-13-01");
    /* select make_date((5874897)::int4, (12)::int4, (31)::int4) */
    CHECK(fn(FN_MAKE_DATE, TD, 3, i4(5874897), i4(12), i4(31)), "5874897-12-31");
    /* select make_date((5874898)::int4, (1)::int4, (1)::int4) */
    CHECK(fn(FN_MAKE_DATE, TD, 3, i4(5874898), i4(1), i4(1)), "ERROR: date out of range: 5874898-01-01");
    /* select make_date((-4714)::int4, (11)::int4, (23)::int4) */
    CHECK(fn(FN_MAKE_DATE, TD, 3, i4(-4714), i4(11), i4(23)), "ERROR: date out of range: -4713-11-23");
    /* select make_date((-2147483648)::int4, (1)::int4, (1)::int4) */
    CHECK(fn(FN_MAKE_DATE, TD, 3, i4(-2147483648), i4(1), i4(1)), "ERROR: date field value out of range: -2147483648-01-01");
    /* select make_timestamp((2024)::int4, (2)::int4, (29)::int4, (12)::int4, (30)::int4, '45.123456789'::float8) */
    CHECK(fn(FN_MAKE_TIMESTAMP, TTS, 6, i4(2024), i4(2), i4(29), i4(12), i4(30), f8(45.123456789)), "2024-02-29 12:30:45.123457");
    /* select make_timestamp((2024)::int4, (2)::int4, (29)::int4, (24)::int4, (0)::int4, '0.0'::float8) */
    CHECK(fn(FN_MAKE_TIMESTAMP, TTS, 6, i4(2024), i4(2), i4(29), i4(24), i4(0), f8(0.0)), "2024-03-01 00:00:00");
    /* select make_timestamp((2024)::int4, (2)::int4, (29)::int4, (24)::int4, (0)::int4, '0.5'::float8) */
    CHECK(fn(FN_MAKE_TIMESTAMP, TTS, 6, i4(2024), i4(2), i4(29), i4(24), i4(0), f8(0.5)), "ERROR: time field value out of range: 24:00:0.5");
    /* select make_timestamp((2024)::int4, (2)::int4, (29)::int4, (23)::int4, (59)::int4, '60.0'::float8) */
    CHECK(fn(FN_MAKE_TIMESTAMP, TTS, 6, i4(2024), i4(2), i4(29), i4(23), i4(59), f8(60.0)), "2024-03-01 00:00:00");
    /* select make_timestamp((2024)::int4, (2)::int4, (29)::int4, (23)::int4, (60)::int4, '0.0'::float8) */
    CHECK(fn(FN_MAKE_TIMESTAMP, TTS, 6, i4(2024), i4(2), i4(29), i4(23), i4(60), f8(0.0)), "ERROR: time field value out of range: 23:60:00");
    /* select make_timestamp((2024)::int4, (2)::int4, (30)::int4, (1)::int4, (2)::int4, '3.0'::float8) */
    CHECK(fn(FN_MAKE_TIMESTAMP, TTS, 6, i4(2024), i4(2), i4(30), i4(1), i4(2), f8(3.0)), "ERROR: date field value out of range: 2024-02-30");
    /* select make_timestamp((-1)::int4, (2)::int4, (3)::int4, (1)::int4, (2)::int4, '3.0'::float8) */
    CHECK(fn(FN_MAKE_TIMESTAMP, TTS, 6, i4(-1), i4(2), i4(3), i4(1), i4(2), f8(3.0)), "0001-02-03 01:02:03 BC");
    /* select make_timestamp((2024)::int4, (1)::int4, (1)::int4, (1)::int4, (2)::int4, 'NaN'::float8) */
    CHECK(fn(FN_MAKE_TIMESTAMP, TTS, 6, i4(2024), i4(1), i4(1), i4(1), i4(2), f8(NAN)), "ERROR: time field value out of range: 1:02:NaN");
    /* select make_timestamp((2024)::int4, (1)::int4, (1)::int4, (1)::int4, (2)::int4, 'Infinity'::float8) */
    CHECK(fn(FN_MAKE_TIMESTAMP, TTS, 6, i4(2024), i4(1), i4(1), i4(1), i4(2), f8(INFINITY)), "ERROR: time field value out of range: 1:02:Infinity");
    /* select make_timestamp((2024)::int4, (1)::int4, (1)::int4, (1)::int4, (2)::int4, '75.25'::float8) */
    CHECK(fn(FN_MAKE_TIMESTAMP, TTS, 6, i4(2024), i4(1), i4(1), i4(1), i4(2), f8(75.25)), "ERROR: time field value out of range: 1:02:75.25");
    /* select make_timestamp((-4714)::int4, (11)::int4, (23)::int4, (0)::int4, (0)::int4, '0.0'::float8) */
    CHECK(fn(FN_MAKE_TIMESTAMP, TTS, 6, i4(-4714), i4(11), i4(23), i4(0), i4(0), f8(0.0)), "ERROR: timestamp out of range: -4714-11-23 0:00:00");
    /* select make_interval((1)::int4, (2)::int4, (3)::int4, (4)::int4, (5)::int4, (6)::int4, '7.5'::float8) */
    CHECK(fn(FN_MAKE_INTERVAL, TIV, 7, i4(1), i4(2), i4(3), i4(4), i4(5), i4(6), f8(7.5)), "1 year 2 mons 25 days 05:06:07.5");
    /* select make_interval() */
    CHECK(fn(FN_MAKE_INTERVAL, TIV, 0), "00:00:00");
    /* select make_interval((1)::int4) */
    CHECK(fn(FN_MAKE_INTERVAL, TIV, 1, i4(1)), "1 year");
    /* select make_interval((0)::int4, (0)::int4, (0)::int4, (0)::int4, (0)::int4, (0)::int4, '-1.0000005'::float8) */
    CHECK(fn(FN_MAKE_INTERVAL, TIV, 7, i4(0), i4(0), i4(0), i4(0), i4(0), i4(0), f8(-1.0000005)), "-00:00:01.000001");
    /* select make_interval((0)::int4, (0)::int4, (0)::int4, (0)::int4, (0)::int4, (0)::int4, 'Infinity'::float8) */
    CHECK(fn(FN_MAKE_INTERVAL, TIV, 7, i4(0), i4(0), i4(0), i4(0), i4(0), i4(0), f8(INFINITY)), "ERROR: interval out of range");
    /* select make_interval((200000000)::int4) */
    CHECK(fn(FN_MAKE_INTERVAL, TIV, 1, i4(200000000)), "-157913941 years -4 mons");
    /* select make_interval((0)::int4, (0)::int4, (0)::int4, (0)::int4, (0)::int4, (0)::int4, '1000000000000000.0'::float8) */
    CHECK(fn(FN_MAKE_INTERVAL, TIV, 7, i4(0), i4(0), i4(0), i4(0), i4(0), i4(0), f8(1000000000000000.0)), "-2562047788:00:54.775808");
    /* select make_interval((0)::int4, (0)::int4, (2147483647)::int4, (2147483647)::int4) */
    CHECK(fn(FN_MAKE_INTERVAL, TIV, 4, i4(0), i4(0), i4(2147483647), i4(2147483647)), "-8 days");
}

static void test_to_timestamp_epoch_age_justify(void **state)
{
    (void)state;
    /* select to_timestamp('0.0'::float8) */
    CHECK(fn(FN_TO_TIMESTAMP, TTZ, 1, f8(0.0)), "1970-01-01 00:00:00+00");
    /* select to_timestamp('1710506096.789'::float8) */
    CHECK(fn(FN_TO_TIMESTAMP, TTZ, 1, f8(1710506096.789)), "2024-03-15 12:34:56.789+00");
    /* select to_timestamp('1710506096.7895'::float8) */
    CHECK(fn(FN_TO_TIMESTAMP, TTZ, 1, f8(1710506096.7895)), "2024-03-15 12:34:56.7895+00");
    /* select to_timestamp('-1.5'::float8) */
    CHECK(fn(FN_TO_TIMESTAMP, TTZ, 1, f8(-1.5)), "1969-12-31 23:59:58.5+00");
    /* select to_timestamp('1.0000005'::float8) */
    CHECK(fn(FN_TO_TIMESTAMP, TTZ, 1, f8(1.0000005)), "1970-01-01 00:00:01+00");
    /* select to_timestamp('1e+20'::float8) */
    CHECK(fn(FN_TO_TIMESTAMP, TTZ, 1, f8(1e+20)), "ERROR: timestamp out of range: \"1e+20\"");
    /* select to_timestamp('NaN'::float8) */
    CHECK(fn(FN_TO_TIMESTAMP, TTZ, 1, f8(NAN)), "ERROR: timestamp cannot be NaN");
    /* select to_timestamp('Infinity'::float8) */
    CHECK(fn(FN_TO_TIMESTAMP, TTZ, 1, f8(INFINITY)), "infinity");
    /* select to_timestamp('-210866803200.0'::float8) */
    CHECK(fn(FN_TO_TIMESTAMP, TTZ, 1, f8(-210866803200.0)), "4714-11-24 00:00:00+00 BC");
    /* select to_timestamp('-210866803201.0'::float8) */
    CHECK(fn(FN_TO_TIMESTAMP, TTZ, 1, f8(-210866803201.0)), "ERROR: timestamp out of range: \"-2.10867e+11\"");
    /* select age(timestamp '2024-03-15 10:00', timestamp '2023-01-31 12:30') */
    CHECK(fn(FN_AGE, TIV, 2, ts("2024-03-15 10:00"), ts("2023-01-31 12:30")), "1 year 1 mon 14 days 21:30:00");
    /* select age(timestamp '2023-01-31 12:30', timestamp '2024-03-15 10:00') */
    CHECK(fn(FN_AGE, TIV, 2, ts("2023-01-31 12:30"), ts("2024-03-15 10:00")), "-1 years -1 mons -14 days -21:30:00");
    /* select age(timestamp '2024-02-29', timestamp '2023-02-28') */
    CHECK(fn(FN_AGE, TIV, 2, ts("2024-02-29"), ts("2023-02-28")), "1 year 1 day");
    /* select age(timestamp '2024-03-01', timestamp '2024-01-31') */
    CHECK(fn(FN_AGE, TIV, 2, ts("2024-03-01"), ts("2024-01-31")), "1 mon 1 day");
    /* select age(timestamp '2024-01-31', timestamp '2024-03-01') */
    CHECK(fn(FN_AGE, TIV, 2, ts("2024-01-31"), ts("2024-03-01")), "-1 mons -1 days");
    /* select age(timestamp '2020-02-29 00:00:01', timestamp '2021-03-31 00:00:00') */
    CHECK(fn(FN_AGE, TIV, 2, ts("2020-02-29 00:00:01"), ts("2021-03-31 00:00:00")), "-1 years -1 mons -1 days -23:59:59");
    /* select age(timestamp '2024-03-15 10:00:00.5', timestamp '2024-03-15 10:00:01') */
    CHECK(fn(FN_AGE, TIV, 2, ts("2024-03-15 10:00:00.5"), ts("2024-03-15 10:00:01")), "-00:00:00.5");
    /* select age(timestamp '0010-03-15 BC', timestamp '2020-01-01') */
    CHECK(fn(FN_AGE, TIV, 2, ts("0010-03-15 BC"), ts("2020-01-01")), "-2028 years -9 mons -17 days");
    /* select age(timestamp 'infinity', timestamp '2020-01-01') */
    CHECK(fn(FN_AGE, TIV, 2, ts("infinity"), ts("2020-01-01")), "292257 years 8 days 04:00:54.775807");
    /* select age(timestamp '-infinity', timestamp '2020-01-01') */
    CHECK(fn(FN_AGE, TIV, 2, ts("-infinity"), ts("2020-01-01")), "ERROR: timestamp out of range");
    /* select age(timestamptz '2024-03-15 10:00+00', timestamptz '2023-01-31 12:30+00') */
    CHECK(fn(FN_AGE, TIV, 2, tstz("2024-03-15 10:00+00"), tstz("2023-01-31 12:30+00")), "1 year 1 mon 14 days 21:30:00");
    /* select justify_days(interval '35 days') */
    CHECK(fn(FN_JUSTIFY_DAYS, TIV, 1, iv("35 days")), "1 mon 5 days");
    /* select justify_days(interval '-35 days') */
    CHECK(fn(FN_JUSTIFY_DAYS, TIV, 1, iv("-35 days")), "-1 mons -5 days");
    /* select justify_days(interval '1 mon -1 day') */
    CHECK(fn(FN_JUSTIFY_DAYS, TIV, 1, iv("1 mon -1 day")), "29 days");
    /* select justify_days(interval '-1 mon 1 day 5 hours') */
    CHECK(fn(FN_JUSTIFY_DAYS, TIV, 1, iv("-1 mon 1 day 5 hours")), "-29 days +05:00:00");
    /* select justify_days(interval '2147483647 mons 30 days') */
    CHECK(fn(FN_JUSTIFY_DAYS, TIV, 1, iv("2147483647 mons 30 days")), "ERROR: interval out of range");
    /* select justify_hours(interval '27 hours') */
    CHECK(fn(FN_JUSTIFY_HOURS, TIV, 1, iv("27 hours")), "1 day 03:00:00");
    /* select justify_hours(interval '-27 hours') */
    CHECK(fn(FN_JUSTIFY_HOURS, TIV, 1, iv("-27 hours")), "-1 days -03:00:00");
    /* select justify_hours(interval '1 day -1 hour') */
    CHECK(fn(FN_JUSTIFY_HOURS, TIV, 1, iv("1 day -1 hour")), "23:00:00");
    /* select justify_hours(interval '2147483647 days 24 hours') */
    CHECK(fn(FN_JUSTIFY_HOURS, TIV, 1, iv("2147483647 days 24 hours")), "ERROR: interval out of range");
    /* select justify_interval(interval '1 mon -1 hour') */
    CHECK(fn(FN_JUSTIFY_INTERVAL, TIV, 1, iv("1 mon -1 hour")), "29 days 23:00:00");
    /* select justify_interval(interval '-1 mon 1 hour') */
    CHECK(fn(FN_JUSTIFY_INTERVAL, TIV, 1, iv("-1 mon 1 hour")), "-29 days -23:00:00");
    /* select justify_interval(interval '35 days 27 hours') */
    CHECK(fn(FN_JUSTIFY_INTERVAL, TIV, 1, iv("35 days 27 hours")), "1 mon 6 days 03:00:00");
    /* select justify_interval(interval '2147483647 days 24 hrs') */
    CHECK(fn(FN_JUSTIFY_INTERVAL, TIV, 1, iv("2147483647 days 24 hrs")), "5965232 years 4 mons 8 days");
    /* select isfinite(date '2020-01-01') */
    CHECK(fn(FN_ISFINITE, TB, 1, dt("2020-01-01")), "t");
    /* select isfinite(date 'infinity') */
    CHECK(fn(FN_ISFINITE, TB, 1, dt("infinity")), "f");
    /* select isfinite(timestamp '-infinity') */
    CHECK(fn(FN_ISFINITE, TB, 1, ts("-infinity")), "f");
    /* select isfinite(interval '1 day') */
    CHECK(fn(FN_ISFINITE, TB, 1, iv("1 day")), "t");
    /* select isfinite(NULL::date) */
    CHECK(fn(FN_ISFINITE, TB, 1, nul(TD)), "NULL");
}

static void test_to_char_datetime(void **state)
{
    (void)state;
    /* select to_char(timestamp '2024-03-15 12:34:56.789', 'YYYY-MM-DD HH24:MI:SS.MS') */
    CHECK(fn(FN_TO_CHAR, TT, 2, ts("2024-03-15 12:34:56.789"), txt("YYYY-MM-DD HH24:MI:SS.MS")), "2024-03-15 12:34:56.789");
    /* select to_char(timestamp '2024-03-15 12:34:56.789', 'YYYY YYY YY Y IYYY IYY IY I') */
    CHECK(fn(FN_TO_CHAR, TT, 2, ts("2024-03-15 12:34:56.789"), txt("YYYY YYY YY Y IYYY IYY IY I")), "2024 024 24 4 2024 024 24 4");
    /* select to_char(timestamp '2024-03-15 12:34:56.789', 'Mon MON mon Month MONTH month|') */
    CHECK(fn(FN_TO_CHAR, TT, 2, ts("2024-03-15 12:34:56.789"), txt("Mon MON mon Month MONTH month|")), "Mar MAR mar March     MARCH     march    |");
    /* select to_char(timestamp '2024-03-15 12:34:56.789', 'FMMonth FMDay FMDD FMHH12') */
    CHECK(fn(FN_TO_CHAR, TT, 2, ts("2024-03-15 12:34:56.789"), txt("FMMonth FMDay FMDD FMHH12")), "March Friday 15 12");
    /* select to_char(timestamp '2024-03-15 12:34:56.789', 'DD DDD D ID Dy DY dy Day DAY day|') */
    CHECK(fn(FN_TO_CHAR, TT, 2, ts("2024-03-15 12:34:56.789"), txt("DD DDD D ID Dy DY dy Day DAY day|")), "15 075 6 5 Fri FRI fri Friday    FRIDAY    friday   |");
    /* select to_char(timestamp '2024-03-15 00:34:56.789', 'HH HH12 HH24 AM PM am pm A.M. P.M.') */
    CHECK(fn(FN_TO_CHAR, TT, 2, ts("2024-03-15 00:34:56.789"), txt("HH HH12 HH24 AM PM am pm A.M. P.M.")), "12 12 00 AM AM am am A.M. A.M.");
    /* select to_char(timestamp '2024-03-15 12:34:56.789', 'HH12 a.m. p.m.') */
    CHECK(fn(FN_TO_CHAR, TT, 2, ts("2024-03-15 12:34:56.789"), txt("HH12 a.m. p.m.")), "12 p.m. p.m.");
    /* select to_char(timestamp '2024-03-05 13:04:05.000789', 'MS US FF1 FF2 FF3 FF4 FF5 FF6 SSSS SSSSS') */
    CHECK(fn(FN_TO_CHAR, TT, 2, ts("2024-03-05 13:04:05.000789"), txt("MS US FF1 FF2 FF3 FF4 FF5 FF6 SSSS SSSSS")), "000 000789 0 00 000 0007 00078 000789 47045 47045");
    /* select to_char(timestamp '2024-03-15 12:34:56', 'Q WW IW J W CC RM rm') */
    CHECK(fn(FN_TO_CHAR, TT, 2, ts("2024-03-15 12:34:56"), txt("Q WW IW J W CC RM rm")), "1 11 11 2460385 3 21 III  iii ");
    /* select to_char(timestamp '2024-03-15 12:34:56', 'DDth DDTH FMDDth MMth HH24th 1st') */
    CHECK(fn(FN_TO_CHAR, TT, 2, ts("2024-03-15 12:34:56"), txt("DDth DDTH FMDDth MMth HH24th 1st")), "15th 15TH 15th 03rd 12th 1st");
    /* select to_char(timestamp '2021-01-03 00:00:00', 'IYYY-IW-ID IDDD WW W DDD') */
    CHECK(fn(FN_TO_CHAR, TT, 2, ts("2021-01-03 00:00:00"), txt("IYYY-IW-ID IDDD WW W DDD")), "2020-53-7 371 01 1 003");
    /* select to_char(timestamp '2024-12-30 00:00:00', 'IYYY IW ID') */
    CHECK(fn(FN_TO_CHAR, TT, 2, ts("2024-12-30 00:00:00"), txt("IYYY IW ID")), "2025 01 1");
    /* select to_char(timestamp '0044-03-15 12:00:00 BC', 'YYYY Y,YYY CC BC AD B.C. a.d. J') */
    CHECK(fn(FN_TO_CHAR, TT, 2, ts("0044-03-15 12:00:00 BC"), txt("YYYY Y,YYY CC BC AD B.C. a.d. J")), "0044 0,044 -01 BC BC B.C. b.c. 1705428");
    /* select to_char(timestamp '12345-01-01 00:00:00', 'YYYY Y,YYY CC') */
    CHECK(fn(FN_TO_CHAR, TT, 2, ts("12345-01-01 00:00:00"), txt("YYYY Y,YYY CC")), "12345 12,345 124");
    /* select to_char(timestamp '2024-03-05 13:04:05', E'Today is Day, "quoted Day" \\"esc\\" back\\slash') */
    CHECK(fn(FN_TO_CHAR, TT, 2, ts("2024-03-05 13:04:05"), txt("Today is Day, \"quoted Day\" \\\"esc\\\" back\\slash")), "Totuesday   4s Tuesday  , quoted Day \"esc\" back\\slash");
    /* select to_char(timestamp '2024-03-05 13:04:05', 'TZ tz TZH:TZM OF') */
    CHECK(fn(FN_TO_CHAR, TT, 2, ts("2024-03-05 13:04:05"), txt("TZ tz TZH:TZM OF")), "  +00:00 +00");
    /* select to_char(timestamptz '2024-03-05 13:04:05+00', 'TZ tz TZH:TZM OF FMOF') */
    CHECK(fn(FN_TO_CHAR, TT, 2, tstz("2024-03-05 13:04:05+00"), txt("TZ tz TZH:TZM OF FMOF")), "UTC utc +00:00 +00 +0");
    /* select to_char(timestamp '2024-03-05 13:04:05', 'TMDay TMMonth TMMON é日本 YYYY') */
    CHECK(fn(FN_TO_CHAR, TT, 2, ts("2024-03-05 13:04:05"), txt("TMDay TMMonth TMMON é日本 YYYY")), "Tuesday March MAR é日本 2024");
    /* select to_char(timestamp '2024-03-05 13:04:05', '') */
    CHECK(fn(FN_TO_CHAR, TT, 2, ts("2024-03-05 13:04:05"), txt("")), "NULL");
    /* select to_char(timestamp 'infinity', 'YYYY') */
    CHECK(fn(FN_TO_CHAR, TT, 2, ts("infinity"), txt("YYYY")), "NULL");
    /* select to_char(NULL::timestamp, 'YYYY') */
    CHECK(fn(FN_TO_CHAR, TT, 2, nul(TTS), txt("YYYY")), "NULL");
    /* select to_char(interval '1 year 2 mons 3 days 04:05:06.789', 'YYYY MM DD DDD HH HH12 HH24 MI SS MS US SSSS J W WW Q RM') */
    CHECK(fn(FN_TO_CHAR, TT, 2, iv("1 year 2 mons 3 days 04:05:06.789"), txt("YYYY MM DD DDD HH HH12 HH24 MI SS MS US SSSS J W WW Q RM")), "0001 02 03 423 04 04 04 05 06 789 789000 14706 1721459 1 61 1 II  ");
    /* select to_char(interval '-1 year -2 mons -3 days -04:05:06.789', 'YYYY Y,YYY YYY YY Y CC MM DD DDD HH24 MI SS MS') */
    CHECK(fn(FN_TO_CHAR, TT, 2, iv("-1 year -2 mons -3 days -04:05:06.789"), txt("YYYY Y,YYY YYY YY Y CC MM DD DDD HH24 MI SS MS")), "-0001 0,-01 -001 -01 -1 00 -02 -3 -423 -04 -05 -06 -789");
    /* select to_char(interval '100 hours 3 minutes', 'HH24:MI:SS HH12') */
    CHECK(fn(FN_TO_CHAR, TT, 2, iv("100 hours 3 minutes"), txt("HH24:MI:SS HH12")), "100:03:00 04");
    /* select to_char(interval '1 year 2 mons', 'Month') */
    CHECK(fn(FN_TO_CHAR, TT, 2, iv("1 year 2 mons"), txt("Month")), "ERROR: invalid format specification for an interval value");
    /* select to_char(interval '1 year 2 mons', 'D') */
    CHECK(fn(FN_TO_CHAR, TT, 2, iv("1 year 2 mons"), txt("D")), "ERROR: invalid format specification for an interval value");
    /* select to_char(interval '-12 mons', 'RM') */
    CHECK(fn(FN_TO_CHAR, TT, 2, iv("-12 mons"), txt("RM")), "I   ");
    /* select to_char(interval '0', 'YYYY-MM-DD RM Q') */
    CHECK(fn(FN_TO_CHAR, TT, 2, iv("0"), txt("YYYY-MM-DD RM Q")), "0000-00-00  ");
}

static void test_to_char_number(void **state)
{
    (void)state;
    /* select to_char((1234.5678)::numeric, '9999.99') */
    CHECK(fn(FN_TO_CHAR, TT, 2, num("1234.5678"), txt("9999.99")), " 1234.57");
    /* select to_char((-1234.5678)::numeric, '9,999.99') */
    CHECK(fn(FN_TO_CHAR, TT, 2, num("-1234.5678"), txt("9,999.99")), "-1,234.57");
    /* select to_char((0.5)::numeric, '9.99') */
    CHECK(fn(FN_TO_CHAR, TT, 2, num("0.5"), txt("9.99")), "  .50");
    /* select to_char((0.5)::numeric, '0.99') */
    CHECK(fn(FN_TO_CHAR, TT, 2, num("0.5"), txt("0.99")), " 0.50");
    /* select to_char((-0.004)::numeric, '9.99') */
    CHECK(fn(FN_TO_CHAR, TT, 2, num("-0.004"), txt("9.99")), "  .00");
    /* select to_char((12345)::numeric, '999') */
    CHECK(fn(FN_TO_CHAR, TT, 2, num("12345"), txt("999")), " ###");
    /* select to_char((12.3)::numeric, 'FM999.999') */
    CHECK(fn(FN_TO_CHAR, TT, 2, num("12.3"), txt("FM999.999")), "12.3");
    /* select to_char((12.3)::numeric, 'FM999.900') */
    CHECK(fn(FN_TO_CHAR, TT, 2, num("12.3"), txt("FM999.900")), "12.300");
    /* select to_char((12)::numeric, 'FM999.') */
    CHECK(fn(FN_TO_CHAR, TT, 2, num("12"), txt("FM999.")), "12");
    /* select to_char((-12.3)::numeric, 'S999.9') */
    CHECK(fn(FN_TO_CHAR, TT, 2, num("-12.3"), txt("S999.9")), " -12.3");
    /* select to_char((12.3)::numeric, '999.9S') */
    CHECK(fn(FN_TO_CHAR, TT, 2, num("12.3"), txt("999.9S")), " 12.3+");
    /* select to_char((-12.3)::numeric, '999.9MI') */
    CHECK(fn(FN_TO_CHAR, TT, 2, num("-12.3"), txt("999.9MI")), " 12.3-");
    /* select to_char((12.3)::numeric, 'PL999.9') */
    CHECK(fn(FN_TO_CHAR, TT, 2, num("12.3"), txt("PL999.9")), "+  12.3");
    /* select to_char((-12.3)::numeric, 'SG999.9') */
    CHECK(fn(FN_TO_CHAR, TT, 2, num("-12.3"), txt("SG999.9")), "- 12.3");
    /* select to_char((-12.3)::numeric, '999.9PR') */
    CHECK(fn(FN_TO_CHAR, TT, 2, num("-12.3"), txt("999.9PR")), " <12.3>");
    /* select to_char((1234567.891)::numeric, '9G999G999D99') */
    CHECK(fn(FN_TO_CHAR, TT, 2, num("1234567.891"), txt("9G999G999D99")), " 1,234,567.89");
    /* select to_char((12.3456)::numeric, '99V999') */
    CHECK(fn(FN_TO_CHAR, TT, 2, num("12.3456"), txt("99V999")), " 12346");
    /* select to_char((123.456)::numeric, '9.99EEEE') */
    CHECK(fn(FN_TO_CHAR, TT, 2, num("123.456"), txt("9.99EEEE")), " 1.23e+02");
    /* select to_char((9.999)::numeric, '9.99EEEE') */
    CHECK(fn(FN_TO_CHAR, TT, 2, num("9.999"), txt("9.99EEEE")), " 10.00e+00");
    /* select to_char((1234567890123456789012345678.1234567890)::numeric, '9.999999EEEE') */
    CHECK(fn(FN_TO_CHAR, TT, 2, num("1234567890123456789012345678.1234567890"), txt("9.999999EEEE")), " 1.234568e+27");
    /* select to_char((1994)::numeric, 'RN') */
    CHECK(fn(FN_TO_CHAR, TT, 2, num("1994"), txt("RN")), "        MCMXCIV");
    /* select to_char((2147483647.5)::numeric, 'RN') */
    CHECK(fn(FN_TO_CHAR, TT, 2, num("2147483647.5"), txt("RN")), "ERROR: integer out of range");
    /* select to_char((0)::numeric, '00000') */
    CHECK(fn(FN_TO_CHAR, TT, 2, num("0"), txt("00000")), " 00000");
    /* select to_char((21)::numeric, '999TH') */
    CHECK(fn(FN_TO_CHAR, TT, 2, num("21"), txt("999TH")), "  21ST");
    /* select to_char((1)::numeric, 'L9 "dollars"') */
    CHECK(fn(FN_TO_CHAR, TT, 2, num("1"), txt("L9 \"dollars\"")), "  1 dollars");
    /* select to_char((1.5)::numeric, '9.99.99') */
    CHECK(fn(FN_TO_CHAR, TT, 2, num("1.5"), txt("9.99.99")), "ERROR: multiple decimal points");
    /* select to_char((1.5)::numeric, '99PR9') */
    CHECK(fn(FN_TO_CHAR, TT, 2, num("1.5"), txt("99PR9")), "ERROR: \"9\" must be ahead of \"PR\"");
    /* select to_char((1.5)::numeric, 'S99S') */
    CHECK(fn(FN_TO_CHAR, TT, 2, num("1.5"), txt("S99S")), "ERROR: cannot use \"S\" twice");
    /* select to_char((1.5)::numeric, '9.9EEEE9') */
    CHECK(fn(FN_TO_CHAR, TT, 2, num("1.5"), txt("9.9EEEE9")), "ERROR: \"EEEE\" must be the last pattern used");
    /* select to_char((1.5)::numeric, '') */
    CHECK(fn(FN_TO_CHAR, TT, 2, num("1.5"), txt("")), "");
    /* select to_char((1994)::int4, 'FMRN') */
    CHECK(fn(FN_TO_CHAR, TT, 2, i4(1994), txt("FMRN")), "MCMXCIV");
    /* select to_char((4000)::int4, 'RN') */
    CHECK(fn(FN_TO_CHAR, TT, 2, i4(4000), txt("RN")), "###############");
    /* select to_char((-42)::int4, '00000') */
    CHECK(fn(FN_TO_CHAR, TT, 2, i4(-42), txt("00000")), "-00042");
    /* select to_char((12)::int4, '99.99') */
    CHECK(fn(FN_TO_CHAR, TT, 2, i4(12), txt("99.99")), " 12.00");
    /* select to_char((2147483647)::int4, '99V9999999999') */
    CHECK(fn(FN_TO_CHAR, TT, 2, i4(2147483647), txt("99V9999999999")), "  -2147483648");
    /* select to_char((12345)::int4, '9.99EEEE') */
    CHECK(fn(FN_TO_CHAR, TT, 2, i4(12345), txt("9.99EEEE")), " 1.23e+04");
    /* select to_char((5)::int4, 'RNSG') */
    CHECK(fn(FN_TO_CHAR, TT, 2, i4(5), txt("RNSG")), "              V");
    /* select to_char((-9223372036854775808)::int8, '99999999999999999999') */
    CHECK(fn(FN_TO_CHAR, TT, 2, i8(INT64_MIN), txt("99999999999999999999")), " -9223372036854775808");
    /* select to_char((123456789012)::int8, '999V999') */
    CHECK(fn(FN_TO_CHAR, TT, 2, i8(INT64_C(123456789012)), txt("999V999")), " ######");
    /* select to_char((9223372036854775807)::int8, '9V9') */
    CHECK(fn(FN_TO_CHAR, TT, 2, i8(INT64_C(9223372036854775807)), txt("9V9")), "ERROR: bigint out of range");
    /* select to_char('1.5'::float8, '9.9999') */
    CHECK(fn(FN_TO_CHAR, TT, 2, f8(1.5), txt("9.9999")), " 1.5000");
    /* select to_char('2.5'::float8, '9') */
    CHECK(fn(FN_TO_CHAR, TT, 2, f8(2.5), txt("9")), " 2");
    /* select to_char('-0.0'::float8, '9') */
    CHECK(fn(FN_TO_CHAR, TT, 2, f8(-0.0), txt("9")), "-0");
    /* select to_char('1.5'::float8, '9.99999999999999999') */
    CHECK(fn(FN_TO_CHAR, TT, 2, f8(1.5), txt("9.99999999999999999")), " 1.50000000000000");
    /* select to_char('NaN'::float8, '999') */
    CHECK(fn(FN_TO_CHAR, TT, 2, f8(NAN), txt("999")), " NaN");
    /* select to_char('Infinity'::float8, '9.99EEEE') */
    CHECK(fn(FN_TO_CHAR, TT, 2, f8(INFINITY), txt("9.99EEEE")), " #.######");
    /* select to_char('1234.5'::float8, '9.999EEEE') */
    CHECK(fn(FN_TO_CHAR, TT, 2, f8(1234.5), txt("9.999EEEE")), " 1.234e+03");
    /* select to_char('10000000000.0'::float8, 'RN') */
    CHECK(fn(FN_TO_CHAR, TT, 2, f8(10000000000.0), txt("RN")), "###############");
    /* select to_char('NaN'::float8, '9th') */
    CHECK(fn(FN_TO_CHAR, TT, 2, f8(NAN), txt("9th")), " #");
    /* select to_char('1.5'::float4, '9.9999999') */
    CHECK(fn(FN_TO_CHAR, TT, 2, f4(1.5), txt("9.9999999")), " 1.50000");
    /* select to_char(NULL::numeric, '999') */
    CHECK(fn(FN_TO_CHAR, TT, 2, nul(TN), txt("999")), "NULL");
}

static void test_to_timestamp_to_date(void **state)
{
    (void)state;
    /* select to_timestamp('2024-03-05 13:04:05.123456', 'YYYY-MM-DD HH24:MI:SS.US') */
    CHECK(fn(FN_TO_TIMESTAMP, TTZ, 2, txt("2024-03-05 13:04:05.123456"), txt("YYYY-MM-DD HH24:MI:SS.US")), "2024-03-05 13:04:05.123456+00");
    /* select to_timestamp('05 Dec 2000', 'DD Mon YYYY') */
    CHECK(fn(FN_TO_TIMESTAMP, TTZ, 2, txt("05 Dec 2000"), txt("DD Mon YYYY")), "2000-12-05 00:00:00+00");
    /* select to_timestamp('12:30', 'HH24:MI') */
    CHECK(fn(FN_TO_TIMESTAMP, TTZ, 2, txt("12:30"), txt("HH24:MI")), "0001-01-01 12:30:00+00 BC");
    /* select to_timestamp('2024-03-05 10:00 -05:30', 'YYYY-MM-DD HH24:MI TZH:TZM') */
    CHECK(fn(FN_TO_TIMESTAMP, TTZ, 2, txt("2024-03-05 10:00 -05:30"), txt("YYYY-MM-DD HH24:MI TZH:TZM")), "2024-03-05 15:30:00+00");
    /* select to_timestamp('2024-03-05 10:00-05', 'YYYY-MM-DD HH24:MITZH') */
    CHECK(fn(FN_TO_TIMESTAMP, TTZ, 2, txt("2024-03-05 10:00-05"), txt("YYYY-MM-DD HH24:MITZH")), "2024-03-05 15:00:00+00");
    /* select to_timestamp('2024-03-05 10:00 +16', 'YYYY-MM-DD HH24:MI TZH') */
    CHECK(fn(FN_TO_TIMESTAMP, TTZ, 2, txt("2024-03-05 10:00 +16"), txt("YYYY-MM-DD HH24:MI TZH")), "ERROR: time zone displacement out of range: \"2024-03-05 10:00 +16\"");
    /* select to_timestamp('1999-03-05 13:04:05.1225', 'YYYY-MM-DD HH24:MI:SS.FF3') */
    CHECK(fn(FN_TO_TIMESTAMP, TTZ, 2, txt("1999-03-05 13:04:05.1225"), txt("YYYY-MM-DD HH24:MI:SS.FF3")), "1999-03-05 13:04:05.122+00");
    /* select to_timestamp('2024-03-05 13:04:05.1225', 'YYYY-MM-DD HH24:MI:SS.FF3') */
    CHECK(fn(FN_TO_TIMESTAMP, TTZ, 2, txt("2024-03-05 13:04:05.1225"), txt("YYYY-MM-DD HH24:MI:SS.FF3")), "2024-03-05 13:04:05.123+00");
    /* select to_timestamp('2024-03-05 12:00 AM', 'YYYY-MM-DD HH12:MI AM') */
    CHECK(fn(FN_TO_TIMESTAMP, TTZ, 2, txt("2024-03-05 12:00 AM"), txt("YYYY-MM-DD HH12:MI AM")), "2024-03-05 00:00:00+00");
    /* select to_timestamp('2024-03-05 13:00 PM', 'YYYY-MM-DD HH:MI PM') */
    CHECK(fn(FN_TO_TIMESTAMP, TTZ, 2, txt("2024-03-05 13:00 PM"), txt("YYYY-MM-DD HH:MI PM")), "ERROR: hour \"13\" is invalid for the 12-hour clock");
    /* select to_timestamp('2024-03-05 10:00 XM', 'YYYY-MM-DD HH12:MI AM') */
    CHECK(fn(FN_TO_TIMESTAMP, TTZ, 2, txt("2024-03-05 10:00 XM"), txt("YYYY-MM-DD HH12:MI AM")), "ERROR: invalid value \"XM\" for \"AM\"");
    /* select to_timestamp('2024 47045', 'YYYY SSSSS') */
    CHECK(fn(FN_TO_TIMESTAMP, TTZ, 2, txt("2024 47045"), txt("YYYY SSSSS")), "2024-01-01 13:04:05+00");
    /* select to_timestamp('2024-03-05 10:00:00 UTC', 'YYYY-MM-DD HH24:MI:SS TZ') */
    CHECK(fn(FN_TO_TIMESTAMP, TTZ, 2, txt("2024-03-05 10:00:00 UTC"), txt("YYYY-MM-DD HH24:MI:SS TZ")), "ERROR: formatting field \"TZ\" is only supported in to_char");
    /* select to_timestamp('', 'YYYY') */
    CHECK(fn(FN_TO_TIMESTAMP, TTZ, 2, txt(""), txt("YYYY")), "0001-01-01 00:00:00+00 BC");
    /* select to_timestamp('2024', NULL::text) */
    CHECK(fn(FN_TO_TIMESTAMP, TTZ, 2, txt("2024"), nul(TT)), "NULL");
    /* select to_date('2024-03-05', 'YYYY-MM-DD') */
    CHECK(fn(FN_TO_DATE, TD, 2, txt("2024-03-05"), txt("YYYY-MM-DD")), "2024-03-05");
    /* select to_date('20240305', 'YYYYMMDD') */
    CHECK(fn(FN_TO_DATE, TD, 2, txt("20240305"), txt("YYYYMMDD")), "2024-03-05");
    /* select to_date('5.3.24', 'DD.MM.YY') */
    CHECK(fn(FN_TO_DATE, TD, 2, txt("5.3.24"), txt("DD.MM.YY")), "2024-03-05");
    /* select to_date('March 5, 2024', 'Month DD, YYYY') */
    CHECK(fn(FN_TO_DATE, TD, 2, txt("March 5, 2024"), txt("Month DD, YYYY")), "2024-03-05");
    /* select to_date('2024 065', 'YYYY DDD') */
    CHECK(fn(FN_TO_DATE, TD, 2, txt("2024 065"), txt("YYYY DDD")), "2024-03-05");
    /* select to_date('2024 10 3', 'IYYY IW ID') */
    CHECK(fn(FN_TO_DATE, TD, 2, txt("2024 10 3"), txt("IYYY IW ID")), "2024-03-06");
    /* select to_date('2024-10-3', 'YYYY-IW-ID') */
    CHECK(fn(FN_TO_DATE, TD, 2, txt("2024-10-3"), txt("YYYY-IW-ID")), "ERROR: invalid combination of date conventions");
    /* select to_date('21 24', 'CC YY') */
    CHECK(fn(FN_TO_DATE, TD, 2, txt("21 24"), txt("CC YY")), "2024-01-01");
    /* select to_date('2460375', 'J') */
    CHECK(fn(FN_TO_DATE, TD, 2, txt("2460375"), txt("J")), "2024-03-05");
    /* select to_date('44 BC', 'YYYY BC') */
    CHECK(fn(FN_TO_DATE, TD, 2, txt("44 BC"), txt("YYYY BC")), "0044-01-01 BC");
    /* select to_date('2024-02-30', 'YYYY-MM-DD') */
    CHECK(fn(FN_TO_DATE, TD, 2, txt("2024-02-30"), txt("YYYY-MM-DD")), "ERROR: date/time field value out of range: \"2024-02-30\"");
    /* select to_date('x2024', 'YYYY') */
    CHECK(fn(FN_TO_DATE, TD, 2, txt("x2024"), txt("YYYY")), "ERROR: invalid value \"x202\" for \"YYYY\"");
    /* select to_date('202', 'YYYY') */
    CHECK(fn(FN_TO_DATE, TD, 2, txt("202"), txt("YYYY")), "0202-01-01");
    /* select to_date('  2024   03   05', 'YYYY MM DD') */
    CHECK(fn(FN_TO_DATE, TD, 2, txt("  2024   03   05"), txt("YYYY MM DD")), "2024-03-05");
    /* select to_date('2024x03x05', 'YYYY-MM-DD') */
    CHECK(fn(FN_TO_DATE, TD, 2, txt("2024x03x05"), txt("YYYY-MM-DD")), "ERROR: invalid value \"x0\" for \"MM\"");
    /* select to_date('2024-3-5', 'FXYYYY-MM-DD') */
    CHECK(fn(FN_TO_DATE, TD, 2, txt("2024-3-5"), txt("FXYYYY-MM-DD")), "2024-03-05");
    /* select to_date('60', 'DDD') */
    CHECK(fn(FN_TO_DATE, TD, 2, txt("60"), txt("DDD")), "ERROR: cannot calculate day of year without year information");
    /* select to_date('1234', 'Y,YYY') */
    CHECK(fn(FN_TO_DATE, TD, 2, txt("1234"), txt("Y,YYY")), "ERROR: invalid input string for \"Y,YYY\"");
    /* select to_date('69', 'YY') */
    CHECK(fn(FN_TO_DATE, TD, 2, txt("69"), txt("YY")), "2069-01-01");
    /* select to_date('2024 xii', 'YYYY RM') */
    CHECK(fn(FN_TO_DATE, TD, 2, txt("2024 xii"), txt("YYYY RM")), "2024-12-01");
    /* select to_date('2024-03-05 2023', 'YYYY-MM-DD YYYY') */
    CHECK(fn(FN_TO_DATE, TD, 2, txt("2024-03-05 2023"), txt("YYYY-MM-DD YYYY")), "ERROR: conflicting values for \"YYYY\" field in formatting string");
    /* select to_date('2024-03-5th', 'YYYY-MM-DDth') */
    CHECK(fn(FN_TO_DATE, TD, 2, txt("2024-03-5th"), txt("YYYY-MM-DDth")), "2024-03-05");
    /* select to_date('9999999999', 'YYYY') */
    CHECK(fn(FN_TO_DATE, TD, 2, txt("9999999999"), txt("YYYY")), "ERROR: value for \"YYYY\" in source string is out of range");
    /* select to_date('5874898-01-01', 'YYYY-MM-DD') */
    CHECK(fn(FN_TO_DATE, TD, 2, txt("5874898-01-01"), txt("YYYY-MM-DD")), "ERROR: date out of range: \"5874898-01-01\"");
    /* select to_date('Mayday 2000', 'Mon YYYY') */
    CHECK(fn(FN_TO_DATE, TD, 2, txt("Mayday 2000"), txt("Mon YYYY")), "ERROR: invalid value \"day \" for \"YYYY\"");
    /* select to_date('2024日03', 'YYYY日MM') */
    CHECK(fn(FN_TO_DATE, TD, 2, txt("2024日03"), txt("YYYY日MM")), "2024-03-01");
}

static void test_regex(void **state)
{
    (void)state;
    /* select 'hello world' ~ 'o w' */
    CHECK(op2(OP_REGEX, TB, txt("hello world"), txt("o w")), "t");
    /* select 'Hello' ~ '^h' */
    CHECK(op2(OP_REGEX, TB, txt("Hello"), txt("^h")), "f");
    /* select 'Hello' ~* '^h' */
    CHECK(op2(OP_IREGEX, TB, txt("Hello"), txt("^h")), "t");
    /* select 'Hello' !~ '^h' */
    CHECK(op2(OP_NOT_REGEX, TB, txt("Hello"), txt("^h")), "t");
    /* select 'Hello' !~* '^h' */
    CHECK(op2(OP_NOT_IREGEX, TB, txt("Hello"), txt("^h")), "f");
    /* select 'ÉCOLE' ~* 'école' */
    CHECK(op2(OP_IREGEX, TB, txt("ÉCOLE"), txt("école")), "t");
    /* select 'é' ~ E'\\w' */
    CHECK(op2(OP_REGEX, TB, txt("é"), txt("\\w")), "t");
    /* select '٣' ~ E'\\d' */
    CHECK(op2(OP_REGEX, TB, txt("٣"), txt("\\d")), "f");
    /* select 'foo bar' ~ E'\\ybar\\y' */
    CHECK(op2(OP_REGEX, TB, txt("foo bar"), txt("\\ybar\\y")), "t");
    /* select 'abc' ~ E'\\mabc\\M' */
    CHECK(op2(OP_REGEX, TB, txt("abc"), txt("\\mabc\\M")), "t");
    /* select 'abc' ~ '[[:<:]]abc[[:>:]]' */
    CHECK(op2(OP_REGEX, TB, txt("abc"), txt("[[:<:]]abc[[:>:]]")), "t");
    /* select E'a\\b' ~ E'a\\Bb' */
    CHECK(op2(OP_REGEX, TB, txt("a\\b"), txt("a\\Bb")), "t");
    /* select 'abc' ~ E'\\u0062' */
    CHECK(op2(OP_REGEX, TB, txt("abc"), txt("\\u0062")), "t");
    /* select 'a.' ~ '***=a.' */
    CHECK(op2(OP_REGEX, TB, txt("a."), txt("***=a.")), "t");
    /* select 'AB' ~ '(?i)ab' */
    CHECK(op2(OP_REGEX, TB, txt("AB"), txt("(?i)ab")), "t");
    /* select 'abc' ~ E'b\\Z' */
    CHECK(op2(OP_REGEX, TB, txt("abc"), txt("b\\Z")), "f");
    /* select 'x' ~ '' */
    CHECK(op2(OP_REGEX, TB, txt("x"), txt("")), "t");
    /* select NULL::text ~ 'a' */
    CHECK(op2(OP_REGEX, TB, nul(TT), txt("a")), "NULL");
    /* select 'a' ~ '(' */
    CHECK(op2(OP_REGEX, TB, txt("a"), txt("(")), "ERROR: invalid regular expression: parentheses () not balanced");
    /* select 'a' ~ '[a' */
    CHECK(op2(OP_REGEX, TB, txt("a"), txt("[a")), "ERROR: invalid regular expression: brackets [] not balanced");
    /* select 'a' ~ '*' */
    CHECK(op2(OP_REGEX, TB, txt("a"), txt("*")), "ERROR: invalid regular expression: quantifier operand invalid");
    /* select 'a' ~ 'a{2,1}' */
    CHECK(op2(OP_REGEX, TB, txt("a"), txt("a{2,1}")), "ERROR: invalid regular expression: invalid repetition count(s)");
    /* select 'a' ~ 'a{1' */
    CHECK(op2(OP_REGEX, TB, txt("a"), txt("a{1")), "ERROR: invalid regular expression: braces {} not balanced");
    /* select 'a' ~ '[z-a]' */
    CHECK(op2(OP_REGEX, TB, txt("a"), txt("[z-a]")), "ERROR: invalid regular expression: invalid character range");
    /* select 'a' ~ E'\\' */
    CHECK(op2(OP_REGEX, TB, txt("a"), txt("\\")), "ERROR: invalid regular expression: invalid escape \\ sequence");
    /* select 'a' ~ E'\\1' */
    CHECK(op2(OP_REGEX, TB, txt("a"), txt("\\1")), "ERROR: invalid regular expression: invalid backreference number");
    /* select 'a' ~ '[[:foo:]]' */
    CHECK(op2(OP_REGEX, TB, txt("a"), txt("[[:foo:]]")), "ERROR: invalid regular expression: invalid character class");
    /* select 'a' ~ '(?z)a' */
    CHECK(op2(OP_REGEX, TB, txt("a"), txt("(?z)a")), "ERROR: invalid regular expression: invalid embedded option");
    /* select E'line1\nline2' ~ '1.l' */
    CHECK(op2(OP_REGEX, TB, txt("line1\nline2"), txt("1.l")), "t");
    /* select regexp_replace('Hello World', E'(\\w+) (\\w+)', E'\\2 \\1') */
    CHECK(fn(FN_REGEXP_REPLACE, TT, 3, txt("Hello World"), txt("(\\w+) (\\w+)"), txt("\\2 \\1")), "World Hello");
    /* select regexp_replace('aaa', 'a', 'b') */
    CHECK(fn(FN_REGEXP_REPLACE, TT, 3, txt("aaa"), txt("a"), txt("b")), "baa");
    /* select regexp_replace('aaa', 'a', 'b', 'g') */
    CHECK(fn(FN_REGEXP_REPLACE, TT, 4, txt("aaa"), txt("a"), txt("b"), txt("g")), "bbb");
    /* select regexp_replace('AaA', 'a', 'b', 'gi') */
    CHECK(fn(FN_REGEXP_REPLACE, TT, 4, txt("AaA"), txt("a"), txt("b"), txt("gi")), "bbb");
    /* select regexp_replace('abc', 'x*', '-', 'g') */
    CHECK(fn(FN_REGEXP_REPLACE, TT, 4, txt("abc"), txt("x*"), txt("-"), txt("g")), "-a-b-c-");
    /* select regexp_replace('baaac', 'a*', '-', 'g') */
    CHECK(fn(FN_REGEXP_REPLACE, TT, 4, txt("baaac"), txt("a*"), txt("-"), txt("g")), "-b--c-");
    /* select regexp_replace('abc', '(b)', E'[\\1\\&\\\\\\2\\x]') */
    CHECK(fn(FN_REGEXP_REPLACE, TT, 3, txt("abc"), txt("(b)"), txt("[\\1\\&\\\\\\2\\x]")), "a[bb\\\\x]c");
    /* select regexp_replace('abc', '(b)', E'tail\\') */
    CHECK(fn(FN_REGEXP_REPLACE, TT, 3, txt("abc"), txt("(b)"), txt("tail\\")), "atail\\c");
    /* select regexp_replace(E'a\nb', '^b', 'X') */
    CHECK(fn(FN_REGEXP_REPLACE, TT, 3, txt("a\nb"), txt("^b"), txt("X")), "a\nb");
    /* select regexp_replace(E'a\nb', '^b', 'X', 'n') */
    CHECK(fn(FN_REGEXP_REPLACE, TT, 4, txt("a\nb"), txt("^b"), txt("X"), txt("n")), "a\nX");
    /* select regexp_replace(E'a\nb', 'a[^x]b', 'X', 'n') */
    CHECK(fn(FN_REGEXP_REPLACE, TT, 4, txt("a\nb"), txt("a[^x]b"), txt("X"), txt("n")), "a\nb");
    /* select regexp_replace(E'a\nb', 'a$', 'X', 'w') */
    CHECK(fn(FN_REGEXP_REPLACE, TT, 4, txt("a\nb"), txt("a$"), txt("X"), txt("w")), "X\nb");
    /* select regexp_replace('héllo wörld', '[éö]', '_', 'g') */
    CHECK(fn(FN_REGEXP_REPLACE, TT, 4, txt("héllo wörld"), txt("[éö]"), txt("_"), txt("g")), "h_llo w_rld");
    /* select regexp_replace('abc', 'b', 'x', 'z') */
    CHECK(fn(FN_REGEXP_REPLACE, TT, 4, txt("abc"), txt("b"), txt("x"), txt("z")), "ERROR: invalid regular expression option: \"z\"");
    /* select regexp_replace('abcbb', 'b', 'x', (1)::int4, (0)::int4) */
    CHECK(fn(FN_REGEXP_REPLACE, TT, 5, txt("abcbb"), txt("b"), txt("x"), i4(1), i4(0)), "axcxx");
    /* select regexp_replace('abcbb', 'b', 'x', (1)::int4, (2)::int4) */
    CHECK(fn(FN_REGEXP_REPLACE, TT, 5, txt("abcbb"), txt("b"), txt("x"), i4(1), i4(2)), "abcxb");
    /* select regexp_replace('abcbb', 'b', 'x', (3)::int4) */
    CHECK(fn(FN_REGEXP_REPLACE, TT, 4, txt("abcbb"), txt("b"), txt("x"), i4(3)), "abcxb");
    /* select regexp_replace('abcBb', 'b', 'x', (3)::int4, (0)::int4, 'i') */
    CHECK(fn(FN_REGEXP_REPLACE, TT, 6, txt("abcBb"), txt("b"), txt("x"), i4(3), i4(0), txt("i")), "abcxx");
    /* select regexp_replace('abc', 'b', 'x', (0)::int4) */
    CHECK(fn(FN_REGEXP_REPLACE, TT, 4, txt("abc"), txt("b"), txt("x"), i4(0)), "ERROR: invalid value for parameter \"start\": 0");
    /* select regexp_replace('abc', 'b', 'x', (1)::int4, (-1)::int4) */
    CHECK(fn(FN_REGEXP_REPLACE, TT, 5, txt("abc"), txt("b"), txt("x"), i4(1), i4(-1)), "ERROR: invalid value for parameter \"n\": -1");
    /* select regexp_replace('abc', NULL::text, 'x') */
    CHECK(fn(FN_REGEXP_REPLACE, TT, 3, txt("abc"), nul(TT), txt("x")), "NULL");
    /* select regexp_like('Abc', 'abc') */
    CHECK(fn(FN_REGEXP_LIKE, TB, 2, txt("Abc"), txt("abc")), "f");
    /* select regexp_like('Abc', 'abc', 'i') */
    CHECK(fn(FN_REGEXP_LIKE, TB, 3, txt("Abc"), txt("abc"), txt("i")), "t");
    /* select regexp_like('abc', 'B', 'ic') */
    CHECK(fn(FN_REGEXP_LIKE, TB, 3, txt("abc"), txt("B"), txt("ic")), "f");
    /* select regexp_like('abc', 'b', 'g') */
    CHECK(fn(FN_REGEXP_LIKE, TB, 3, txt("abc"), txt("b"), txt("g")), "ERROR: regexp_like() does not support the \"global\" option");
    /* select regexp_count('ababab', 'ab') */
    CHECK(fn(FN_REGEXP_COUNT, TI4, 2, txt("ababab"), txt("ab")), "3");
    /* select regexp_count('ababab', 'ab', (2)::int4) */
    CHECK(fn(FN_REGEXP_COUNT, TI4, 3, txt("ababab"), txt("ab"), i4(2)), "2");
    /* select regexp_count('ababab', 'AB', (1)::int4, 'i') */
    CHECK(fn(FN_REGEXP_COUNT, TI4, 4, txt("ababab"), txt("AB"), i4(1), txt("i")), "3");
    /* select regexp_count('héllo', 'l', (3)::int4) */
    CHECK(fn(FN_REGEXP_COUNT, TI4, 3, txt("héllo"), txt("l"), i4(3)), "2");
    /* select regexp_count('héllo', 'l', (10)::int4) */
    CHECK(fn(FN_REGEXP_COUNT, TI4, 3, txt("héllo"), txt("l"), i4(10)), "0");
    /* select regexp_count('abc', '') */
    CHECK(fn(FN_REGEXP_COUNT, TI4, 2, txt("abc"), txt("")), "4");
    /* select regexp_count('aaaa', 'a*') */
    CHECK(fn(FN_REGEXP_COUNT, TI4, 2, txt("aaaa"), txt("a*")), "2");
    /* select regexp_count('abc', 'b', (0)::int4) */
    CHECK(fn(FN_REGEXP_COUNT, TI4, 3, txt("abc"), txt("b"), i4(0)), "ERROR: invalid value for parameter \"start\": 0");
    /* select regexp_count('abc', 'b', (1)::int4, 'g') */
    CHECK(fn(FN_REGEXP_COUNT, TI4, 4, txt("abc"), txt("b"), i4(1), txt("g")), "ERROR: regexp_count() does not support the \"global\" option");
    /* select regexp_substr('abcabc', 'b.', (1)::int4, (2)::int4) */
    CHECK(fn(FN_REGEXP_SUBSTR, TT, 4, txt("abcabc"), txt("b."), i4(1), i4(2)), "bc");
    /* select regexp_substr('abcabc', '(b)(c)', (1)::int4, (2)::int4, '', (2)::int4) */
    CHECK(fn(FN_REGEXP_SUBSTR, TT, 6, txt("abcabc"), txt("(b)(c)"), i4(1), i4(2), txt(""), i4(2)), "c");
    /* select regexp_substr('x=1; y=22; z=333', E'\\d+', (3)::int4, (2)::int4, '', (1)::int4) */
    CHECK(fn(FN_REGEXP_SUBSTR, TT, 6, txt("x=1; y=22; z=333"), txt("\\d+"), i4(3), i4(2), txt(""), i4(1)), "22");
    /* select regexp_substr('x=1; y=22', E'\\d+', (1)::int4, (1)::int4, '', (2)::int4) */
    CHECK(fn(FN_REGEXP_SUBSTR, TT, 6, txt("x=1; y=22"), txt("\\d+"), i4(1), i4(1), txt(""), i4(2)), "NULL");
    /* select regexp_substr('héllo wörld', 'w.r') */
    CHECK(fn(FN_REGEXP_SUBSTR, TT, 2, txt("héllo wörld"), txt("w.r")), "wör");
    /* select regexp_substr('abc', 'x') */
    CHECK(fn(FN_REGEXP_SUBSTR, TT, 2, txt("abc"), txt("x")), "NULL");
    /* select regexp_substr('abc', 'b', (0)::int4) */
    CHECK(fn(FN_REGEXP_SUBSTR, TT, 3, txt("abc"), txt("b"), i4(0)), "ERROR: invalid value for parameter \"start\": 0");
    /* select regexp_substr('abc', 'b', (1)::int4, (0)::int4) */
    CHECK(fn(FN_REGEXP_SUBSTR, TT, 4, txt("abc"), txt("b"), i4(1), i4(0)), "ERROR: invalid value for parameter \"n\": 0");
    /* select regexp_substr('abc', 'b', (1)::int4, (1)::int4, '', (-1)::int4) */
    CHECK(fn(FN_REGEXP_SUBSTR, TT, 6, txt("abc"), txt("b"), i4(1), i4(1), txt(""), i4(-1)), "ERROR: invalid value for parameter \"subexpr\": -1");
    /* select regexp_substr('abc', '(b)', (1)::int4, (1)::int4, '', (2)::int4) */
    CHECK(fn(FN_REGEXP_SUBSTR, TT, 6, txt("abc"), txt("(b)"), i4(1), i4(1), txt(""), i4(2)), "NULL");
}

/* A pattern compiled once (as the binder does for constants) gives the same results
 * as one compiled per row, and an invalid one is reported with PostgreSQL's words. */
static void test_regex_compiled(void **state)
{
    (void)state;
    Arena ar;
    arena_init(&ar, 4096);
    char err[256];
    Expr *e = op2(OP_IREGEX, TB, col(1, TT), txt("^GO+gle$"));
    e->regex = regex_compile_in(&ar, "^GO+gle$", 8, REGEX_ICASE, err, sizeof err);
    assert_non_null(e->regex);
    CHECK(e, "t");
    Expr *r = fn(FN_REGEXP_REPLACE, TT, 4, col(1, TT), txt("o"), txt("0"), txt("g"));
    r->regex = regex_compile_in(&ar, "o", 1, 0, err, sizeof err);
    CHECK(r, "G00gle");
    assert_null(regex_compile("a{300}", 6, 0, err, sizeof err));
    assert_string_equal(err, "invalid regular expression: invalid repetition count(s)");
    assert_null(regex_compile("(", 1, 0, err, sizeof err));
    assert_string_equal(err, "invalid regular expression: parentheses () not balanced");
    int opts = 0;
    bool global = false;
    assert_true(regex_parse_flags("gin", 3, &opts, &global, err, sizeof err));
    assert_true(global);
    assert_int_equal(opts, REGEX_ICASE | REGEX_NL_DOT | REGEX_NL_ANCHOR);
    assert_false(regex_parse_flags("xé", 3, &opts, &global, err, sizeof err));
    assert_string_equal(err, "invalid regular expression option: \"é\"");
    arena_fini(&ar);   /* frees the compiled patterns */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lpad_rpad),
        cmocka_unit_test(test_initcap_reverse),
        cmocka_unit_test(test_repeat_md5),
        cmocka_unit_test(test_starts_translate_ascii_chr),
        cmocka_unit_test(test_float_math),
        cmocka_unit_test(test_numeric_math),
        cmocka_unit_test(test_width_bucket_gcd),
        cmocka_unit_test(test_date_bin_make),
        cmocka_unit_test(test_to_timestamp_epoch_age_justify),
        cmocka_unit_test(test_to_char_datetime),
        cmocka_unit_test(test_to_char_number),
        cmocka_unit_test(test_to_timestamp_to_date),
        cmocka_unit_test(test_regex),
        cmocka_unit_test(test_regex_compiled),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
