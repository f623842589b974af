/*
 * file_geometry.c - the geometry of a file from its capacity and max_name_bytes (FORMAT §2).
 * Twin of the Java class dev.hintmap.format.FileGeometry.
 *
 * Section references (§n) are to docs/FORMAT.md. Every atomic access to the mapping names its
 * memory order; the one-line comment next to it says why. Decisions that FORMAT.md leaves open
 * are marked "DECISION:". The library's internal interface is src/hm_internal.h.
 */
#define _GNU_SOURCE 1
#define HM_LIBRARY_SOURCE 1 /* this file is part of the library: hm_internal.h declares its internals */

#include "hm_internal.h"

static inline uint64_t roundup64(uint64_t v, uint64_t to) { return (v + to - 1) / to * to; }

void hmi_geometry_compute(uint32_t capacity, uint32_t max_name_bytes, hm_geometry *g) {
    uint64_t want = 2u * (uint64_t)capacity;
    uint64_t ie = 16;
    if (want < 16) want = 16;
    while (ie < want) ie <<= 1;
    g->capacity = capacity;
    g->max_name_bytes = max_name_bytes;
    g->slot_bytes = (uint32_t)(HM_SLOT_FIXED_BYTES + roundup64(max_name_bytes, 64));
    g->index_entries = (uint32_t)ie;
    g->max_probe = ie < HM_MAX_PROBE_LIMIT ? (uint32_t)ie : HM_MAX_PROBE_LIMIT;
    g->writer_entries = HM_WRITER_ENTRIES;
    g->writer_table_offset = HM_HEADER_BYTES;
    g->index_offset = roundup64(g->writer_table_offset + sizeof(hm_writer_entry) * (uint64_t)HM_WRITER_ENTRIES, 4096);
    g->ref_table_offset = roundup64(g->index_offset + HM_INDEX_ENTRY_BYTES * ie, 4096);
    g->slots_offset = roundup64(g->ref_table_offset + HM_REF_ENTRY_BYTES * (uint64_t)capacity, 4096);
    g->file_bytes = roundup64(g->slots_offset + (uint64_t)capacity * g->slot_bytes, 4096);
}
