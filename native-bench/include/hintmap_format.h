/*
 * hintmap_format.h - the on-disk structures of docs/FORMAT.md version 1, one C
 * struct per region of the file, with HM_*_OFFSET macros derived by offsetof and
 * pinned by _Static_assert against the tables of FORMAT.md.
 *
 * C11 only (uses _Atomic); not needed by users of hintmap.h. Every field that
 * FORMAT.md accesses atomically is _Atomic here, so that each access names its
 * memory order (atomic_load_explicit / atomic_store_explicit / CAS).
 */
#ifndef HINTMAP_FORMAT_H
#define HINTMAP_FORMAT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "hintmap files are little-endian; only little-endian targets (x86-64, AArch64) are supported"
#endif
#if ATOMIC_LLONG_LOCK_FREE != 2 || ATOMIC_LONG_LOCK_FREE != 2 || ATOMIC_INT_LOCK_FREE != 2
#error "hintmap needs always-lock-free 32- and 64-bit atomics (they are shared between processes)"
#endif

#define HM_MAGIC               UINT64_C(0x0050414D544E4948) /* "HINTMAP\0" little-endian */
#define HM_FORMAT_VERSION      1u
#define HM_CACHE_LINE          64u
#define HM_WORD_BYTES          8u
#define HM_HEADER_BYTES        4096u
#define HM_WRITER_ENTRIES      1024u
#define HM_SLOT_FIXED_BYTES    128u
#define HM_MAX_PROBE_LIMIT     128u
#define HM_VALUE_MAX           UINT64_C(0x7FFFFFFFFFFFFFFF) /* 2^63-1: counts, sums, maxima saturate here */
#define HM_TOKEN_START_BITS    42
#define HM_TOKEN_START_MASK    ((UINT64_C(1) << HM_TOKEN_START_BITS) - 1)

/* ---- §3.1-3.3 header, 4096 bytes at offset 0 ---- */
typedef struct hm_file_header {
    /* line 0: immutable (0..127) */
    _Atomic uint64_t magic;            /*   0  release-stored last by the creator   */
    uint32_t format_version;           /*   8 */
    uint32_t header_bytes;             /*  12 */
    uint64_t layout_fingerprint;       /*  16 */
    uint32_t capacity;                 /*  24 */
    uint32_t max_name_bytes;           /*  28 */
    uint32_t slot_bytes;               /*  32 */
    uint32_t index_entries;            /*  36 */
    uint32_t max_probe;                /*  40 */
    uint32_t writer_entries;           /*  44 */
    uint64_t hot_threshold_ns;         /*  48 */
    uint64_t created_epoch_ms;         /*  56 */
    uint64_t writer_table_offset;      /*  64 */
    uint64_t index_offset;             /*  72 */
    uint64_t slots_offset;             /*  80 */
    uint64_t file_bytes;               /*  88 */
    uint8_t  reserved0[24];            /*  96 */
    uint64_t header_checksum;          /* 120  hm64(bytes[8,120)) */
    /* line 2: coordination (128..191) */
    _Atomic uint64_t struct_lock;      /* 128 */
    _Atomic uint64_t journal_slot;     /* 136 */
    _Atomic uint64_t index_seq;        /* 144 */
    _Atomic uint64_t clock_hand;       /* 152 */
    _Atomic uint64_t live_count;       /* 160 */
    _Atomic uint64_t high_water;       /* 168 */
    _Atomic uint64_t evictions;        /* 176 */
    _Atomic uint64_t recoveries;       /* 184 */
    /* line 3: statistics (192..255) */
    _Atomic uint64_t dropped_inserts;  /* 192 */
    _Atomic uint64_t stolen_locks;     /* 200 */
    uint8_t  reserved3[48];            /* 208 */
    uint8_t  reserved_tail[HM_HEADER_BYTES - 256]; /* 256..4095 */
} hm_file_header;

/* ---- §3.5 writer table entry, 16 bytes ---- */
typedef struct hm_writer_entry {
    _Atomic uint64_t token;       /* 0: 0 = free, else pid << 42 | starttime & (2^42-1) */
    _Atomic uint64_t generation;  /* 8: +1 by each new holder (release)                   */
} hm_writer_entry;

/* ---- §3.7 record copy, 32 bytes ---- */
typedef struct hm_record_copy {
    _Atomic uint64_t dispatch_count;   /*  0 */
    _Atomic uint64_t kernel_ns_total;  /*  8 */
    _Atomic uint64_t kernel_ns_max;    /* 16 */
    _Atomic uint64_t bytes_total;      /* 24 */
} hm_record_copy;

/* ---- §3.6 slot: control line + record line (128 bytes), then name words ---- */
typedef struct hm_slot {
    _Atomic uint64_t lock;        /*   0 owner word, 0 = free             */
    _Atomic uint64_t seq;         /*   8 current copy = copies[seq & 1]   */
    _Atomic uint64_t gen;         /*  16 even = stable, odd = BUSY        */
    _Atomic uint64_t hash;        /*  24 hm64(name)                       */
    _Atomic uint32_t name_len;    /*  32 0 = FREE                          */
    _Atomic uint32_t referenced;  /*  36 CLOCK bit                         */
    uint8_t reserved[24];         /*  40 */
    hm_record_copy copies[2];     /*  64 */
    _Atomic uint64_t name[];      /* 128 UTF-8 bytes, zero padded to roundup(mnb, 64), read as LE words */
} hm_slot;

/* ---- offsets ---- */
#define HM_HDR_MAGIC_OFFSET               offsetof(hm_file_header, magic)
#define HM_HDR_FORMAT_VERSION_OFFSET      offsetof(hm_file_header, format_version)
#define HM_HDR_HEADER_BYTES_OFFSET        offsetof(hm_file_header, header_bytes)
#define HM_HDR_LAYOUT_FINGERPRINT_OFFSET  offsetof(hm_file_header, layout_fingerprint)
#define HM_HDR_CAPACITY_OFFSET            offsetof(hm_file_header, capacity)
#define HM_HDR_MAX_NAME_BYTES_OFFSET      offsetof(hm_file_header, max_name_bytes)
#define HM_HDR_SLOT_BYTES_OFFSET          offsetof(hm_file_header, slot_bytes)
#define HM_HDR_INDEX_ENTRIES_OFFSET       offsetof(hm_file_header, index_entries)
#define HM_HDR_MAX_PROBE_OFFSET           offsetof(hm_file_header, max_probe)
#define HM_HDR_WRITER_ENTRIES_OFFSET      offsetof(hm_file_header, writer_entries)
#define HM_HDR_HOT_THRESHOLD_NS_OFFSET    offsetof(hm_file_header, hot_threshold_ns)
#define HM_HDR_CREATED_EPOCH_MS_OFFSET    offsetof(hm_file_header, created_epoch_ms)
#define HM_HDR_WRITER_TABLE_OFFSET_OFFSET offsetof(hm_file_header, writer_table_offset)
#define HM_HDR_INDEX_OFFSET_OFFSET        offsetof(hm_file_header, index_offset)
#define HM_HDR_SLOTS_OFFSET_OFFSET        offsetof(hm_file_header, slots_offset)
#define HM_HDR_FILE_BYTES_OFFSET          offsetof(hm_file_header, file_bytes)
#define HM_HDR_RESERVED0_OFFSET           offsetof(hm_file_header, reserved0)
#define HM_HDR_HEADER_CHECKSUM_OFFSET     offsetof(hm_file_header, header_checksum)
#define HM_HDR_STRUCT_LOCK_OFFSET         offsetof(hm_file_header, struct_lock)
#define HM_HDR_JOURNAL_SLOT_OFFSET        offsetof(hm_file_header, journal_slot)
#define HM_HDR_INDEX_SEQ_OFFSET           offsetof(hm_file_header, index_seq)
#define HM_HDR_CLOCK_HAND_OFFSET          offsetof(hm_file_header, clock_hand)
#define HM_HDR_LIVE_COUNT_OFFSET          offsetof(hm_file_header, live_count)
#define HM_HDR_HIGH_WATER_OFFSET          offsetof(hm_file_header, high_water)
#define HM_HDR_EVICTIONS_OFFSET           offsetof(hm_file_header, evictions)
#define HM_HDR_RECOVERIES_OFFSET          offsetof(hm_file_header, recoveries)
#define HM_HDR_DROPPED_INSERTS_OFFSET     offsetof(hm_file_header, dropped_inserts)
#define HM_HDR_STOLEN_LOCKS_OFFSET        offsetof(hm_file_header, stolen_locks)

#define HM_WRITER_TOKEN_OFFSET            offsetof(hm_writer_entry, token)
#define HM_WRITER_GENERATION_OFFSET       offsetof(hm_writer_entry, generation)

#define HM_SLOT_LOCK_OFFSET               offsetof(hm_slot, lock)
#define HM_SLOT_SEQ_OFFSET                offsetof(hm_slot, seq)
#define HM_SLOT_GEN_OFFSET                offsetof(hm_slot, gen)
#define HM_SLOT_HASH_OFFSET               offsetof(hm_slot, hash)
#define HM_SLOT_NAME_LEN_OFFSET           offsetof(hm_slot, name_len)
#define HM_SLOT_REFERENCED_OFFSET         offsetof(hm_slot, referenced)
#define HM_SLOT_COPIES_OFFSET             offsetof(hm_slot, copies)
#define HM_SLOT_NAME_OFFSET               offsetof(hm_slot, name)

#define HM_REC_DISPATCH_COUNT_OFFSET      offsetof(hm_record_copy, dispatch_count)
#define HM_REC_KERNEL_NS_TOTAL_OFFSET     offsetof(hm_record_copy, kernel_ns_total)
#define HM_REC_KERNEL_NS_MAX_OFFSET       offsetof(hm_record_copy, kernel_ns_max)
#define HM_REC_BYTES_TOTAL_OFFSET         offsetof(hm_record_copy, bytes_total)

#define HM_INDEX_ENTRY_BYTES              sizeof(_Atomic uint64_t)

/* ---- pinned against FORMAT.md ---- */
_Static_assert(sizeof(_Atomic uint64_t) == 8 && _Alignof(_Atomic uint64_t) == 8, "u64 atomics are 8-byte aligned words");
_Static_assert(sizeof(_Atomic uint32_t) == 4 && _Alignof(_Atomic uint32_t) == 4, "u32 atomics are 4-byte aligned words");
_Static_assert(sizeof(hm_file_header) == 4096, "§3 header is 4096 bytes");
_Static_assert(HM_HDR_MAGIC_OFFSET == 0, "§3.1 magic");
_Static_assert(HM_HDR_FORMAT_VERSION_OFFSET == 8, "§3.1 format_version");
_Static_assert(HM_HDR_HEADER_BYTES_OFFSET == 12, "§3.1 header_bytes");
_Static_assert(HM_HDR_LAYOUT_FINGERPRINT_OFFSET == 16, "§3.1 layout_fingerprint");
_Static_assert(HM_HDR_CAPACITY_OFFSET == 24, "§3.1 capacity");
_Static_assert(HM_HDR_MAX_NAME_BYTES_OFFSET == 28, "§3.1 max_name_bytes");
_Static_assert(HM_HDR_SLOT_BYTES_OFFSET == 32, "§3.1 slot_bytes");
_Static_assert(HM_HDR_INDEX_ENTRIES_OFFSET == 36, "§3.1 index_entries");
_Static_assert(HM_HDR_MAX_PROBE_OFFSET == 40, "§3.1 max_probe");
_Static_assert(HM_HDR_WRITER_ENTRIES_OFFSET == 44, "§3.1 writer_entries");
_Static_assert(HM_HDR_HOT_THRESHOLD_NS_OFFSET == 48, "§3.1 hot_threshold_ns");
_Static_assert(HM_HDR_CREATED_EPOCH_MS_OFFSET == 56, "§3.1 created_epoch_ms");
_Static_assert(HM_HDR_WRITER_TABLE_OFFSET_OFFSET == 64, "§3.1 writer_table_offset");
_Static_assert(HM_HDR_INDEX_OFFSET_OFFSET == 72, "§3.1 index_offset");
_Static_assert(HM_HDR_SLOTS_OFFSET_OFFSET == 80, "§3.1 slots_offset");
_Static_assert(HM_HDR_FILE_BYTES_OFFSET == 88, "§3.1 file_bytes");
_Static_assert(HM_HDR_RESERVED0_OFFSET == 96, "§3.1 reserved");
_Static_assert(HM_HDR_HEADER_CHECKSUM_OFFSET == 120, "§3.1 header_checksum");
_Static_assert(HM_HDR_STRUCT_LOCK_OFFSET == 128, "§3.2 struct_lock");
_Static_assert(HM_HDR_JOURNAL_SLOT_OFFSET == 136, "§3.2 journal_slot");
_Static_assert(HM_HDR_INDEX_SEQ_OFFSET == 144, "§3.2 index_seq");
_Static_assert(HM_HDR_CLOCK_HAND_OFFSET == 152, "§3.2 clock_hand");
_Static_assert(HM_HDR_LIVE_COUNT_OFFSET == 160, "§3.2 live_count");
_Static_assert(HM_HDR_HIGH_WATER_OFFSET == 168, "§3.2 high_water");
_Static_assert(HM_HDR_EVICTIONS_OFFSET == 176, "§3.2 evictions");
_Static_assert(HM_HDR_RECOVERIES_OFFSET == 184, "§3.2 recoveries");
_Static_assert(HM_HDR_DROPPED_INSERTS_OFFSET == 192, "§3.3 dropped_inserts");
_Static_assert(HM_HDR_STOLEN_LOCKS_OFFSET == 200, "§3.3 stolen_locks");
_Static_assert(offsetof(hm_file_header, reserved3) == 208, "§3.3 reserved");
_Static_assert(offsetof(hm_file_header, reserved_tail) == 256, "bytes 256..4095 reserved");

_Static_assert(sizeof(hm_writer_entry) == 16, "§3.5 writer entry is 16 bytes");
_Static_assert(HM_WRITER_TOKEN_OFFSET == 0 && HM_WRITER_GENERATION_OFFSET == 8, "§3.5 fields");

_Static_assert(sizeof(hm_record_copy) == 32, "§3.7 record copy is 32 bytes");
_Static_assert(HM_REC_DISPATCH_COUNT_OFFSET == 0 && HM_REC_KERNEL_NS_TOTAL_OFFSET == 8 &&
               HM_REC_KERNEL_NS_MAX_OFFSET == 16 && HM_REC_BYTES_TOTAL_OFFSET == 24, "§3.7 fields");

_Static_assert(sizeof(hm_slot) == HM_SLOT_FIXED_BYTES, "§3.6 slot fixed part is 128 bytes");
_Static_assert(HM_SLOT_LOCK_OFFSET == 0, "§3.6 lock");
_Static_assert(HM_SLOT_SEQ_OFFSET == 8, "§3.6 seq");
_Static_assert(HM_SLOT_GEN_OFFSET == 16, "§3.6 gen");
_Static_assert(HM_SLOT_HASH_OFFSET == 24, "§3.6 hash");
_Static_assert(HM_SLOT_NAME_LEN_OFFSET == 32, "§3.6 name_len");
_Static_assert(HM_SLOT_REFERENCED_OFFSET == 36, "§3.6 referenced");
_Static_assert(HM_SLOT_COPIES_OFFSET == 64, "§3.6 copies");
_Static_assert(HM_SLOT_NAME_OFFSET == 128, "§3.6 name");
_Static_assert(HM_INDEX_ENTRY_BYTES == 8, "§3.8 index entry is 8 bytes");

#endif /* HINTMAP_FORMAT_H */
