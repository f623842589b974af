/*
 * header.c - the header of FORMAT §3.1: its checksum, its validation at open (§5 steps 1-4) and the
 * layout fingerprint of §3.4 it carries.
 * Twin of the Java class dev.hintmap.format.Header (the fingerprint: format.Layouts.fingerprint).
 *
 * Section references (§n) are to docs/FORMAT.md. Every atomic access to the mapping names its
 * memory order; the one-line comment next to it says why. Decisions that FORMAT.md leaves open
 * are marked "DECISION:". The library's internal interface is src/hm_internal.h.
 */
#define _GNU_SOURCE 1
#define HM_LIBRARY_SOURCE 1 /* this file is part of the library: hm_internal.h declares its internals */

#include "hm_internal.h"

#include <string.h>

/* The inputs come from the X-macro lists of hintmap_format.h (the only place the layout is
 * written down), as offsetof/sizeof of this build's structs, which the lists pin by
 * _Static_assert; the order of §3.4 is that of HM_LAYOUT_FINGERPRINT_SIZES/_OFFSETS. */
uint64_t hm_layout_fingerprint(void) {
    uint32_t v[64];
    unsigned n = 0;
    memset(v, 0, sizeof v); /* 6. zero fill to 64 values */
#define FP_V(x) v[n++] = (x);
#define FP_F(st, name, up, off, type) FP_V((uint32_t)offsetof(HM_CTYPE(st), name))
#define FP_A(st, name, up, off, type, cnt) FP_V((uint32_t)offsetof(HM_CTYPE(st), name))
    HM_LAYOUT_FINGERPRINT_SIZES(FP_V)                                      /* 1. sizes */
    HM_LAYOUT_FINGERPRINT_OFFSETS(FP_F, FP_A, HM_LAYOUT_SKIP_R, FP_F)     /* 2.-5. offsets */
#undef FP_A
#undef FP_F
#undef FP_V
    (void)n;
    return hm_hash64(v, sizeof v); /* u32 values little-endian: the target's own order */
}

uint32_t hm_format_version(void) { return HM_FORMAT_VERSION; }

uint64_t hmi_header_checksum(const hm_file_header *h) {
    return hm_hash64((const unsigned char *)h + HM_HDR_FORMAT_VERSION_OFFSET,
                     HM_HDR_HEADER_CHECKSUM_OFFSET - HM_HDR_FORMAT_VERSION_OFFSET);
}

/* §5 opening steps 1-4 on a header copy. */
int hmi_header_validate(hm_open_ctx *ctx, const hm_file_header *h, uint64_t size, hm_geometry *g) {
    if (size < HM_HEADER_BYTES)
        return OFAIL(ctx, HM_ETRUNCATED, "file is %llu bytes, shorter than the %u-byte header (truncated)",
                     (unsigned long long)size, HM_HEADER_BYTES);
    uint64_t magic = atomic_load_explicit(&h->magic, RLX); /* relaxed: a private copy read by pread */
    if (magic == 0)
        return OFAIL(ctx, HM_EUNFINISHED, "magic is 0: initialisation never finished (its creator died or is still creating it) [field magic]");
    if (magic != HM_MAGIC)
        return OFAIL(ctx, HM_ENOTHINT, "not a hint file: magic is 0x%016llx, expected 0x%016llx [field magic]",
                     (unsigned long long)magic, (unsigned long long)HM_MAGIC);
    /* §5 step 2: a v1 or v2 file gets its own message, naming the command that converts it (§12);
     * the message already starts "hintmap: <path>: " (hmi_msg_set), the command names the path again. */
    if (h->format_version == 1 || h->format_version == 2)
        return OFAIL(ctx, HM_EVERSION,
                     "hint file format version %u; this library reads version %u \u2014 convert it with: hintmap upgrade %s "
                     "(the hintmap command, a Java tool: hintmap-%s-bin.tar.gz, README \"Install the hintmap command\") "
                     "[field format_version]",
                     h->format_version, HM_FORMAT_VERSION, ctx->path, HM_VERSION_STRING);
    if (h->format_version != HM_FORMAT_VERSION)
        return OFAIL(ctx, HM_EVERSION, "format version %u was written by %s; this library reads version %u [field format_version]",
                     h->format_version, h->format_version > HM_FORMAT_VERSION ? "a newer hintmap" : "an unknown hintmap",
                     HM_FORMAT_VERSION);
    if (h->header_bytes != HM_HEADER_BYTES)
        return OFAIL(ctx, HM_EINCONSISTENT, "header_bytes is %u, expected %u [field header_bytes]", h->header_bytes, HM_HEADER_BYTES);
    uint64_t ck = hmi_header_checksum(h);
    if (ck != h->header_checksum)
        return OFAIL(ctx, HM_ECHECKSUM, "header is corrupt: checksum 0x%016llx does not match its contents (0x%016llx) [field header_checksum]",
                     (unsigned long long)h->header_checksum, (unsigned long long)ck);
    uint64_t fp = hm_layout_fingerprint();
    if (h->layout_fingerprint != fp)
        return OFAIL(ctx, HM_ELAYOUT, "written by a build with another binary layout (fingerprint 0x%016llx, this build 0x%016llx) [field layout_fingerprint]",
                     (unsigned long long)h->layout_fingerprint, (unsigned long long)fp);
    if (!hmi_capacity_valid(h->capacity))
        return OFAIL(ctx, HM_EINCONSISTENT, "capacity is %u, outside [0, %u] [field capacity]", h->capacity, HM_MAX_CAPACITY);
    /* Below HM_MIN_NAME_BYTES a stored form could not hold the whole digest (§1.1, §2): damaged. */
    if (!hmi_name_limit_valid(h->max_name_bytes))
        return OFAIL(ctx, HM_EINCONSISTENT,
                     "max_name_bytes is %u, outside [%u, %u] (the minimum holds a stored name's '~' and 32 hex digits) "
                     "[field max_name_bytes]",
                     h->max_name_bytes, HM_MIN_NAME_BYTES, HM_MAX_NAME_BYTES_LIMIT);
    if (h->hot_threshold_ns > HM_VALUE_MAX)
        return OFAIL(ctx, HM_EINCONSISTENT, "hot_threshold_ns is %llu, outside [0, 2^63-1] [field hot_threshold_ns]",
                     (unsigned long long)h->hot_threshold_ns);
    hmi_geometry_compute(h->capacity, h->max_name_bytes, g);
#define HM_REQ_EQ(field, expect)                                                                            \
    if ((uint64_t)h->field != (uint64_t)(expect))                                                           \
        return OFAIL(ctx, HM_EINCONSISTENT, #field " is %llu, expected %llu for this file's parameters [field " #field "]", \
                     (unsigned long long)h->field, (unsigned long long)(expect));
    HM_REQ_EQ(slot_bytes, g->slot_bytes)
    HM_REQ_EQ(index_entries, g->index_entries)
    HM_REQ_EQ(max_probe, g->max_probe)
    HM_REQ_EQ(writer_entries, g->writer_entries)
    HM_REQ_EQ(writer_table_offset, g->writer_table_offset)
    HM_REQ_EQ(index_offset, g->index_offset)
    HM_REQ_EQ(ref_table_offset, g->ref_table_offset)
    HM_REQ_EQ(slots_offset, g->slots_offset)
    HM_REQ_EQ(file_bytes, g->file_bytes)
#undef HM_REQ_EQ
    if (size != g->file_bytes)
        return OFAIL(ctx, size < g->file_bytes ? HM_ETRUNCATED : HM_EINCONSISTENT,
                     "file is %llu bytes but its header declares file_bytes %llu%s [field file_bytes]",
                     (unsigned long long)size, (unsigned long long)g->file_bytes,
                     size < g->file_bytes ? " (truncated)" : "");
    if ((uint64_t)(size_t)g->file_bytes != g->file_bytes)
        return OFAIL(ctx, HM_EINCONSISTENT, "file of %llu bytes cannot be mapped on this target", (unsigned long long)g->file_bytes);
    return HM_OK;
}
