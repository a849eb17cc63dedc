/* vc_map.h — an open-addressing hash map from 64-bit keys (port/VPI/VCI) to pointers. */
#ifndef VC_MAP_H
#define VC_MAP_H

#include <stddef.h>
#include <stdint.h>

struct vc_map_slot;

struct vc_map {
    struct vc_map_slot *slots;
    size_t cap;    /* power of two, or 0 */
    size_t used;   /* live + deleted slots */
    size_t live;
};

void vc_map_init(struct vc_map *m);
void vc_map_free(struct vc_map *m);
void *vc_map_get(const struct vc_map *m, uint64_t key);
/* 0, -EEXIST, or -ENOMEM. value must not be NULL. */
int vc_map_put(struct vc_map *m, uint64_t key, void *value);
/* The value in slot i (0 <= i < m->cap), or NULL: for walking every entry. */
void *vc_map_slot_value(const struct vc_map *m, size_t i);
/* The removed value, or NULL. */
void *vc_map_del(struct vc_map *m, uint64_t key);

#endif
