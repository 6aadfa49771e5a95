/* String -> int map (see strmap.h). */
#include "base/strmap.h"

#include "base/arena.h"
#include "base/hash.h"

#include <stdlib.h>
#include <string.h>

void strmap_fini(StrMap *m)
{
    free(m->slots);
    m->slots = NULL;
    m->cap = m->count = 0;
}

static size_t slot_of(const StrMap *m, const char *key, size_t len)
{
    size_t mask = m->cap - 1;
    size_t i = (size_t)hash_bytes(key, len, 0) & mask;
    while (m->slots[i].key &&
           !(m->slots[i].len == len && memcmp(m->slots[i].key, key, len) == 0))
        i = (i + 1) & mask;
    return i;
}

int strmap_get_n(const StrMap *m, const char *key, size_t len)
{
    if (!m->count || !key) return -1;
    const StrMapSlot *s = &m->slots[slot_of(m, key, len)];
    return s->key ? s->value : -1;
}

int strmap_get(const StrMap *m, const char *key)
{
    return key ? strmap_get_n(m, key, strlen(key)) : -1;
}

static void grow(StrMap *m)
{
    StrMap n = {xcalloc(m->cap ? m->cap * 2 : 16, sizeof(StrMapSlot)), m->cap ? m->cap * 2 : 16,
                m->count};
    for (size_t i = 0; i < m->cap; i++)
        if (m->slots[i].key) n.slots[slot_of(&n, m->slots[i].key, m->slots[i].len)] = m->slots[i];
    free(m->slots);
    *m = n;
}

void strmap_put(StrMap *m, const char *key, int value)
{
    strmap_put_n(m, key, strlen(key), value);
}

void strmap_put_n(StrMap *m, const char *key, size_t len, int value)
{
    if ((m->count + 1) * 4 > m->cap * 3) grow(m);
    StrMapSlot *s = &m->slots[slot_of(m, key, len)];
    if (!s->key) {
        s->key = key;
        s->len = len;
        m->count++;
    }
    s->value = value;
}
