/* vc_map.c — open addressing with linear probing and tombstones. */
#include "vc_map.h"

#include <errno.h>
#include <stdlib.h>

struct vc_map_slot {
    uint64_t key;
    void *value;   /* NULL: empty; TOMBSTONE: deleted */
};

static char tombstone_mark;
#define TOMBSTONE ((void *)&tombstone_mark)

static size_t hash(uint64_t key)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdull;
    key ^= key >> 33;
    return (size_t)key;
}

void vc_map_init(struct vc_map *m)
{
    m->slots = NULL;
    m->cap = m->used = m->live = 0;
}

void vc_map_free(struct vc_map *m)
{
    free(m->slots);
    vc_map_init(m);
}

static struct vc_map_slot *find(const struct vc_map *m, uint64_t key)
{
    if (!m->cap)
        return NULL;
    for (size_t i = hash(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        struct vc_map_slot *s = &m->slots[i];
        if (!s->value)
            return NULL;
        if (s->value != TOMBSTONE && s->key == key)
            return s;
    }
}

void *vc_map_get(const struct vc_map *m, uint64_t key)
{
    struct vc_map_slot *s = find(m, key);
    return s ? s->value : NULL;
}

static int grow(struct vc_map *m)
{
    size_t cap = m->cap ? m->cap : 16;
    while ((m->live + 1) * 2 > cap)
        cap *= 2;
    struct vc_map_slot *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return -ENOMEM;
    for (size_t i = 0; i < m->cap; i++) {
        struct vc_map_slot *s = &m->slots[i];
        if (!s->value || s->value == TOMBSTONE)
            continue;
        size_t j = hash(s->key) & (cap - 1);
        while (slots[j].value)
            j = (j + 1) & (cap - 1);
        slots[j] = *s;
    }
    free(m->slots);
    m->slots = slots;
    m->cap = cap;
    m->used = m->live;
    return 0;
}

int vc_map_put(struct vc_map *m, uint64_t key, void *value)
{
    if (find(m, key))
        return -EEXIST;
    if ((m->used + 1) * 4 > m->cap * 3 && grow(m))
        return -ENOMEM;
    for (size_t i = hash(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        struct vc_map_slot *s = &m->slots[i];
        if (!s->value || s->value == TOMBSTONE) {
            if (!s->value)
                m->used++;
            s->key = key;
            s->value = value;
            m->live++;
            return 0;
        }
    }
}

void *vc_map_del(struct vc_map *m, uint64_t key)
{
    struct vc_map_slot *s = find(m, key);
    if (!s)
        return NULL;
    void *v = s->value;
    s->value = TOMBSTONE;
    m->live--;
    return v;
}

void *vc_map_slot_value(const struct vc_map *m, size_t i)
{
    void *v = m->slots[i].value;
    return v == TOMBSTONE ? NULL : v;
}
