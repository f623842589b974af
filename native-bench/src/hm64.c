/*
 * hm64.c - hm64, the name hash of FORMAT §4.
 * Twin of the Java class dev.hintmap.format.Hm64.
 *
 * Section references (§n) are to docs/FORMAT.md. Every atomic access to the mapping names its
 * memory order; the one-line comment next to it says why. Decisions that FORMAT.md leaves open
 * are marked "DECISION:". The library's internal interface is src/hm_internal.h.
 */
#define _GNU_SOURCE 1
#define HM_LIBRARY_SOURCE 1 /* this file is part of the library: hm_internal.h declares its internals */

#include "hm_internal.h"

#include <string.h>

/* The constants, mum and the word loop are inline in hm_internal.h (the record path hashes every
 * name); this file has the byte form. */

uint64_t hm_hash64(const void *bytes, size_t len) {
    const unsigned char *p = bytes;
    uint64_t h = HM_P0 ^ (uint64_t)len;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8); /* little-endian target (checked in hintmap_format.h) */
        h = hm64_mum(h ^ w, HM_P1);
    }
    if (i < len) {
        uint64_t w = 0;
        memcpy(&w, p + i, len - i);
        h = hm64_mum(h ^ w, HM_P1);
    }
    return hm64_mum(h ^ HM_P2, HM_P1);
}
