/*
 * hmo_map.c - the OpenCL layer's tables (see hmo_map.h).
 */
#include "hmo_map.h"

#include <stdlib.h>
#include <string.h>

#include "hintmap.h"

/* A handle's address: its low bits are alignment zeros, so mix all of it (splitmix64's finaliser). */
static uint64_t mix(uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static size_t ptr_home(const hmo_ptrmap *m, const void *key) { return (size_t)mix((uint64_t)(uintptr_t)key) & (m->size - 1); }

static size_t ptr_find(const hmo_ptrmap *m, const void *key) {
    size_t i = ptr_home(m, key);
    while (m->keys[i] != NULL && m->keys[i] != key) i = (i + 1) & (m->size - 1);
    return i;
}

static int ptr_grow(hmo_ptrmap *m) {
    size_t size = m->size ? m->size * 2 : 64;
    if (size > HMO_MAP_MAX) return -1;
    hmo_ptrmap n = {calloc(size, sizeof *n.keys), calloc(size, sizeof *n.values), size, m->used};
    if (n.keys == NULL || n.values == NULL) {
        free(n.keys);
        free(n.values);
        return -1;
    }
    for (size_t i = 0; i < m->size; i++) {
        if (m->keys[i] == NULL) continue;
        size_t j = ptr_find(&n, m->keys[i]);
        n.keys[j] = m->keys[i];
        n.values[j] = m->values[i];
    }
    free(m->keys);
    free(m->values);
    *m = n;
    return 0;
}

int hmo_ptrmap_put(hmo_ptrmap *m, const void *key, uint64_t value) {
    if (key == NULL) return -1;
    size_t i = m->size ? ptr_find(m, key) : 0;
    if (m->size == 0 || m->keys[i] == NULL) {
        if ((m->used + 1) * 2 > m->size && ptr_grow(m) < 0 && (m->size == 0 || m->used + 2 > m->size))
            return -1; /* no room: always keep one empty entry, where lookups end */
        i = ptr_find(m, key);
        m->keys[i] = key;
        m->used++;
    }
    m->values[i] = value;
    return 0;
}

int hmo_ptrmap_get(const hmo_ptrmap *m, const void *key, uint64_t *value) {
    if (m->size == 0 || key == NULL) return 0;
    size_t i = ptr_find(m, key);
    if (m->keys[i] == NULL) return 0;
    if (value) *value = m->values[i];
    return 1;
}

int hmo_ptrmap_del(hmo_ptrmap *m, const void *key, uint64_t *value) {
    if (m->size == 0 || key == NULL) return 0;
    size_t mask = m->size - 1, i = ptr_find(m, key);
    if (m->keys[i] == NULL) return 0;
    if (value) *value = m->values[i];
    /* Backward shift: move each later entry of the run into the hole when its home does not lie
       cyclically in (hole, entry], so that every key stays reachable from its home. */
    size_t hole = i;
    for (size_t j = (i + 1) & mask; m->keys[j] != NULL; j = (j + 1) & mask) {
        size_t home = ptr_home(m, m->keys[j]);
        int stays = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
        if (stays) continue;
        m->keys[hole] = m->keys[j];
        m->values[hole] = m->values[j];
        hole = j;
    }
    m->keys[hole] = NULL;
    m->values[hole] = 0;
    m->used--;
    return 1;
}

void hmo_ptrmap_free(hmo_ptrmap *m) {
    free(m->keys);
    free(m->values);
    memset(m, 0, sizeof *m);
}

static size_t blob_find(const hmo_blob_entry *e, size_t size, uint64_t hash, const void *key, size_t len) {
    size_t i = (size_t)hash & (size - 1);
    while (e[i].key != NULL && !(e[i].hash == hash && e[i].len == len && memcmp(e[i].key, key, len) == 0))
        i = (i + 1) & (size - 1);
    return i;
}

static int blob_grow(hmo_blobmap *m) {
    size_t size = m->size ? m->size * 2 : 64;
    if (size > HMO_MAP_MAX) return -1;
    hmo_blob_entry *e = calloc(size, sizeof *e);
    if (e == NULL) return -1;
    for (size_t i = 0; i < m->size; i++)
        if (m->entries[i].key != NULL)
            e[blob_find(e, size, m->entries[i].hash, m->entries[i].key, m->entries[i].len)] = m->entries[i];
    free(m->entries);
    m->entries = e;
    m->size = size;
    return 0;
}

void *hmo_blobmap_get(const hmo_blobmap *m, const void *key, size_t len) {
    if (m->size == 0) return NULL;
    uint64_t hash = hm_hash64(key, len);
    return m->entries[blob_find(m->entries, m->size, hash, key, len)].value;
}

int hmo_blobmap_put(hmo_blobmap *m, const void *key, size_t len, void *value) {
    if (value == NULL || hmo_blobmap_get(m, key, len) != NULL) return -1; /* present: the caller looks up first */
    if ((m->used + 1) * 2 > m->size && blob_grow(m) < 0 && (m->size == 0 || m->used + 2 > m->size)) return -1;
    void *copy = malloc(len ? len : 1);
    if (copy == NULL) return -1;
    memcpy(copy, key, len);
    uint64_t hash = hm_hash64(key, len);
    m->entries[blob_find(m->entries, m->size, hash, key, len)] = (hmo_blob_entry){hash, copy, len, value};
    m->used++;
    return 0;
}

void hmo_blobmap_each(const hmo_blobmap *m, void (*each)(void *value, void *ctx), void *ctx) {
    for (size_t i = 0; i < m->size; i++)
        if (m->entries[i].key != NULL) each(m->entries[i].value, ctx);
}

void hmo_blobmap_free(hmo_blobmap *m) {
    for (size_t i = 0; i < m->size; i++) free(m->entries[i].key);
    free(m->entries);
    memset(m, 0, sizeof *m);
}
