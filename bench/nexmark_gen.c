/*
 * nexmark_gen: a deterministic Nexmark event generator that writes JSON lines.
 *
 * It follows ../shared/nexmark-generator.md (the Flink/Beam generator): a fixed
 * 1:3:46 person/auction/bid pattern, the hot seller, bidder, auction and channel
 * ratios, log-uniform prices, str()/nextExtra() padding and the expires rule.
 * The bidder offset is +1000 (Beam, nexmark-rs), not Flink's +2000. Each event
 * has its own PRNG, seeded from (--seed, event id), so the output depends only
 * on the arguments.
 *
 *   build/nexmark_gen --events 2000000 --out-dir /tmp/nx        # split (default)
 *   build/nexmark_gen --events 100 --layout combined | head -5
 *   build/nexmark_gen --help
 *
 * Build: cc -O2 -std=c11 -Wall -Wextra -Werror bench/nexmark_gen.c -o build/nexmark_gen
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

/* ---------------------------------------------------------------------------
 * Generator constants (NexmarkConfiguration / GeneratorConfig defaults)
 * ------------------------------------------------------------------------- */
#define PERSON_PROPORTION 1
#define AUCTION_PROPORTION 3
#define BID_PROPORTION 46
#define TOTAL_PROPORTION (PERSON_PROPORTION + AUCTION_PROPORTION + BID_PROPORTION)

#define FIRST_PERSON_ID 1000
#define FIRST_AUCTION_ID 1000
#define FIRST_CATEGORY_ID 10
#define NUM_CATEGORIES 5
#define PERSON_ID_LEAD 10
#define AUCTION_ID_LEAD 10
#define NUM_ACTIVE_PEOPLE 1000
#define NUM_IN_FLIGHT_AUCTIONS 100

#define HOT_SELLERS_RATIO 4  /* P(hot seller)  = 1 - 1/4 */
#define HOT_BIDDERS_RATIO 4  /* P(hot bidder)  = 1 - 1/4 */
#define HOT_AUCTION_RATIO 2  /* P(hot auction) = 1 - 1/2 */
#define HOT_CHANNELS_RATIO 2 /* P(hot channel) = 1 - 1/2 */
#define HOT_BLOCK 100        /* HOT_SELLER_RATIO / HOT_BIDDER_RATIO / HOT_AUCTION_RATIO */

#define AVG_PERSON_BYTES 200
#define AVG_AUCTION_BYTES 500
#define AVG_BID_BYTES 100

#define NUM_CHANNELS 10000
#define NUM_HOT_CHANNELS 4
#define MIN_STRING_LENGTH 3
#define EXTRA_POOL_SIZE (1u << 20) /* nextExtra() takes substrings of this */

/* numInFlightAuctions * totalProportion / auctionProportion = 1666 */
#define EVENTS_FOR_AUCTIONS \
    (((int64_t)NUM_IN_FLIGHT_AUCTIONS * TOTAL_PROPORTION) / AUCTION_PROPORTION)

/* ---------------------------------------------------------------------------
 * PRNG: splitmix64. Each event gets its own state, derived from the seed and the
 * event id, so an event's fields do not depend on the events before it.
 * ------------------------------------------------------------------------- */
typedef struct {
    uint64_t s;
} rng_t;

static inline uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static inline uint64_t rng_next(rng_t *r)
{
    r->s += 0x9e3779b97f4a7c15ULL;
    return mix64(r->s);
}

/* Uniform integer in [0, n), n >= 1 (multiply-shift; the bias is at most n/2^32). */
static inline uint64_t rng_below(rng_t *r, uint64_t n)
{
    uint64_t x = rng_next(r);
    if (n <= 0xffffffffULL)
        return ((x >> 32) * n) >> 32;
    return x % n;
}

/* Uniform double in [0, 1). */
static inline double rng_unit(rng_t *r)
{
    return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* Separate seed domains for the per-event streams and the tables built at startup. */
#define DOMAIN_EVENT 0x6e65786d61726b31ULL
#define DOMAIN_POOL 0x6e65786d61726b32ULL
#define DOMAIN_HOTURL 0x6e65786d61726b33ULL
#define DOMAIN_CHANNEL 0x6e65786d61726b34ULL

static rng_t rng_for(uint64_t seed, uint64_t domain, uint64_t index)
{
    rng_t r;
    r.s = mix64(mix64(seed ^ domain) ^ mix64(index + 0x632be59bd9b4e019ULL));
    return r;
}

/* ---------------------------------------------------------------------------
 * Fixed vocabularies (Flink/Beam spelling: capitalised)
 * ------------------------------------------------------------------------- */
typedef struct {
    const char *s;
    size_t n;
} word_t;

#define W(x) { x, sizeof(x) - 1 }
static const word_t US_STATES[] = { W("AZ"), W("CA"), W("ID"), W("OR"), W("WA"), W("WY") };
static const word_t US_CITIES[] = { W("Phoenix"), W("Los Angeles"), W("San Francisco"),
                                    W("Boise"),   W("Portland"),    W("Bend"),
                                    W("Redmond"), W("Seattle"),     W("Kent"),
                                    W("Cheyenne") };
static const word_t FIRST_NAMES[] = { W("Peter"), W("Paul"),  W("Luke"),  W("John"),
                                      W("Saul"),  W("Vicky"), W("Kate"),  W("Julie"),
                                      W("Sarah"), W("Deiter"), W("Walter") };
static const word_t LAST_NAMES[] = { W("Shultz"), W("Abrams"), W("Spencer"),
                                     W("White"),  W("Bartels"), W("Walton"),
                                     W("Smith"),  W("Jones"),  W("Noris") };
static const word_t HOT_CHANNELS[NUM_HOT_CHANNELS] = { W("Google"), W("Facebook"), W("Baidu"),
                                                       W("Apple") };
#undef W
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* ---------------------------------------------------------------------------
 * Global state built at startup
 * ------------------------------------------------------------------------- */
typedef struct {
    char name[16];
    char url[96];
    uint8_t name_len;
    uint8_t url_len;
} channel_t;

static char g_pool[EXTRA_POOL_SIZE];    /* random lowercase text for extra */
static channel_t g_channels[NUM_CHANNELS];
static channel_t g_hot[NUM_HOT_CHANNELS];
static char g_chartab_space[338];       /* str(): 26 x special + 12 x a..z */
static char g_chartab_under[338];
static uint64_t g_seed;
static int64_t g_base_ms;               /* base time, ms since the epoch (UTC) */
static double g_delay_us;               /* interEventDelayUs = 1e6 / rate */

/* ---------------------------------------------------------------------------
 * Event arithmetic (section 3 of the spec). Event ids are 0-based, and
 * eventNumber = eventId (one generator, outOfOrderGroupSize = 1).
 * ------------------------------------------------------------------------- */
static inline int64_t timestamp_for_event(int64_t n)
{
    /* Java: baseTime + (long)(eventNumber * interEventDelayUs) / 1000L */
    return g_base_ms + (int64_t)((double)n * g_delay_us) / 1000;
}

static inline int64_t last_base0_person_id(int64_t eid)
{
    int64_t epoch = eid / TOTAL_PROPORTION;
    int64_t off = eid % TOTAL_PROPORTION;
    if (off >= PERSON_PROPORTION)
        off = PERSON_PROPORTION - 1;
    return epoch * PERSON_PROPORTION + off;
}

static inline int64_t last_base0_auction_id(int64_t eid)
{
    int64_t epoch = eid / TOTAL_PROPORTION;
    int64_t off = eid % TOTAL_PROPORTION;
    if (off < PERSON_PROPORTION) {
        epoch--;
        off = AUCTION_PROPORTION - 1;
    } else if (off >= PERSON_PROPORTION + AUCTION_PROPORTION) {
        off = AUCTION_PROPORTION - 1;
    } else {
        off -= PERSON_PROPORTION;
    }
    return epoch * AUCTION_PROPORTION + off;
}

static inline int64_t next_base0_person_id(int64_t eid, rng_t *r)
{
    int64_t num_people = last_base0_person_id(eid) + 1;
    int64_t active = num_people < NUM_ACTIVE_PEOPLE ? num_people : NUM_ACTIVE_PEOPLE;
    int64_t n = (int64_t)rng_below(r, (uint64_t)(active + PERSON_ID_LEAD));
    return num_people - active + n;
}

static inline int64_t next_base0_auction_id(int64_t eid, rng_t *r)
{
    int64_t max_a = last_base0_auction_id(eid);
    int64_t min_a = max_a - NUM_IN_FLIGHT_AUCTIONS;
    if (min_a < 0)
        min_a = 0;
    return min_a + (int64_t)rng_below(r, (uint64_t)(max_a - min_a + 1 + AUCTION_ID_LEAD));
}

/* price() = round(10^(U(0,1) * 6) * 100), without libm. */
static inline int64_t next_price(rng_t *r)
{
    double t = rng_unit(r) * (6.0 * 3.32192809488736234787); /* exponent in base 2 */
    int k = (int)t;                                           /* 0..19 */
    double f = (t - (double)k) * 0.69314718055994530942;      /* [0, ln 2) */
    /* exp(f), Taylor to f^13/13!: relative error < 1e-13 on [0, ln 2) */
    double e = 1.0 / 6227020800.0;
    e = e * f + 1.0 / 479001600.0;
    e = e * f + 1.0 / 39916800.0;
    e = e * f + 1.0 / 3628800.0;
    e = e * f + 1.0 / 362880.0;
    e = e * f + 1.0 / 40320.0;
    e = e * f + 1.0 / 5040.0;
    e = e * f + 1.0 / 720.0;
    e = e * f + 1.0 / 120.0;
    e = e * f + 1.0 / 24.0;
    e = e * f + 1.0 / 6.0;
    e = e * f + 0.5;
    e = e * f + 1.0;
    e = e * f + 1.0;
    double v = e * (double)(1ULL << k) * 100.0;
    return (int64_t)(v + 0.5); /* Math.round for v > 0 */
}

/*
 * str(max): length 3 + U[0, max-3); each char is `special` with probability 1/13,
 * otherwise a..z; trimmed (Java String.trim strips only the spaces here, so
 * '_' strings are not trimmed). Writes into dst and returns the trimmed [*start, len).
 */
static size_t next_string(rng_t *r, int max_len, const char *tab, int trim, char *dst,
                          const char **start)
{
    int len = MIN_STRING_LENGTH + (int)rng_below(r, (uint64_t)(max_len - MIN_STRING_LENGTH));
    int i = 0;
    while (i < len) {
        uint64_t x = rng_next(r);
        for (int k = 0; k < 4 && i < len; k++, i++) {
            dst[i] = tab[((x & 0xffff) * 338) >> 16];
            x >>= 16;
        }
    }
    const char *s = dst;
    const char *e = dst + len;
    if (trim) {
        while (s < e && *s == ' ')
            s++;
        while (e > s && e[-1] == ' ')
            e--;
    }
    *start = s;
    return (size_t)(e - s);
}

/*
 * nextExtra(cur, avg): "" if cur > avg; else d = avg - cur, delta = round(0.2 d),
 * length = d - delta + U[0, 2 delta). The text is a substring of g_pool.
 */
static inline size_t next_extra(rng_t *r, int cur, int avg, const char **start)
{
    *start = g_pool;
    if (cur > avg)
        return 0;
    int d = avg - cur;
    int delta = (2 * d + 5) / 10; /* == Math.round(d * 0.2) for d >= 0 */
    int len = d - delta + (delta == 0 ? 0 : (int)rng_below(r, (uint64_t)(2 * delta)));
    *start = g_pool + rng_below(r, (uint64_t)(EXTRA_POOL_SIZE - (unsigned)len + 1));
    return (size_t)len;
}

/* ---------------------------------------------------------------------------
 * Formatting helpers (no printf in the hot path)
 * ------------------------------------------------------------------------- */
static const char DIGITS2[201] = "00010203040506070809"
                                 "10111213141516171819"
                                 "20212223242526272829"
                                 "30313233343536373839"
                                 "40414243444546474849"
                                 "50515253545556575859"
                                 "60616263646566676869"
                                 "70717273747576777879"
                                 "80818283848586878889"
                                 "90919293949596979899";

static inline char *put_u64(char *p, uint64_t v)
{
    char tmp[24];
    char *e = tmp + sizeof tmp;
    char *s = e;
    while (v >= 100) {
        unsigned d = (unsigned)(v % 100);
        v /= 100;
        s -= 2;
        memcpy(s, DIGITS2 + 2 * d, 2);
    }
    if (v >= 10) {
        s -= 2;
        memcpy(s, DIGITS2 + 2 * v, 2);
    } else {
        *--s = (char)('0' + v);
    }
    size_t n = (size_t)(e - s);
    memcpy(p, s, n);
    return p + n;
}

static inline char *put_i64(char *p, int64_t v)
{
    if (v < 0) {
        *p++ = '-';
        return put_u64(p, (uint64_t)0 - (uint64_t)v);
    }
    return put_u64(p, (uint64_t)v);
}

static inline char *put_2d(char *p, unsigned v)
{
    memcpy(p, DIGITS2 + 2 * v, 2);
    return p + 2;
}

#define PUT_LIT(p, lit) (memcpy((p), (lit), sizeof(lit) - 1), (p) + sizeof(lit) - 1)

/* Bytes that must be escaped inside a JSON string: control chars, '"', '\\'. */
static unsigned char g_esc[256];

static void init_escape_table(void)
{
    for (int c = 0; c < 0x20; c++)
        g_esc[c] = 1;
    g_esc['"'] = 1;
    g_esc['\\'] = 1;
}

/* Writes "s" (with quotes) escaped as JSON. Worst case 6n + 2 bytes. */
static char *put_jstr(char *p, const char *s, size_t n)
{
    *p++ = '"';
    size_t i = 0;
    while (i < n) {
        size_t j = i;
        while (j < n && !g_esc[(unsigned char)s[j]])
            j++;
        memcpy(p, s + i, j - i);
        p += j - i;
        if (j == n)
            break;
        unsigned char c = (unsigned char)s[j];
        *p++ = '\\';
        switch (c) {
        case '"': *p++ = '"'; break;
        case '\\': *p++ = '\\'; break;
        case '\b': *p++ = 'b'; break;
        case '\f': *p++ = 'f'; break;
        case '\n': *p++ = 'n'; break;
        case '\r': *p++ = 'r'; break;
        case '\t': *p++ = 't'; break;
        default:
            *p++ = 'u';
            *p++ = '0';
            *p++ = '0';
            *p++ = "0123456789abcdef"[c >> 4];
            *p++ = "0123456789abcdef"[c & 15];
            break;
        }
        i = j + 1;
    }
    *p++ = '"';
    return p;
}

/* Proleptic Gregorian calendar conversions (H. Hinnant's algorithms). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

static void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    unsigned doe = (unsigned)(z - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t yy = (int64_t)yoe + era * 400;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = yy + (*m <= 2);
}

/* Caches the "YYYY-MM-DD HH:MM:SS" text of the last second formatted. */
typedef struct {
    int64_t sec;
    size_t len;
    char txt[40];
} tcache_t;

static inline int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* Writes "YYYY-MM-DD HH:MM:SS.mmm" (UTC, with quotes). */
static char *put_ts(char *p, int64_t ms, tcache_t *c)
{
    int64_t sec = floor_div(ms, 1000);
    unsigned milli = (unsigned)(ms - sec * 1000);
    if (sec != c->sec) {
        int64_t days = floor_div(sec, 86400);
        unsigned sod = (unsigned)(sec - days * 86400);
        int64_t y;
        unsigned mo, d;
        civil_from_days(days, &y, &mo, &d);
        char *q = c->txt;
        if (y >= 0 && y <= 9999) {
            q = put_2d(q, (unsigned)(y / 100));
            q = put_2d(q, (unsigned)(y % 100));
        } else {
            q = put_i64(q, y);
        }
        *q++ = '-';
        q = put_2d(q, mo);
        *q++ = '-';
        q = put_2d(q, d);
        *q++ = ' ';
        q = put_2d(q, sod / 3600);
        *q++ = ':';
        q = put_2d(q, sod / 60 % 60);
        *q++ = ':';
        q = put_2d(q, sod % 60);
        c->len = (size_t)(q - c->txt);
        c->sec = sec;
    }
    *p++ = '"';
    memcpy(p, c->txt, c->len);
    p += c->len;
    *p++ = '.';
    *p++ = (char)('0' + milli / 100);
    p = put_2d(p, milli % 100);
    *p++ = '"';
    return p;
}

/* ---------------------------------------------------------------------------
 * Event writers: each writes one inner JSON object {...} and returns the end.
 * Random draws follow the order of the Flink generator.
 * ------------------------------------------------------------------------- */
static tcache_t g_tc_date = { INT64_MIN, 0, { 0 } };
static tcache_t g_tc_expires = { INT64_MIN, 0, { 0 } };

static char *write_person(char *p, int64_t eid, int64_t ts, rng_t *r)
{
    int64_t id = last_base0_person_id(eid) + FIRST_PERSON_ID;

    const word_t *first = &FIRST_NAMES[rng_below(r, NELEM(FIRST_NAMES))];
    const word_t *last = &LAST_NAMES[rng_below(r, NELEM(LAST_NAMES))];
    char name[32];
    memcpy(name, first->s, first->n);
    name[first->n] = ' ';
    memcpy(name + first->n + 1, last->s, last->n);
    size_t name_len = first->n + 1 + last->n;

    char email[32], tmp[16];
    const char *s;
    size_t n = next_string(r, 7, g_chartab_space, 1, tmp, &s);
    memcpy(email, s, n);
    size_t email_len = n;
    email[email_len++] = '@';
    n = next_string(r, 5, g_chartab_space, 1, tmp, &s);
    memcpy(email + email_len, s, n);
    email_len += n;
    memcpy(email + email_len, ".com", 4);
    email_len += 4;

    char cc[19];
    for (int g = 0; g < 4; g++) {
        unsigned v = (unsigned)rng_below(r, 10000);
        put_2d(cc + 5 * g, v / 100);
        put_2d(cc + 5 * g + 2, v % 100);
        if (g < 3)
            cc[5 * g + 4] = ' ';
    }

    const word_t *city = &US_CITIES[rng_below(r, NELEM(US_CITIES))];
    const word_t *state = &US_STATES[rng_below(r, NELEM(US_STATES))];

    int cur = (int)(8 + name_len + email_len + sizeof cc + city->n + state->n);
    const char *extra;
    size_t extra_len = next_extra(r, cur, AVG_PERSON_BYTES, &extra);

    p = PUT_LIT(p, "{\"id\":");
    p = put_i64(p, id);
    p = PUT_LIT(p, ",\"name\":");
    p = put_jstr(p, name, name_len);
    p = PUT_LIT(p, ",\"email_address\":");
    p = put_jstr(p, email, email_len);
    p = PUT_LIT(p, ",\"credit_card\":");
    p = put_jstr(p, cc, sizeof cc);
    p = PUT_LIT(p, ",\"city\":");
    p = put_jstr(p, city->s, city->n);
    p = PUT_LIT(p, ",\"state\":");
    p = put_jstr(p, state->s, state->n);
    p = PUT_LIT(p, ",\"date_time\":");
    p = put_ts(p, ts, &g_tc_date);
    p = PUT_LIT(p, ",\"extra\":");
    p = put_jstr(p, extra, extra_len);
    *p++ = '}';
    return p;
}

static char *write_auction(char *p, int64_t eid, int64_t ts, rng_t *r)
{
    int64_t id = last_base0_auction_id(eid) + FIRST_AUCTION_ID;

    int64_t seller;
    if (rng_below(r, HOT_SELLERS_RATIO) > 0)
        seller = (last_base0_person_id(eid) / HOT_BLOCK) * HOT_BLOCK;
    else
        seller = next_base0_person_id(eid, r);
    seller += FIRST_PERSON_ID;
    int64_t category = FIRST_CATEGORY_ID + (int64_t)rng_below(r, NUM_CATEGORIES);

    int64_t initial_bid = next_price(r);

    /* expires = ts + 1 + U[0, max(2 * horizon, 1)) */
    int64_t horizon = timestamp_for_event(eid + EVENTS_FOR_AUCTIONS) - ts;
    int64_t span = horizon * 2 > 1 ? horizon * 2 : 1;
    int64_t expires = ts + 1 + (int64_t)rng_below(r, (uint64_t)span);

    char nbuf[24], dbuf[104];
    const char *item_name, *desc;
    size_t item_len = next_string(r, 20, g_chartab_space, 1, nbuf, &item_name);
    size_t desc_len = next_string(r, 100, g_chartab_space, 1, dbuf, &desc);
    int64_t reserve = initial_bid + next_price(r);

    int cur = (int)(8 + item_len + desc_len + 8 + 8 + 8 + 8 + 8);
    const char *extra;
    size_t extra_len = next_extra(r, cur, AVG_AUCTION_BYTES, &extra);

    p = PUT_LIT(p, "{\"id\":");
    p = put_i64(p, id);
    p = PUT_LIT(p, ",\"item_name\":");
    p = put_jstr(p, item_name, item_len);
    p = PUT_LIT(p, ",\"description\":");
    p = put_jstr(p, desc, desc_len);
    p = PUT_LIT(p, ",\"initial_bid\":");
    p = put_i64(p, initial_bid);
    p = PUT_LIT(p, ",\"reserve\":");
    p = put_i64(p, reserve);
    p = PUT_LIT(p, ",\"date_time\":");
    p = put_ts(p, ts, &g_tc_date);
    p = PUT_LIT(p, ",\"expires\":");
    p = put_ts(p, expires, &g_tc_expires);
    p = PUT_LIT(p, ",\"seller\":");
    p = put_i64(p, seller);
    p = PUT_LIT(p, ",\"category\":");
    p = put_i64(p, category);
    p = PUT_LIT(p, ",\"extra\":");
    p = put_jstr(p, extra, extra_len);
    *p++ = '}';
    return p;
}

static char *write_bid(char *p, int64_t eid, int64_t ts, rng_t *r)
{
    int64_t auction;
    if (rng_below(r, HOT_AUCTION_RATIO) > 0)
        auction = (last_base0_auction_id(eid) / HOT_BLOCK) * HOT_BLOCK;
    else
        auction = next_base0_auction_id(eid, r);
    auction += FIRST_AUCTION_ID;

    int64_t bidder;
    if (rng_below(r, HOT_BIDDERS_RATIO) > 0)
        bidder = (last_base0_person_id(eid) / HOT_BLOCK) * HOT_BLOCK + 1;
    else
        bidder = next_base0_person_id(eid, r);
    bidder += FIRST_PERSON_ID; /* once: Beam / nexmark-rs; Flink adds it twice */

    int64_t price = next_price(r);

    const channel_t *ch;
    if (rng_below(r, HOT_CHANNELS_RATIO) > 0)
        ch = &g_hot[rng_below(r, NUM_HOT_CHANNELS)];
    else
        ch = &g_channels[rng_below(r, NUM_CHANNELS)];

    const char *extra;
    size_t extra_len = next_extra(r, 8 + 8 + 8 + 8, AVG_BID_BYTES, &extra);

    p = PUT_LIT(p, "{\"auction\":");
    p = put_i64(p, auction);
    p = PUT_LIT(p, ",\"bidder\":");
    p = put_i64(p, bidder);
    p = PUT_LIT(p, ",\"price\":");
    p = put_i64(p, price);
    p = PUT_LIT(p, ",\"channel\":");
    p = put_jstr(p, ch->name, ch->name_len);
    p = PUT_LIT(p, ",\"url\":");
    p = put_jstr(p, ch->url, ch->url_len);
    p = PUT_LIT(p, ",\"date_time\":");
    p = put_ts(p, ts, &g_tc_date);
    p = PUT_LIT(p, ",\"extra\":");
    p = put_jstr(p, extra, extra_len);
    *p++ = '}';
    return p;
}

/* ---------------------------------------------------------------------------
 * Startup tables: extra pool, str() alphabets, channel cache, hot URLs
 * ------------------------------------------------------------------------- */

/* "https://www.nexmark.com/<s5>/<s5>/<s5>/item.htm?query=1", s5 = str(5) with '_' */
static size_t base_url(rng_t *r, char *dst)
{
    static const char prefix[] = "https://www.nexmark.com/";
    static const char suffix[] = "item.htm?query=1";
    char *p = dst;
    memcpy(p, prefix, sizeof prefix - 1);
    p += sizeof prefix - 1;
    for (int i = 0; i < 3; i++) {
        char tmp[8];
        const char *s;
        size_t n = next_string(r, 5, g_chartab_under, 0, tmp, &s);
        memcpy(p, s, n);
        p += n;
        *p++ = '/';
    }
    memcpy(p, suffix, sizeof suffix - 1);
    p += sizeof suffix - 1;
    return (size_t)(p - dst);
}

/* Java Integer.reverse */
static int32_t int_reverse(int32_t v)
{
    uint32_t x = (uint32_t)v, y = 0;
    for (int i = 0; i < 32; i++) {
        y = (y << 1) | (x & 1);
        x >>= 1;
    }
    return (int32_t)y; /* implementation-defined for y >= 2^31; two's complement on all our targets */
}

static void init_tables(void)
{
    init_escape_table();

    for (int v = 0; v < 338; v++) {
        g_chartab_space[v] = v < 26 ? ' ' : (char)('a' + (v - 26) % 26);
        g_chartab_under[v] = v < 26 ? '_' : (char)('a' + (v - 26) % 26);
    }

    rng_t r = rng_for(g_seed, DOMAIN_POOL, 0);
    for (size_t i = 0; i < EXTRA_POOL_SIZE;) {
        uint64_t x = rng_next(&r);
        for (int k = 0; k < 4 && i < EXTRA_POOL_SIZE; k++, i++) {
            g_pool[i] = (char)('a' + (((x & 0xffff) * 26) >> 16));
            x >>= 16;
        }
    }

    for (int i = 0; i < NUM_HOT_CHANNELS; i++) {
        channel_t *c = &g_hot[i];
        rng_t hr = rng_for(g_seed, DOMAIN_HOTURL, (uint64_t)i);
        memcpy(c->name, HOT_CHANNELS[i].s, HOT_CHANNELS[i].n);
        c->name_len = (uint8_t)HOT_CHANNELS[i].n;
        c->url_len = (uint8_t)base_url(&hr, c->url);
    }

    for (int i = 0; i < NUM_CHANNELS; i++) {
        channel_t *c = &g_channels[i];
        rng_t cr = rng_for(g_seed, DOMAIN_CHANNEL, (uint64_t)i);
        char *p = PUT_LIT(c->name, "channel-");
        p = put_i64(p, i);
        c->name_len = (uint8_t)(p - c->name);
        size_t n = base_url(&cr, c->url);
        if (rng_below(&cr, 10) > 0) {
            /* Math.abs(Integer.reverse(i)); note abs(MIN_VALUE) stays negative in Java */
            int32_t rev = int_reverse(i);
            int64_t a = rev == INT32_MIN ? (int64_t)INT32_MIN : (rev < 0 ? -(int64_t)rev : rev);
            p = PUT_LIT(c->url + n, "&channel_id=");
            p = put_i64(p, a);
            n = (size_t)(p - c->url);
        }
        c->url_len = (uint8_t)n;
    }
}

/* ---------------------------------------------------------------------------
 * Buffered output
 * ------------------------------------------------------------------------- */
#define OUT_CAP (4u << 20)
#define EVENT_MAX (16u << 10) /* an event line is < 1.5 KiB even if fully escaped x6 */

typedef struct {
    FILE *f;
    const char *path;
    char *buf;
    size_t len;
} out_t;

static _Noreturn void die_io(const char *what, const char *path)
{
    fprintf(stderr, "nexmark_gen: %s %s: %s\n", what, path, strerror(errno));
    exit(1);
}

static void out_open(out_t *o, const char *path)
{
    o->path = path ? path : "<stdout>";
    if (path) {
        o->f = fopen(path, "wb");
        if (!o->f)
            die_io("cannot open", path);
    } else {
        o->f = stdout;
    }
    setvbuf(o->f, NULL, _IONBF, 0); /* we buffer ourselves */
    o->buf = malloc(OUT_CAP);
    if (!o->buf) {
        fprintf(stderr, "nexmark_gen: out of memory\n");
        exit(1);
    }
    o->len = 0;
}

static void out_flush(out_t *o)
{
    if (o->len && fwrite(o->buf, 1, o->len, o->f) != o->len)
        die_io("write error on", o->path);
    o->len = 0;
}

static inline char *out_reserve(out_t *o)
{
    if (o->len + EVENT_MAX > OUT_CAP)
        out_flush(o);
    return o->buf + o->len;
}

static inline void out_commit(out_t *o, char *end)
{
    o->len = (size_t)(end - o->buf);
}

static void out_close(out_t *o)
{
    out_flush(o);
    if (o->f != stdout) {
        if (fclose(o->f) != 0)
            die_io("cannot close", o->path);
    } else if (fflush(stdout) != 0) {
        die_io("write error on", o->path);
    }
    free(o->buf);
}

/* ---------------------------------------------------------------------------
 * Command line
 * ------------------------------------------------------------------------- */
static const char USAGE[] =
    "usage: nexmark_gen [options]\n"
    "\n"
    "Deterministic Nexmark event generator (Flink/Beam generator semantics), JSON lines.\n"
    "\n"
    "  --events N          number of events to generate (default 1000000)\n"
    "  --start N           first event id / event number (default 0); lets a run be split\n"
    "                      into ranges whose outputs concatenate to the same bytes\n"
    "  --seed N            PRNG seed, unsigned 64-bit (default 1)\n"
    "  --rate N            events per second of event time (default 10000);\n"
    "                      timestamp(n) = base + floor(n * 1e6/N us) / 1000 ms\n"
    "  --base-time T       'YYYY-MM-DD HH:MM:SS[.mmm]' UTC (default '2015-07-15 00:00:00')\n"
    "  --layout L          split (default) or combined\n"
    "  --out-dir DIR       split: writes DIR/person.jsonl, DIR/auction.jsonl, DIR/bid.jsonl\n"
    "                      (DIR is created if missing; its parent must exist)\n"
    "  --out FILE          combined: output file (default stdout)\n"
    "  --help              show this help\n"
    "\n"
    "split lines:    {\"id\":..,\"name\":..,...}  (person / auction / bid columns, snake_case)\n"
    "combined lines: {\"event_type\":0|1|2,\"person\":{..}|null,\"auction\":{..}|null,"
    "\"bid\":{..}|null}\n"
    "Same arguments => byte-identical output.\n";

static _Noreturn void usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "nexmark_gen: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(try --help)\n");
    exit(2);
}

static uint64_t parse_u64(const char *opt, const char *s, uint64_t min, uint64_t max)
{
    const char *q = s;
    while (*q == '_' || (*q >= '0' && *q <= '9'))
        q++;
    if (*s < '0' || *s > '9' || *q != '\0')
        usage_error("%s needs a non-negative integer", opt);
    errno = 0;
    char buf[64];
    size_t n = 0;
    for (q = s; *q && n < sizeof buf - 1; q++)
        if (*q != '_')
            buf[n++] = *q;
    buf[n] = '\0';
    char *end;
    unsigned long long v = strtoull(buf, &end, 10);
    if (errno == ERANGE || *end != '\0' || v < min || v > max) {
        fprintf(stderr, "nexmark_gen: %s %s out of range [%llu, %llu]\n(try --help)\n", opt, s,
                (unsigned long long)min, (unsigned long long)max);
        exit(2);
    }
    return (uint64_t)v;
}

static int parse_fixed(const char **s, int digits, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < digits; i++) {
        char c = (*s)[i];
        if (c < '0' || c > '9')
            return 0;
        v = v * 10 + (unsigned)(c - '0');
    }
    *s += digits;
    *out = v;
    return 1;
}

/* 'YYYY-MM-DD HH:MM:SS[.mmm]' (also 'T' as separator) -> ms since epoch, UTC. */
static int parse_base_time(const char *s, int64_t *ms)
{
    unsigned y, mo, d, h, mi, se, milli = 0;
    if (!parse_fixed(&s, 4, &y) || *s++ != '-' || !parse_fixed(&s, 2, &mo) || *s++ != '-' ||
        !parse_fixed(&s, 2, &d))
        return 0;
    if (*s != ' ' && *s != 'T')
        return 0;
    s++;
    if (!parse_fixed(&s, 2, &h) || *s++ != ':' || !parse_fixed(&s, 2, &mi) || *s++ != ':' ||
        !parse_fixed(&s, 2, &se))
        return 0;
    if (*s == '.') {
        s++;
        if (!parse_fixed(&s, 3, &milli))
            return 0;
    }
    if (*s == 'Z')
        s++;
    if (*s != '\0')
        return 0;
    static const unsigned mdays[12] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] || h > 23 || mi > 59 || se > 59)
        return 0;
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (mo == 2 && d == 29 && !leap)
        return 0;
    int64_t days = days_from_civil((int64_t)y, mo, d);
    *ms = ((days * 86400 + (int64_t)(h * 3600 + mi * 60 + se)) * 1000) + (int64_t)milli;
    return 1;
}

int main(int argc, char **argv)
{
    uint64_t events = 1000000, start = 0, seed = 1, rate = 10000;
    const char *base_time = "2015-07-15 00:00:00";
    const char *layout = "split";
    const char *out_path = NULL, *out_dir = NULL;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(USAGE, stdout);
            return 0;
        }
        if (strncmp(a, "--", 2) != 0)
            usage_error("unexpected argument '%s'", a);
        /* --opt=value or --opt value */
        char name[32];
        const char *val = NULL;
        const char *eq = strchr(a, '=');
        size_t nl = eq ? (size_t)(eq - a) : strlen(a);
        if (nl >= sizeof name)
            usage_error("unknown option '%s'", a);
        memcpy(name, a, nl);
        name[nl] = '\0';
        static const char *const known[] = { "--events", "--start",   "--seed", "--rate",
                                             "--base-time", "--layout", "--out", "--out-dir" };
        int ok = 0;
        for (size_t k = 0; k < NELEM(known); k++)
            if (strcmp(name, known[k]) == 0)
                ok = 1;
        if (!ok)
            usage_error("unknown option '%s'", a);
        if (eq) {
            val = eq + 1;
        } else {
            if (i + 1 >= argc)
                usage_error("%s needs a value", name);
            val = argv[++i];
        }

        if (strcmp(name, "--events") == 0)
            events = parse_u64(name, val, 0, (uint64_t)1 << 50);
        else if (strcmp(name, "--start") == 0)
            start = parse_u64(name, val, 0, (uint64_t)1 << 50);
        else if (strcmp(name, "--seed") == 0)
            seed = parse_u64(name, val, 0, UINT64_MAX);
        else if (strcmp(name, "--rate") == 0)
            rate = parse_u64(name, val, 1, 1000000000000ULL);
        else if (strcmp(name, "--base-time") == 0)
            base_time = val;
        else if (strcmp(name, "--layout") == 0)
            layout = val;
        else if (strcmp(name, "--out") == 0)
            out_path = val;
        else
            out_dir = val;
    }

    int combined = 0;
    if (strcmp(layout, "split") == 0)
        combined = 0;
    else if (strcmp(layout, "combined") == 0)
        combined = 1;
    else
        usage_error("--layout must be 'split' or 'combined', not '%s'", layout);

    if (!combined && !out_dir)
        usage_error("%s", "--layout split needs --out-dir DIR (or use --layout combined)");
    if (!combined && out_path)
        usage_error("%s", "--out is for --layout combined; split writes into --out-dir");
    if (combined && out_dir)
        usage_error("%s", "--out-dir is for --layout split; combined writes to --out or stdout");
    if (!parse_base_time(base_time, &g_base_ms))
        usage_error("--base-time '%s' is not a valid 'YYYY-MM-DD HH:MM:SS' UTC time", base_time);
    if (start + events > ((uint64_t)1 << 50))
        usage_error("%s", "--start + --events is too large");

    g_seed = seed;
    g_delay_us = 1000000.0 / (double)rate; /* * numEventGenerators (= 1) */
    init_tables();

    out_t outs[3];
    int nouts;
    if (combined) {
        out_open(&outs[0], out_path);
        nouts = 1;
    } else {
        if (mkdir(out_dir, 0777) != 0 && errno != EEXIST)
            die_io("cannot create directory", out_dir);
        static const char *const files[3] = { "person.jsonl", "auction.jsonl", "bid.jsonl" };
        size_t dl = strlen(out_dir);
        for (int k = 0; k < 3; k++) {
            char *path = malloc(dl + 32);
            if (!path) {
                fprintf(stderr, "nexmark_gen: out of memory\n");
                return 1;
            }
            memcpy(path, out_dir, dl);
            path[dl] = '/';
            strcpy(path + dl + 1, files[k]);
            out_open(&outs[k], path);
        }
        nouts = 3;
    }

    uint64_t seed_mix = mix64(g_seed ^ DOMAIN_EVENT);
    uint64_t end = start + events;
    int64_t rem = (int64_t)(start % TOTAL_PROPORTION);
    for (uint64_t n = start; n < end; n++) {
        int64_t eid = (int64_t)n; /* firstEventId = 0, outOfOrderGroupSize = 1 */
        int64_t ts = timestamp_for_event(eid);
        rng_t r;
        r.s = mix64(seed_mix ^ mix64((uint64_t)eid));
        int type = rem < PERSON_PROPORTION                        ? 0
                   : rem < PERSON_PROPORTION + AUCTION_PROPORTION ? 1
                                                                  : 2;
        if (++rem == TOTAL_PROPORTION)
            rem = 0;

        out_t *o = combined ? &outs[0] : &outs[type];
        char *p = out_reserve(o);
        if (combined) {
            p = PUT_LIT(p, "{\"event_type\":");
            *p++ = (char)('0' + type);
            p = PUT_LIT(p, ",\"person\":");
            if (type == 0)
                p = write_person(p, eid, ts, &r);
            else
                p = PUT_LIT(p, "null");
            p = PUT_LIT(p, ",\"auction\":");
            if (type == 1)
                p = write_auction(p, eid, ts, &r);
            else
                p = PUT_LIT(p, "null");
            p = PUT_LIT(p, ",\"bid\":");
            if (type == 2)
                p = write_bid(p, eid, ts, &r);
            else
                p = PUT_LIT(p, "null");
            *p++ = '}';
        } else if (type == 0) {
            p = write_person(p, eid, ts, &r);
        } else if (type == 1) {
            p = write_auction(p, eid, ts, &r);
        } else {
            p = write_bid(p, eid, ts, &r);
        }
        *p++ = '\n';
        out_commit(o, p);
    }

    for (int k = 0; k < nouts; k++) {
        out_close(&outs[k]);
        if (!combined)
            free((char *)outs[k].path);
    }
    return 0;
}
