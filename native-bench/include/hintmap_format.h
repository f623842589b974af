/*
 * hintmap_format.h - the on-disk structures of docs/FORMAT.md version 3: one X-macro field
 * list per struct of the file, from which the C structs, the HM_*_OFFSET constants, the
 * _Static_asserts against the tables of FORMAT.md and the layout fingerprint's inputs (§3.4)
 * are all expanded (see "the layout, once" below).
 *
 * C11 only (uses _Atomic); not needed by users of hintmap.h.
 */
#ifndef HINTMAP_FORMAT_H
#define HINTMAP_FORMAT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "hintmap files are little-endian; only little-endian targets (x86-64, AArch64) are supported"
#endif
#if ATOMIC_LLONG_LOCK_FREE != 2 || ATOMIC_LONG_LOCK_FREE != 2 || ATOMIC_INT_LOCK_FREE != 2 || ATOMIC_CHAR_LOCK_FREE != 2
#error "hintmap needs always-lock-free 8-, 32- and 64-bit atomics (they are shared between processes)"
#endif

#define HM_MAGIC               UINT64_C(0x0050414D544E4948) /* "HINTMAP\0" little-endian */
#define HM_FORMAT_VERSION      3u
#define HM_CACHE_LINE          64u
#define HM_WORD_BYTES          8u
#define HM_WRITER_ENTRY_BYTES  16u
#define HM_RECORD_COPY_BYTES   32u
#define HM_HEADER_BYTES        4096u
#define HM_WRITER_ENTRIES      1024u
#define HM_SLOT_FIXED_BYTES    128u
#define HM_MAX_PROBE_LIMIT     128u
#define HM_REF_ENTRY_BYTES     1u   /* §3.9: one reference byte per slot */
#define HM_VALUE_MAX           UINT64_C(0x7FFFFFFFFFFFFFFF) /* 2^63-1: counts, sums, maxima saturate here */
#define HM_TOKEN_START_BITS    42
#define HM_TOKEN_START_MASK    ((UINT64_C(1) << HM_TOKEN_START_BITS) - 1)

/*
 * hm_sat_add(a, b): THE saturating add of FORMAT §1/§7.1, the only one in the C code (records,
 * statistics counters, hm-floor); Java's is the same function. Contract:
 *   b is the caller's value, 0 <= b <= 2^63-1 (C clamps its inputs first, Java rejects negatives);
 *   a comes from the file and may be damaged (top bit set);
 *   result = a + b as unsigned 64-bit arithmetic, clamped to HM_VALUE_MAX = 2^63-1, so a damaged
 *   a (>= 2^63) gives HM_VALUE_MAX and no value with the top bit set is ever stored.
 * The one comparison needs no wider type: HM_VALUE_MAX - b cannot wrap for b in range, and
 * a > HM_VALUE_MAX - b is exactly "a + b > HM_VALUE_MAX" (true for every damaged a). A b above
 * the contract is clamped too, so that no caller's mistake can wrap either.
 */
static inline uint64_t hm_sat_add(uint64_t a, uint64_t b) {
    if (b > HM_VALUE_MAX) b = HM_VALUE_MAX;
    return a > HM_VALUE_MAX - b ? HM_VALUE_MAX : a + b;
}

/*
 * The rules on one record (FORMAT §7.2.1, §3.1), each the only one in the C code; Java's are
 * format/RecordRules, with the same arithmetic. A mean is compared with a bound by multiplying,
 * exactly and without overflow (hm_product_or_above): floor(total / count) >= b is total >= b * count, and
 * floor(total / count) <= b is total < (b + 1) * count (a 64-bit division costs more than the
 * rest of a record read, and every read checks soundness).
 *
 * hm_record_sound: the record a writer publishes, the one a reader returns (hmi_slot_read) and
 * recovery keeps (§8 step 2c): dispatch_count > 0, kernel_ns_max <= kernel_ns_total,
 * floor(kernel_ns_total / dispatch_count) <= kernel_ns_max, every field <= 2^63-1. A record that
 * breaks one comes from a damaged file.
 */
/* a * b when it fits in 64 bits, else a value above HM_VALUE_MAX (so above any sound total):
 * exact for every comparison with a total. Neither a division nor 128 bits on the common path
 * (both below 2^32); the division only for a count or bound of 2^32 and more. */
static inline uint64_t hm_product_or_above(uint64_t a, uint64_t b) {
    if (((a | b) >> 32) == 0) return a * b;
    if (a != 0 && b > HM_VALUE_MAX / a) return HM_VALUE_MAX + 1;
    return a * b;
}

static inline int hm_record_sound(uint64_t count, uint64_t total, uint64_t max, uint64_t bytes) {
    return count != 0 && count <= HM_VALUE_MAX && total <= HM_VALUE_MAX && max <= total && bytes <= HM_VALUE_MAX &&
           total < hm_product_or_above(max + 1, count);
}

/* hm_record_mean: floor(total / count), 0 when count is 0 (hm_mean_kernel_ns; Java RecordRules.mean). */
static inline uint64_t hm_record_mean(uint64_t count, uint64_t total) {
    return count == 0 ? 0 : total / count;
}

/* hm_record_hot: count > 0 and floor(total / count) >= threshold_ns (hm_is_hot); a record without
 * dispatches has no mean and is never hot, as an absent region is not. */
static inline int hm_record_hot(uint64_t count, uint64_t total, uint64_t threshold_ns) {
    return count != 0 && total >= hm_product_or_above(threshold_ns, count);
}

/*
 * ---- the layout, once ----
 *
 * Each struct of FORMAT §3 is ONE X-macro field list below; everything else is expanded from it:
 * the C structs, the HM_*_OFFSET constants, the _Static_asserts (offsetof/sizeof of the structs
 * against the offsets written in the list, i.e. the tables of FORMAT.md), the input list of the
 * layout fingerprint (§3.4, hm_layout_fingerprint) and the canonical description of the layout
 * (hm-layout, compared with src/test/resources/vectors/layout.txt and so with Java's
 * Layouts.describe()). A field added here therefore changes the fingerprint and the description,
 * and `make test` fails until FORMAT.md, the Java layouts and the vector agree with it.
 *
 * A list is applied to four macros, one per kind of row (st = the struct's name in the
 * description, UP = the suffix of its HM_..._OFFSET constant, off = its FORMAT offset):
 *   F(st, name, UP, off, type)       a named field
 *   A(st, name, UP, off, type, n)    a named field of n elements (the slot's two record copies)
 *   R(st, name, off, bytes)          reserved bytes (zero; unnamed in FORMAT, no fingerprint input)
 *   T(st, name, UP, off, type)       the variable tail after the fixed part (the slot's name
 *                                    words): a fingerprint input, not part of the struct's size
 * Rows are in offset order. Fields FORMAT.md accesses atomically are _Atomic here, so that each
 * access names its memory order (atomic_load_explicit / atomic_store_explicit / CAS).
 */

/* §3.1-3.3 header, 4096 bytes at offset 0 */
#define HM_LAYOUT_HEADER(F, A, R, T)                                                            \
    /* line 0-1: immutable (0..127), written by the creator; magic release-stored last */      \
    F(header, magic,               HDR_MAGIC,               0, _Atomic uint64_t)                \
    F(header, format_version,      HDR_FORMAT_VERSION,      8, uint32_t)                        \
    F(header, header_bytes,        HDR_HEADER_BYTES,       12, uint32_t)                        \
    F(header, layout_fingerprint,  HDR_LAYOUT_FINGERPRINT, 16, uint64_t)                        \
    F(header, capacity,            HDR_CAPACITY,           24, uint32_t)                        \
    F(header, max_name_bytes,      HDR_MAX_NAME_BYTES,     28, uint32_t)                        \
    F(header, slot_bytes,          HDR_SLOT_BYTES,         32, uint32_t)                        \
    F(header, index_entries,       HDR_INDEX_ENTRIES,      36, uint32_t)                        \
    F(header, max_probe,           HDR_MAX_PROBE,          40, uint32_t)                        \
    F(header, writer_entries,      HDR_WRITER_ENTRIES,     44, uint32_t)                        \
    F(header, hot_threshold_ns,    HDR_HOT_THRESHOLD_NS,   48, uint64_t)                        \
    F(header, created_epoch_ms,    HDR_CREATED_EPOCH_MS,   56, uint64_t)                        \
    F(header, writer_table_offset, HDR_WRITER_TABLE_OFFSET, 64, uint64_t)                       \
    F(header, index_offset,        HDR_INDEX_OFFSET,       72, uint64_t)                        \
    F(header, slots_offset,        HDR_SLOTS_OFFSET,       80, uint64_t)                        \
    F(header, file_bytes,          HDR_FILE_BYTES,         88, uint64_t)                        \
    F(header, ref_table_offset,    HDR_REF_TABLE_OFFSET,   96, uint64_t) /* v2 */                \
    R(header, reserved0,                                  104, 16)                              \
    F(header, header_checksum,     HDR_HEADER_CHECKSUM,   120, uint64_t) /* hm64(bytes[8,120)) */ \
    /* line 2: coordination (128..191) */                                                       \
    F(header, struct_lock,         HDR_STRUCT_LOCK,       128, _Atomic uint64_t)                \
    F(header, journal_slot,        HDR_JOURNAL_SLOT,      136, _Atomic uint64_t)                \
    F(header, index_seq,           HDR_INDEX_SEQ,         144, _Atomic uint64_t)                \
    F(header, clock_hand,          HDR_CLOCK_HAND,        152, _Atomic uint64_t)                \
    F(header, live_count,          HDR_LIVE_COUNT,        160, _Atomic uint64_t)                \
    F(header, high_water,          HDR_HIGH_WATER,        168, _Atomic uint64_t)                \
    F(header, evictions,           HDR_EVICTIONS,         176, _Atomic uint64_t)                \
    F(header, recoveries,          HDR_RECOVERIES,        184, _Atomic uint64_t)                \
    /* line 3: statistics (192..255) */                                                         \
    F(header, dropped_inserts,     HDR_DROPPED_INSERTS,   192, _Atomic uint64_t)                \
    F(header, stolen_locks,        HDR_STOLEN_LOCKS,      200, _Atomic uint64_t)                \
    R(header, reserved3,                                  208, 48)                              \
    R(header, reserved_tail,                              256, HM_HEADER_BYTES - 256)

/* §3.5 writer table entry, 16 bytes */
#define HM_LAYOUT_WRITER_ENTRY(F, A, R, T)                                                      \
    F(writer_entry, token,      WRITER_TOKEN,      0, _Atomic uint64_t) /* 0 = free, else pid << 42 | starttime */ \
    F(writer_entry, generation, WRITER_GENERATION, 8, _Atomic uint64_t) /* +1 by each new holder (release) */

/* §3.7 record copy, 32 bytes */
#define HM_LAYOUT_RECORD_COPY(F, A, R, T)                                                       \
    F(record_copy, dispatch_count,  REC_DISPATCH_COUNT,   0, _Atomic uint64_t)                  \
    F(record_copy, kernel_ns_total, REC_KERNEL_NS_TOTAL,  8, _Atomic uint64_t)                  \
    F(record_copy, kernel_ns_max,   REC_KERNEL_NS_MAX,   16, _Atomic uint64_t)                  \
    F(record_copy, bytes_total,     REC_BYTES_TOTAL,     24, _Atomic uint64_t)

/* §3.6 slot: control line + record line (128 bytes), then the name words */
#define HM_LAYOUT_SLOT_FIXED(F, A, R, T)                                                        \
    F(slot_fixed, lock,       SLOT_LOCK,        0, _Atomic uint64_t) /* owner word, 0 = free */ \
    F(slot_fixed, seq,        SLOT_SEQ,         8, _Atomic uint64_t) /* current copy = copies[seq & 1] */ \
    F(slot_fixed, gen,        SLOT_GEN,        16, _Atomic uint64_t) /* even = stable, odd = BUSY */ \
    F(slot_fixed, hash,       SLOT_HASH,       24, _Atomic uint64_t) /* hm64(name) */           \
    F(slot_fixed, name_len,   SLOT_NAME_LEN,   32, _Atomic uint32_t) /* 0 = FREE */             \
    /* 36..63 reserved: v1 kept `referenced` at 36; v2 moved it to the reference table (§3.9) */ \
    R(slot_fixed, reserved,                    36, 28)                                          \
    A(slot_fixed, copies,     SLOT_COPIES,     64, hm_record_copy, 2)                           \
    /* UTF-8 bytes, zero padded to roundup(max_name_bytes, 64), read as little-endian words */  \
    T(slot_fixed, name,       SLOT_NAME,      128, _Atomic uint64_t)

/* The C type and FORMAT size of each struct, by its name in the lists. */
#define HM_CTYPE_header       hm_file_header
#define HM_CTYPE_writer_entry hm_writer_entry
#define HM_CTYPE_record_copy  hm_record_copy
#define HM_CTYPE_slot_fixed   hm_slot
#define HM_BYTES_header       HM_HEADER_BYTES
#define HM_BYTES_writer_entry HM_WRITER_ENTRY_BYTES
#define HM_BYTES_record_copy  HM_RECORD_COPY_BYTES
#define HM_BYTES_slot_fixed   HM_SLOT_FIXED_BYTES
#define HM_CTYPE(st) HM_CTYPE_##st

/* A row kind that expands to nothing, for expansions that skip a kind. */
#define HM_LAYOUT_SKIP_F(st, name, up, off, type)
#define HM_LAYOUT_SKIP_A(st, name, up, off, type, n)
#define HM_LAYOUT_SKIP_R(st, name, off, bytes)
#define HM_LAYOUT_SKIP_T(st, name, up, off, type)

/* ---- the structs */
#define HM_DECL_F(st, name, up, off, type) type name;
#define HM_DECL_A(st, name, up, off, type, n) type name[n];
#define HM_DECL_R(st, name, off, bytes) uint8_t name[bytes];
#define HM_DECL_T(st, name, up, off, type) type name[];

typedef struct hm_file_header { HM_LAYOUT_HEADER(HM_DECL_F, HM_DECL_A, HM_DECL_R, HM_DECL_T) } hm_file_header;
typedef struct hm_writer_entry { HM_LAYOUT_WRITER_ENTRY(HM_DECL_F, HM_DECL_A, HM_DECL_R, HM_DECL_T) } hm_writer_entry;
typedef struct hm_record_copy { HM_LAYOUT_RECORD_COPY(HM_DECL_F, HM_DECL_A, HM_DECL_R, HM_DECL_T) } hm_record_copy;
typedef struct hm_slot { HM_LAYOUT_SLOT_FIXED(HM_DECL_F, HM_DECL_A, HM_DECL_R, HM_DECL_T) } hm_slot;

/* ---- the offsets: HM_HDR_MAGIC_OFFSET, ..., HM_SLOT_NAME_OFFSET, HM_REC_*, HM_WRITER_* */
#define HM_OFF_F(st, name, up, off, type) HM_##up##_OFFSET = (off),
#define HM_OFF_A(st, name, up, off, type, n) HM_##up##_OFFSET = (off),
enum hm_layout_offsets {
    HM_LAYOUT_HEADER(HM_OFF_F, HM_OFF_A, HM_LAYOUT_SKIP_R, HM_OFF_F)
    HM_LAYOUT_WRITER_ENTRY(HM_OFF_F, HM_OFF_A, HM_LAYOUT_SKIP_R, HM_OFF_F)
    HM_LAYOUT_RECORD_COPY(HM_OFF_F, HM_OFF_A, HM_LAYOUT_SKIP_R, HM_OFF_F)
    HM_LAYOUT_SLOT_FIXED(HM_OFF_F, HM_OFF_A, HM_LAYOUT_SKIP_R, HM_OFF_F)
};

#define HM_INDEX_ENTRY_BYTES sizeof(_Atomic uint64_t)

/* §3.8 index entry: tag = hash >> 34 (bits 34..63) | dist (bits 27..33) | slot + 1 (bits 0..26);
 * 0 = empty. dist = (j - home) mod index_entries, the entry's probe position from its home. */
#define HM_INDEX_SLOT_BITS   27
#define HM_INDEX_DIST_BITS   7
#define HM_INDEX_DIST_SHIFT  27
#define HM_INDEX_TAG_SHIFT   34
#define HM_INDEX_SLOT_MASK   ((UINT64_C(1) << HM_INDEX_SLOT_BITS) - 1)
#define HM_INDEX_DIST_MASK   ((UINT64_C(1) << HM_INDEX_DIST_BITS) - 1)
_Static_assert(HM_INDEX_DIST_SHIFT == HM_INDEX_SLOT_BITS && HM_INDEX_TAG_SHIFT == HM_INDEX_DIST_SHIFT + HM_INDEX_DIST_BITS,
               "FORMAT.md section 3.8: slot, dist and tag fields are adjacent");
_Static_assert(HM_MAX_PROBE_LIMIT - 1 <= HM_INDEX_DIST_MASK, "FORMAT.md section 3.8: every dist < max_probe fits 7 bits");
_Static_assert((UINT64_C(1) << 26) <= HM_INDEX_SLOT_MASK, "FORMAT.md section 3.8: slot + 1 <= 2^26 fits 27 bits");

/* The entry of a hash at probe position dist naming slot k. */
static inline uint64_t hm_index_entry(uint64_t hash, uint32_t dist, uint32_t k) {
    return (hash >> HM_INDEX_TAG_SHIFT) << HM_INDEX_TAG_SHIFT | ((uint64_t)dist & HM_INDEX_DIST_MASK) << HM_INDEX_DIST_SHIFT |
           (((uint64_t)k + 1) & HM_INDEX_SLOT_MASK);
}
/* An entry's fields: its tag (hash >> 34), its dist, and its slot field (slot + 1, 0 names none). */
static inline uint64_t hm_index_tag(uint64_t e) { return e >> HM_INDEX_TAG_SHIFT; }
static inline uint32_t hm_index_dist(uint64_t e) { return (uint32_t)(e >> HM_INDEX_DIST_SHIFT & HM_INDEX_DIST_MASK); }
static inline uint64_t hm_index_slot1(uint64_t e) { return e & HM_INDEX_SLOT_MASK; }
/* The same entry with another dist (backward-shift deletion, §7.4 step 8). */
static inline uint64_t hm_index_with_dist(uint64_t e, uint32_t dist) {
    return (e & ~(HM_INDEX_DIST_MASK << HM_INDEX_DIST_SHIFT)) | ((uint64_t)dist & HM_INDEX_DIST_MASK) << HM_INDEX_DIST_SHIFT;
}

/* ---- pinned: every row's offset is where the compiler put the member, every struct has its
 * FORMAT size, and the rows' sizes add up to it (no padding the list does not name as R), so a
 * row cannot be moved, resized or slipped into reserved space without the list saying so. */
#define HM_PIN_AT(st, name, off)                                                                \
    _Static_assert(offsetof(HM_CTYPE(st), name) == (off), "FORMAT.md section 3: " #st "." #name " sits at offset " #off);
#define HM_PIN_F(st, name, up, off, type) HM_PIN_AT(st, name, off)
#define HM_PIN_A(st, name, up, off, type, n) HM_PIN_AT(st, name, off)
#define HM_PIN_R(st, name, off, bytes) HM_PIN_AT(st, name, off)
#define HM_PIN_T(st, name, up, off, type)                                                       \
    HM_PIN_AT(st, name, off)                                                                    \
    _Static_assert(sizeof(HM_CTYPE(st)) == (off), "FORMAT.md section 3: " #st "." #name " follows the fixed part");

HM_LAYOUT_HEADER(HM_PIN_F, HM_PIN_A, HM_PIN_R, HM_PIN_T)
HM_LAYOUT_WRITER_ENTRY(HM_PIN_F, HM_PIN_A, HM_PIN_R, HM_PIN_T)
HM_LAYOUT_RECORD_COPY(HM_PIN_F, HM_PIN_A, HM_PIN_R, HM_PIN_T)
HM_LAYOUT_SLOT_FIXED(HM_PIN_F, HM_PIN_A, HM_PIN_R, HM_PIN_T)

#define HM_SUM_F(st, name, up, off, type) +sizeof(((HM_CTYPE(st) *)0)->name)
#define HM_SUM_A(st, name, up, off, type, n) +sizeof(((HM_CTYPE(st) *)0)->name)
#define HM_SUM_R(st, name, off, bytes) +(size_t)(bytes)
#define HM_PIN_SIZE(st, LIST)                                                                   \
    _Static_assert(sizeof(HM_CTYPE(st)) == HM_BYTES_##st, "FORMAT.md section 3: " #st " size");          \
    _Static_assert(0 LIST(HM_SUM_F, HM_SUM_A, HM_SUM_R, HM_LAYOUT_SKIP_T) == HM_BYTES_##st,    \
                   "FORMAT.md section 3: the rows of " #st " cover it with no unnamed padding");
HM_PIN_SIZE(header, HM_LAYOUT_HEADER)
HM_PIN_SIZE(writer_entry, HM_LAYOUT_WRITER_ENTRY)
HM_PIN_SIZE(record_copy, HM_LAYOUT_RECORD_COPY)
HM_PIN_SIZE(slot_fixed, HM_LAYOUT_SLOT_FIXED)

_Static_assert(sizeof(_Atomic uint64_t) == 8 && _Alignof(_Atomic uint64_t) == 8, "u64 atomics are 8-byte aligned words");
_Static_assert(sizeof(_Atomic uint32_t) == 4 && _Alignof(_Atomic uint32_t) == 4, "u32 atomics are 4-byte aligned words");
_Static_assert(sizeof(_Atomic uint8_t) == HM_REF_ENTRY_BYTES, "FORMAT.md section 3.9: a reference entry is one atomic byte");
_Static_assert(HM_INDEX_ENTRY_BYTES == 8, "FORMAT.md section 3.8: an index entry is 8 bytes");

/* ---- the fingerprint inputs of §3.4, in its order: the sizes (V(value) per input; v2 adds
 * the reference entry bytes and the index entry's slot and distance bits), then the offsets of
 * the named fields (F, A and T rows; R rows are no input) of the header, the slot, the record
 * copy and the writer entry. hm_layout_fingerprint() expands these two. */
#define HM_LAYOUT_FINGERPRINT_SIZES(V)                                                          \
    V(HM_CACHE_LINE) V(HM_WORD_BYTES) V((uint32_t)sizeof(hm_file_header))                     \
    V((uint32_t)sizeof(hm_writer_entry)) V((uint32_t)HM_INDEX_ENTRY_BYTES)                    \
    V((uint32_t)sizeof(hm_slot)) V((uint32_t)sizeof(hm_record_copy))                          \
    V((uint32_t)sizeof(_Atomic uint8_t)) V((uint32_t)HM_INDEX_SLOT_BITS) V((uint32_t)HM_INDEX_DIST_BITS)
#define HM_LAYOUT_FINGERPRINT_OFFSETS(F, A, R, T)                                               \
    HM_LAYOUT_HEADER(F, A, R, T) HM_LAYOUT_SLOT_FIXED(F, A, R, T)                               \
    HM_LAYOUT_RECORD_COPY(F, A, R, T) HM_LAYOUT_WRITER_ENTRY(F, A, R, T)
#define HM_FP_COUNT_V(x) +1
#define HM_FP_COUNT_F(st, name, up, off, type) +1
#define HM_FP_COUNT_A(st, name, up, off, type, n) +1
#define HM_LAYOUT_FINGERPRINT_COUNT                                                             \
    (0 HM_LAYOUT_FINGERPRINT_SIZES(HM_FP_COUNT_V)                                               \
       HM_LAYOUT_FINGERPRINT_OFFSETS(HM_FP_COUNT_F, HM_FP_COUNT_A, HM_LAYOUT_SKIP_R, HM_FP_COUNT_F))
_Static_assert(HM_LAYOUT_FINGERPRINT_COUNT <= 64, "FORMAT.md section 3.4: at most 64 fingerprint inputs (zero-filled to 64)");

#endif /* HINTMAP_FORMAT_H */
