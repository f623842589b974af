/*
 * hm_internal.h - test hooks of libhintmap. Not part of the public API: only the
 * unit tests include it. They exist so that tests can simulate crashed writers
 * (a process that dies holding a lock or inside a structural change).
 */
#ifndef HM_INTERNAL_H
#define HM_INTERNAL_H

#include "hintmap.h"
#include "hintmap_format.h"

/** Base address of the store's mapping (the header), NULL for a closed store. */
void *hm_test_mapping(hm_store *s);
/** Size of the mapping in bytes. */
size_t hm_test_mapping_bytes(const hm_store *s);
/** This store's owner word (0 for read-only stores). */
uint64_t hm_test_owner(const hm_store *s);
/** Slot index of a LIVE region, or HM_ENOTFOUND / validation error. */
int hm_test_slot_of(hm_store *s, const char *name, size_t name_len, uint32_t *slot_out);
/** Acquires the slot lock of region `name` and returns without releasing it. */
int hm_test_hold_slot_lock(hm_store *s, const char *name, size_t name_len);
/** Acquires struct_lock and returns without releasing it. */
int hm_test_hold_struct_lock(hm_store *s);
/** Pointer to slot k (no bounds check beyond k < capacity; NULL otherwise). */
hm_slot *hm_test_slot(hm_store *s, uint32_t k);

#endif /* HM_INTERNAL_H */
