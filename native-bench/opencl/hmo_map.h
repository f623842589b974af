/*
 * hmo_map.h - the OpenCL layer's two tables: open addressing, linear probing, a power-of-two size
 * that doubles at half full (up to HMO_MAP_MAX entries; past it a put fails and the caller goes on
 * without the entry). Not thread-safe: the layer calls them under its lock.
 *
 *   hmo_ptrmap   an object handle (cl_kernel, cl_mem) -> a 64-bit value; entries are removed
 *                (backward shift, no tombstones), since handles die and their addresses come back
 *   hmo_blobmap  a byte string (a kernel's name, a launch shape) -> a pointer; the key is copied;
 *                entries live as long as the map
 */
#ifndef HMO_MAP_H
#define HMO_MAP_H

#include <stddef.h>
#include <stdint.h>

#define HMO_MAP_MAX ((size_t)1 << 24)

typedef struct hmo_ptrmap {
    const void **keys; /* NULL: empty */
    uint64_t *values;
    size_t size, used;
} hmo_ptrmap;

/** Sets key's value (key != NULL): 0, or -1 when no memory (or the map is full); the map is unchanged then. */
int hmo_ptrmap_put(hmo_ptrmap *m, const void *key, uint64_t value);
/** 1 and *value (value may be NULL) when key is there, else 0. */
int hmo_ptrmap_get(const hmo_ptrmap *m, const void *key, uint64_t *value);
/** Removes key: 1 and its *value (value may be NULL), or 0 when it was not there. */
int hmo_ptrmap_del(hmo_ptrmap *m, const void *key, uint64_t *value);
/** Frees the table (not what values point to); the map is empty and usable again. */
void hmo_ptrmap_free(hmo_ptrmap *m);

typedef struct hmo_blob_entry {
    uint64_t hash;
    void *key; /* NULL: empty */
    size_t len;
    void *value;
} hmo_blob_entry;

typedef struct hmo_blobmap {
    hmo_blob_entry *entries;
    size_t size, used;
} hmo_blobmap;

/** The value of key[0..len), or NULL. */
void *hmo_blobmap_get(const hmo_blobmap *m, const void *key, size_t len);
/** Adds key (absent) with value != NULL: 0, or -1 when no memory (or the map is full). */
int hmo_blobmap_put(hmo_blobmap *m, const void *key, size_t len, void *value);
/** Calls each(value, ctx) for every entry (ctx may be anything). */
void hmo_blobmap_each(const hmo_blobmap *m, void (*each)(void *value, void *ctx), void *ctx);
/** Frees the table and the keys (not the values); the map is empty and usable again. */
void hmo_blobmap_free(hmo_blobmap *m);

#endif /* HMO_MAP_H */
