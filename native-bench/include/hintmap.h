/*
 * hintmap.h - C API of hintmap, a shared-memory, memory-mapped store of
 * per-region GPU performance hints.
 *
 * The file format is docs/FORMAT.md (version 3); the on-disk structures are in
 * hintmap_format.h. This header is plain C11 and usable from C++.
 *
 * Conventions
 *   - Every function that can fail returns an int: 0 (HM_OK) on success, a
 *     negative HM_E* code on failure. A few return a positive status (HM_DROPPED).
 *   - A failing call on a store also leaves a message with context (file, field,
 *     errno text) that hm_last_error() / hm_last_error_copy() return.
 *   - Region names are byte strings of valid UTF-8, at least 1 byte; a name longer than the
 *     file's max_name_bytes is stored and looked up in its stored form (hm_name_canonical())
 *     (a NUL byte is a valid character); they are passed as (pointer, length).
 *   - Thread safety: an hm_store may be used by any number of threads at once,
 *     except hm_close(), which must not run concurrently with any other call on
 *     the same store or on its handles. An hm_region handle is used by one thread
 *     at a time (give each thread its own).
 *   - A store must not be used across fork(): a child process opens its own.
 *   - The library keeps no global mutable state, never aborts or exits; the one exception is the
 *     opt-in fault guard below, whose signal handler is per process by nature.
 *   - A file truncated or replaced under the mapping (another program's `truncate`, `cp` over it):
 *     pages past its new end are gone, and an access to one raises SIGBUS, which kills the process
 *     as with any mapped file, unless the store was opened with HM_OPEN_FAULT_GUARD: then the call
 *     that met the lost page returns HM_ECHANGED and the store is unusable (see "Fault guard").
 *     hm_check() tells of a truncation without touching the mapping.
 *
 * Typical use:
 *     hm_options o; hm_options_init(&o);
 *     hm_options_set_capacity(&o, 4096);
 *     hm_store *s; char err[256];
 *     if (hm_open_ex("/dev/shm/hints", &o, &s, err, sizeof err) < 0) { puts(err); ... }
 *     hm_record(s, "gemm", 4, kernel_ns, bytes);
 *     hm_close(s);
 */
#ifndef HINTMAP_H
#define HINTMAP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ version, visibility */

/*
 * The library's version (semantic versioning). These three numbers are the one place the C
 * library's version is written: the Makefile reads them for the shared object's file name
 * (libhintmap.so.MAJOR.MINOR.PATCH), its SONAME (libhintmap.so.MAJOR), hintmap.pc and the CMake
 * package version, and `make test` (tests/install_check.sh) checks that they equal the project
 * <version> of ../pom.xml without "-SNAPSHOT", so the C and Java libraries are released together.
 */
#define HM_VERSION_MAJOR 0
#define HM_VERSION_MINOR 1
#define HM_VERSION_PATCH 0
#define HM_VERSION_STR_(x) #x
#define HM_VERSION_STR(x) HM_VERSION_STR_(x)
/** "MAJOR.MINOR.PATCH" of this header, e.g. "0.1.0". */
#define HM_VERSION_STRING \
    HM_VERSION_STR(HM_VERSION_MAJOR) "." HM_VERSION_STR(HM_VERSION_MINOR) "." HM_VERSION_STR(HM_VERSION_PATCH)

/*
 * HM_API marks the functions of the public API: the only symbols libhintmap.so exports (the library
 * is compiled with -fvisibility=hidden; tests/exported-symbols.txt lists them and `make test`
 * checks the list against `nm -D` of the shared object and against the declarations here).
 */
#if defined(__GNUC__) || defined(__clang__)
#define HM_API __attribute__((visibility("default")))
#else
#define HM_API
#endif

/**
 * The version of the library linked at run time, "MAJOR.MINOR.PATCH" (HM_VERSION_STRING of the
 * header it was built with; compare with this header's HM_VERSION_STRING to detect a mismatch
 * between the headers compiled against and the shared object loaded). Never NULL.
 */
HM_API const char *hm_version(void);

/* ------------------------------------------------------------------ codes */

#define HM_OK              0   /* success */
#define HM_DROPPED         1   /* success, but the sample was not stored: capacity 0, the probe bound
                                  (FORMAT §7.4 step 10), or a lock held by a live process for longer
                                  than lock_wait_limit (5 s, FORMAT §6.2 "give up")                   */

#define HM_EINVAL         -1   /* bad argument (NULL pointer, option out of range) */
#define HM_ENAMETOOLONG   -2   /* region name longer than the file's max_name_bytes (HM_OPEN_REJECT_LONG_NAMES) */
#define HM_EEMPTYNAME     -3   /* region name of length 0 */
#define HM_EBADNAME       -4   /* region name is not valid UTF-8 */
#define HM_ENOTHINT       -5   /* wrong magic: not a hint file */
#define HM_ETRUNCATED     -6   /* file shorter than its header or than its declared file_bytes */
#define HM_EUNFINISHED    -7   /* magic == 0: creator died or is still initialising */
#define HM_EVERSION       -8   /* format_version is not 3: newer, unknown, or 1 or 2 (convert: hintmap upgrade FILE) */
#define HM_ECHECKSUM      -9   /* header_checksum does not match the header (corrupt header) */
#define HM_ELAYOUT       -10   /* layout_fingerprint differs: built with another binary layout */
#define HM_EINCONSISTENT -11   /* header field out of range / inconsistent with derived values or file size */
#define HM_EOPTIONS      -12   /* explicitly set options contradict the existing file */
#define HM_EIO           -13   /* operating-system error; the message carries errno text */
#define HM_ENOMEM        -14   /* out of memory */
#define HM_ENOTFOUND     -15   /* region absent (or not readable consistently right now) */
#define HM_EWRITERS      -16   /* writer table full: 1024 live writers */
#define HM_EREADONLY     -17   /* write operation on a store opened read-only */
#define HM_ECLOSED       -18   /* the store was closed (a handle outlived it) */
#define HM_ESYMLINK      -19   /* the final path component is a symbolic link (refused unless HM_OPEN_FOLLOW_SYMLINKS) */
#define HM_EOWNER        -20   /* the file is owned by another user (refused unless HM_OPEN_ALLOW_FOREIGN_OWNER
                                  or the group-shared rule of HM_OPEN_GROUP_SHARED, FORMAT §5 step 0)   */
#define HM_ENOSPC        -21   /* no space: ENOSPC, EDQUOT or EFBIG (file-size limit), when creating the file
                                  (nothing is left at the path) or when a writer's open allocates the
                                  unallocated ranges of an existing sparse file (FORMAT §5 opening,
                                  sparse files; the file is unchanged)                                */
#define HM_ECHANGED      -22   /* hm_check(): the file was truncated, resized, replaced or removed
                                  under the mapping (FORMAT §5.1)                                      */
#define HM_ESPARSE       -23   /* read-only open of a file with unallocated ranges (e.g. a sparse copy): a
                                  read fault on a hole of a full tmpfs is SIGBUS; a writer's open
                                  allocates them, or copy the file with cp --sparse=never              */
#define HM_EMISSING      -24   /* no file at the path: a read-only open of a path where nothing is (an optimizer
                                  before any run recorded: "no hints yet"), or creating a file in a
                                  directory that does not exist; the message carries the errno text   */

/** Static description of a code ("unknown error" for anything else). Never NULL. */
HM_API const char *hm_strerror(int code);

/* ------------------------------------------------------------------ options */

/* Bits of hm_options.set_mask: which options the caller set explicitly. */
#define HM_OPT_CAPACITY        (1u << 0)
#define HM_OPT_MAX_NAME_BYTES  (1u << 1)
#define HM_OPT_HOT_THRESHOLD   (1u << 2)

#define HM_DEFAULT_CAPACITY          256u
#define HM_DEFAULT_MAX_NAME_BYTES    256u /* kernel names run 100-400 bytes: FORMAT §1.1 */
#define HM_DEFAULT_HOT_THRESHOLD_NS  100000u
#define HM_MAX_CAPACITY              67108864u  /* 2^26 */
#define HM_MAX_NAME_BYTES_LIMIT      1024u
/** Bytes of the digest a shortened name keeps: the first 16 of SHA-256 (FORMAT §1.1). */
#define HM_NAME_DIGEST_BYTES 16u
/** Bytes of the tag that ends a shortened name: '~' and 32 lowercase hex digits (FORMAT §1.1). */
#define HM_NAME_TAG_BYTES (1u + 2u * HM_NAME_DIGEST_BYTES)
/* The smallest max_name_bytes (33): the tag of a stored form with an empty prefix, so that every
 * long name keeps its whole digest (FORMAT §1.1, §2). The three limits are FORMAT §2's, written
 * once here for C (Java: dev.hintmap.format.FileGeometry); vectors/limits.txt checks that they agree. */
#define HM_MIN_NAME_BYTES            HM_NAME_TAG_BYTES

/* Bits of hm_options.flags (FORMAT §5 step 0 and step 2; threat model: docs/SECURITY.md). */

/**
 * Group sharing. A file this call creates gets mode 0660 (owner and group read/write) instead
 * of 0600, whatever the umask; its group is the creator's effective group, or the directory's
 * group when the directory is setgid (the way to share: a directory owned by the shared group
 * with mode 2770). An existing file owned by another user is accepted when its group is this
 * process's effective group or one of its supplementary groups, it is not writable by others
 * (S_IWOTH clear), and its POSIX access ACL (if any) grants write to no named user and no named
 * group (an entry's write counts only when the ACL's mask, if present, has write too).
 */
#define HM_OPEN_GROUP_SHARED         (1u << 0)
/**
 * Follow a symbolic link at the final path component (by default it is refused with
 * HM_ESYMLINK, because a link planted in a shared directory could redirect the writes of this
 * process to a file of the link's choosing). The directories of the path are always followed:
 * they are trusted. A dangling link is never created through (HM_EIO).
 */
#define HM_OPEN_FOLLOW_SYMLINKS      (1u << 1)
/**
 * Accept a file owned by any user (by default a file not owned by this process's effective uid
 * is refused with HM_EOWNER, so that another user's file cannot steer this process's hints).
 * The file must still be a regular file that passes every check of FORMAT §5.
 */
#define HM_OPEN_ALLOW_FOREIGN_OWNER  (1u << 2)
/**
 * Refuse a region name longer than the file's max_name_bytes with HM_ENAMETOOLONG. By default
 * such a name is stored, and looked up, in its stored form (FORMAT §1.1, hm_name_canonical()), so
 * that a long kernel name is found by the same long name from every process and language. Not
 * a property of the file: each process chooses.
 */
#define HM_OPEN_REJECT_LONG_NAMES    (1u << 3)
/**
 * Guard this store's calls against faults of its mapping (see "Fault guard" below): hm_open()
 * installs the guard's SIGBUS handler (hm_fault_guard_install(): HM_EIO if it cannot), and every
 * call on the store or its handles that meets a page lost to a truncation returns HM_ECHANGED
 * instead of the process being killed by SIGBUS. Costs a sigsetjmp per call (a few ns); the
 * Python module sets it for every store. Not a property of the file: each process chooses.
 */
#define HM_OPEN_FAULT_GUARD          (1u << 4)

/**
 * Options of hm_open(). Initialise with hm_options_init(), then change fields.
 *
 * capacity, max_name_bytes and hot_threshold_ns are used when the file is
 * created. When the file already exists its layout wins, and an option that the
 * caller set explicitly and that differs from the file is HM_EOPTIONS. An option
 * counts as explicitly set when its HM_OPT_* bit is in set_mask (the
 * hm_options_set_* helpers set it) or when its value differs from the default
 * that hm_options_init() stored; so an unset option never conflicts.
 * One exception (FORMAT §5 "Options"): with read_only, an explicit hot_threshold_ns is the reader's
 * own. The store's hm_is_hot() and hm_hot_threshold_ns() answer by it, and the file keeps its own.
 */
typedef struct hm_options {
    uint32_t capacity;          /* max regions, 0..2^26 (default 256)                  */
    uint32_t max_name_bytes;    /* longest name stored whole, UTF-8 bytes, 33..1024
                                   (default 256; longer names: FORMAT §1.1)              */
    uint64_t hot_threshold_ns;  /* mean kernel ns at or above which a region is hot,
                                   0..2^63-1 (default 100000)                           */
    int read_only;              /* nonzero: map read-only, never create, claim nothing  */
    uint32_t set_mask;          /* HM_OPT_* bits of explicitly set options              */
    uint32_t flags;             /* HM_OPEN_* bits (default 0: mode 0600, no symlink at the
                                   final component, owner must be this effective uid);
                                   other bits are HM_EINVAL                              */
} hm_options;

/** Sets the defaults above, read_only = 0, set_mask = 0, flags = 0. */
HM_API void hm_options_init(hm_options *o);
/** Set one option and mark it explicit. No validation here: hm_open() validates. */
HM_API void hm_options_set_capacity(hm_options *o, uint32_t capacity);
HM_API void hm_options_set_max_name_bytes(hm_options *o, uint32_t max_name_bytes);
HM_API void hm_options_set_hot_threshold_ns(hm_options *o, uint64_t hot_threshold_ns);

/* ------------------------------------------------------------------ store */

typedef struct hm_store hm_store;

/**
 * Opens the hint file at `path`, creating it (FORMAT §5) when it does not exist
 * and the store is not read-only. `opts` may be NULL (defaults, none explicit).
 * On success *out is the store; on failure *out is NULL and the file is
 * unchanged.
 *
 * Opening (FORMAT §5 step 0): the path is opened with O_NOFOLLOW|O_NONBLOCK|O_CLOEXEC (a FIFO
 * or device at the path never blocks the call), then the descriptor (not the path) is
 * checked: a regular file, owned by this process's effective uid unless opts->flags allow
 * otherwise. Every header field is checked against its range, the derived layout and the
 * file's size before any slot is touched. The descriptor stays open until hm_close() (it is
 * what hm_check() examines).
 *
 * Creation (FORMAT §5 steps 1-5): a temporary file `<path>.<pid>.<16 hex>.tmp` is created
 * (mode exactly 0600, or 0660 with HM_OPEN_GROUP_SHARED), fully allocated with
 * posix_fallocate (so a full disk or a file-size limit is HM_ENOSPC now, never SIGBUS
 * later), initialised, flushed and published with link(); it is unlinked on every path. A
 * concurrent creator of the same path loses link() and opens the winner's file, so exactly
 * one process initialises it and no reader ever sees a half-written header; a creator that
 * crashes leaves no file at the path, only a stray temporary that a later creation removes.
 * The library never ignores or handles signals (SIGBUS only with HM_OPEN_FAULT_GUARD): a process
 * with a file-size limit below the file's size must ignore SIGXFSZ to get HM_ENOSPC instead of
 * being killed.
 *
 * Sparse files (FORMAT §5 opening): after the header checks and before mapping, a file with
 * unallocated ranges (lseek SEEK_HOLE finds a hole before file_bytes, and st_blocks counts fewer
 * than file_bytes bytes) is allocated by a writer with fallocate(2), so that no later store into
 * a hole can raise SIGBUS on a full filesystem (no space: HM_ENOSPC, the file unchanged; a
 * filesystem that cannot allocate: opened anyway, the §10 caveat); a read-only open of such a
 * file is HM_ESPARSE.
 *
 * Errors: HM_EINVAL (NULL path/out, option or flag out of range), HM_ESYMLINK,
 * HM_EOWNER, HM_ENOTHINT (also: not a regular file), HM_ETRUNCATED,
 * HM_EUNFINISHED, HM_EVERSION, HM_ECHECKSUM, HM_ELAYOUT, HM_EINCONSISTENT,
 * HM_EOPTIONS, HM_EWRITERS (writer), HM_ENOSPC (creation, or allocating a sparse file),
 * HM_ETRUNCATED (also: truncated while a guarded open claimed its writer entry; HM_EIO if the
 * guard could not be installed),
 * HM_ESPARSE (read-only open of a sparse file), HM_EMISSING (read-only open of a missing file,
 * or creation in a missing directory), HM_EIO (open, stat, mmap, /proc, link...), HM_ENOMEM
 * (malloc, or mmap's ENOMEM: an address-space limit RLIMIT_AS or vm.max_map_count;
 * the message says which).
 */
HM_API int hm_open(const char *path, const hm_options *opts, hm_store **out);

/**
 * As hm_open(); in addition, on failure a NUL-terminated message naming the
 * file, the field and the OS error is written to errbuf (if errbuf != NULL and
 * errlen > 0; truncated to errlen).
 */
HM_API int hm_open_ex(const char *path, const hm_options *opts, hm_store **out,
               char *errbuf, size_t errlen);

/**
 * Releases the writer-table entry, unmaps the file and frees the store. Handles
 * still alive keep a small husk of it: their calls return HM_ECLOSED, and
 * hm_region_free() must still be called for each. NULL is accepted (returns 0).
 * Call it exactly once per store (a second call is detected, as HM_ECLOSED, only
 * while handles keep the husk alive). Must not run concurrently with other calls
 * on the store or its handles. The writer entry is released (release store of 0,
 * FORMAT §6.1) just before the mapping is removed, unless the file was truncated below
 * that entry (checked with fstat first; only a truncation between that check and the store can
 * still raise SIGBUS, and not in a guarded store): the entry is then left for reclaim as dead and
 * HM_ECHANGED is returned. A store that faulted (HM_OPEN_FAULT_GUARD) releases nothing, is unmapped
 * and freed, and returns its fault's code.
 *
 * Durability: hm_close() does not msync. A process that exits or crashes loses nothing (the
 * MAP_SHARED pages are the page cache of the file, written back by the kernel); only a machine
 * crash loses samples not yet written back. hm_flush() is the durability point.
 *
 * Errors: HM_EIO (munmap failed; or the fault of a guarded store), HM_ECHANGED, HM_ECLOSED; the
 * store is freed anyway.
 */
HM_API int hm_close(hm_store *s);

/**
 * Records one sample for region `name`: count + 1, kernel_ns added to the total
 * and folded into the maximum, bytes_touched added to the byte total; each input
 * is clamped to 2^63-1 and sums saturate there. Inserts the region if absent,
 * evicting the CLOCK victim when the store is full.
 *
 * Returns HM_OK, or HM_DROPPED when the sample could not be stored (capacity 0,
 * the probe bound of FORMAT §7.4 step 10, or a lock that a live process held for
 * lock_wait_limit = 5 s: FORMAT §6.2 "give up"; the store remembers that lock and owner
 * word with the time of its last liveness check, and later calls that meet them again give up
 * at once while that check is less than 1 ms old, else after one liveness check).
 * Errors: HM_EINVAL (NULL), HM_EEMPTYNAME, HM_EBADNAME, HM_ENAMETOOLONG (only with
 * HM_OPEN_REJECT_LONG_NAMES), HM_EREADONLY, HM_ECLOSED.
 */
HM_API int hm_record(hm_store *s, const char *name, size_t name_len,
              uint64_t kernel_ns, uint64_t bytes_touched);

/** A consistent snapshot of one region (FORMAT §7.2.1). */
typedef struct hm_region_record {
    uint64_t dispatch_count;   /* > 0 for every record returned */
    uint64_t kernel_ns_total;  /* saturates at 2^63-1           */
    uint64_t kernel_ns_max;    /* <= kernel_ns_total             */
    uint64_t bytes_total;      /* saturates at 2^63-1           */
} hm_region_record;

/**
 * Reads region `name` consistently into *out without taking any lock.
 * Errors: HM_ENOTFOUND (absent, or not readable consistently within the bounded
 * retries: a hint may be missing, never wrong), HM_EINVAL, HM_EEMPTYNAME,
 * HM_EBADNAME, HM_ENAMETOOLONG (only with HM_OPEN_REJECT_LONG_NAMES), HM_ECLOSED.
 */
HM_API int hm_lookup(hm_store *s, const char *name, size_t name_len, hm_region_record *out);

/*
 * The reference design's questions (docs/DESIGN.md §5; Java HintStore, Python HintStore, the same
 * answers on the shared vectors src/test/resources/vectors/seed.txt):
 *   is_hot          hm_is_hot (hm_is_hot_at: by the caller's threshold)
 *   dispatch_count  hm_dispatch_count        0 when absent
 *   mean_kernel_ns  hm_mean_kernel_ns        0 when absent
 *   record_for      hm_lookup                HM_ENOTFOUND when absent
 *   len             hm_size
 *   is_empty        hm_is_empty
 * Each by-name question reads the whole record, as hm_lookup does (FORMAT §7.2.2): asking for two
 * figures costs two reads where one hm_lookup gives all four. A name asked again and again is cheaper
 * through a handle (hm_region_resolve, hm_region_lookup): no encoding or lookup per call.
 */

/**
 * Whether region `name` is hot: its mean kernel ns (total / count) is >= the store's
 * hm_hot_threshold_ns() (the file's, or a read-only opener's own: hm_open). Returns 1 (hot), 0 (not
 * hot, or absent: an unknown region is never hot) or another error of hm_lookup().
 */
HM_API int hm_is_hot(hm_store *s, const char *name, size_t name_len);

/**
 * hm_is_hot() by the caller's threshold instead of the store's: 1 when region `name` is present and
 * floor(kernel_ns_total / dispatch_count) >= threshold_ns (FORMAT §7.2.1, exact), 0 when not or
 * absent. The same read as hm_is_hot(), allocation-free. Errors: those of hm_lookup(), and
 * HM_EINVAL for a threshold_ns above 2^63-1 (the range of hot_threshold_ns).
 */
HM_API int hm_is_hot_at(hm_store *s, const char *name, size_t name_len, uint64_t threshold_ns);

/**
 * Dispatches recorded for region `name` since it was (last) inserted, into *count: >= 1 when
 * present, 0 when absent (never recorded, evicted, capacity 0). Returns HM_OK, or an error of
 * hm_lookup() other than HM_ENOTFOUND (HM_EINVAL also for a NULL count); *count is then unchanged.
 */
HM_API int hm_dispatch_count(hm_store *s, const char *name, size_t name_len, uint64_t *count);

/**
 * Mean kernel ns of region `name` per dispatch, floor(kernel_ns_total / dispatch_count), into
 * *mean_ns; 0 when absent. Returns as hm_dispatch_count().
 */
HM_API int hm_mean_kernel_ns(hm_store *s, const char *name, size_t name_len, uint64_t *mean_ns);

/**
 * Reads slot `slot` (0 <= slot < hm_high_water()) for iteration: on HM_OK the
 * region's name is copied into name_buf (not NUL-terminated unless room is left;
 * *name_len gets the full length) and its record into *out.
 * Errors: HM_ENOTFOUND (slot FREE, BUSY or out of range), HM_EINVAL (NULL
 * arguments, or name_buf too small: *name_len still tells the needed size),
 * HM_ECLOSED.
 */
HM_API int hm_region_at(hm_store *s, uint32_t slot, char *name_buf, size_t buf_len,
                 size_t *name_len, hm_region_record *out);

/** One region of a hot set (hm_hot_set). 64 bytes on LP64 (x86-64, AArch64), for bindings. */
typedef struct hm_hot_region {
    hm_region_record record;   /* the region's record (duplicates of a name combined, see hm_hot_set) */
    double share;              /* record.kernel_ns_total over the exact whole, binary64, in (0, 1] */
    double cumulative_share;   /* the same for this region and every one before it in the set */
    const char *name;          /* its stored name: name_len bytes inside the caller's names buffer,
                                  not NUL-terminated */
    uint32_t name_len;
} hm_hot_region;

/** What hm_hot_set found (docs/GUIDE.md "The hot set by coverage"). 80 bytes on LP64. The sums
 *  behind it are exact (several regions of 2^63-1 ns add up past 2^63-1); each _ns field reports its
 *  sum clamped to 2^63-1, while the set, reached and every share come from the exact sums. */
typedef struct hm_hot_set_info {
    uint64_t total_ns;         /* kernel time of every region read, thin ones included (clamped) */
    uint64_t needed_ns;        /* what the set had to cover (clamped): the whole at coverage 1, else
                                  ceil(coverage * whole), the product in binary64; at most the whole */
    uint64_t covered_ns;       /* kernel time of the set (clamped) */
    uint64_t thin_ns;          /* kernel time of the regions with fewer than min_dispatches dispatches (clamped) */
    double coverage;           /* as asked */
    double covered_share;      /* the set's share of the whole, from the exact sums (0 when there is no kernel time) */
    uint64_t min_dispatches;   /* as asked, clamped to 2^63-1 */
    uint32_t count;            /* regions in the set: regions[0 .. count) */
    uint32_t regions_read;     /* regions read, a name read twice counted once */
    uint32_t thin_regions;     /* regions left out for fewer than min_dispatches dispatches */
    int reached;               /* covered >= needed (exact sums): 0 when thin regions hold too much time */
    int consistent;            /* 1: read in one cut of the file (FORMAT §7.5); 0: writers kept inserting or
                                  evicting through every attempt, the answer is a hint */
} hm_hot_set_info;

/**
 * The hot set by coverage (docs/GUIDE.md "The hot set by coverage"): the fewest regions,
 * hottest by kernel_ns_total first, whose kernel time covers at least `coverage` of the kernel
 * time of every region in the file; regions with fewer than `min_dispatches` dispatches never
 * count (their time stays in the whole); equal totals are ordered by stored name in byte order
 * (memcmp, a proper prefix first). The same answer as Java's HintStore.hotSet and `hintmap hot`
 * (shared vectors: src/test/resources/vectors/hot-set.txt).
 *
 * The regions are read in one cut of the file (FORMAT §7.5): no region counted twice or missed while
 * writers insert and evict; info->consistent says when writers kept changing the file through every
 * attempt (64 scans, or a change left unfinished for 10 ms) and the answer is a hint. A name read
 * twice (only then, or in a damaged file) is one region, its records combined as merge does.
 *
 * Allocates nothing and keeps no state: every region read goes into the caller's `regions` array
 * (`max_regions` entries) and its name into `names` (`names_len` bytes, one stride of
 * hm_max_name_bytes(s) bytes per entry), both sorted in place; on HM_OK the set is regions[0 ..
 * info->count), hottest first, and the rest of both buffers is scratch. hm_capacity(s) entries and
 * hm_capacity(s) * hm_max_name_bytes(s) name bytes always suffice (hm_high_water(s) entries do
 * unless regions are inserted meanwhile). Thread-safe: any number of calls at once, each with its
 * own buffers. A capacity-0 or empty file gives an empty set (max_regions may then be 0, regions and
 * names NULL).
 *
 * Errors: HM_EINVAL (NULL store or info; coverage NaN or outside [0, 1]; regions or names NULL
 * with max_regions > 0; names_len < max_regions * hm_max_name_bytes(s); more regions in the file
 * than max_regions), HM_ECLOSED; the store's last error says which.
 */
HM_API int hm_hot_set(hm_store *s, double coverage, uint64_t min_dispatches, hm_hot_region *regions,
                      uint32_t max_regions, char *names, size_t names_len, hm_hot_set_info *info);

/** Number of LIVE regions (live_count clamped into [0, capacity]; a damaged live_count with the top
 *  bit set reads as 0). Errors: HM_EINVAL, HM_ECLOSED. */
HM_API int hm_size(hm_store *s, uint64_t *out);
/** Whether the store holds no region: 1 when hm_size() would give 0 (always for capacity 0), 0 when it
 *  holds one or more; the same header words. Errors: HM_EINVAL, HM_ECLOSED. */
HM_API int hm_is_empty(hm_store *s);
/** The file's capacity and max_name_bytes; the hot threshold hm_is_hot() answers by: the file's, or
 *  a read-only opener's own (hm_open). 0 for a NULL or closed store. */
HM_API uint32_t hm_capacity(const hm_store *s);
HM_API uint32_t hm_max_name_bytes(const hm_store *s);
HM_API uint64_t hm_hot_threshold_ns(const hm_store *s);
/** Slots used at least once, clamped to capacity: iteration bound for hm_region_at(). */
HM_API uint32_t hm_high_water(const hm_store *s);
/** Whether the store was opened read-only (1) or for writing (0). */
HM_API int hm_is_read_only(const hm_store *s);

/** Counters of the header's coordination and statistics lines. */
typedef struct hm_stats {
    uint64_t live_count, high_water, evictions, recoveries, dropped_inserts, stolen_locks;
    uint64_t created_epoch_ms;
} hm_stats;

/** Reads the counters (relaxed: each value is current, they are not a snapshot). live_count and
 *  high_water are the stored words; evictions, recoveries, dropped_inserts and stolen_locks read as
 *  0 when a damaged file has their top bit set (FORMAT §5 step 5). Errors: HM_EINVAL, HM_ECLOSED. */
HM_API int hm_stats_get(hm_store *s, hm_stats *out);

/**
 * msync(MS_SYNC) of the whole mapping: the durability point. Samples recorded before it survive
 * a machine crash; without it they survive any process exit or crash (the pages are the file's
 * page cache) but reach the disk only when the kernel writes them back. hm_close() does not
 * flush. Errors: HM_EINVAL, HM_ECLOSED, HM_EIO.
 */
HM_API int hm_flush(hm_store *s);

/**
 * Checks that the file is still the one this store maps (FORMAT §5.1), with two system calls:
 * fstat of the descriptor kept since open (its size must still be file_bytes: otherwise
 * "truncated" or "resized") and lstat of the path (stat with HM_OPEN_FOLLOW_SYMLINKS: the
 * path must still name the same device and inode: otherwise "replaced", or "removed" when
 * nothing is there). No hintmap process ever resizes, renames or deletes a published file;
 * another program may.
 *
 * Then, after those two checks (so that a truncated file is reported by fstat before the mapping
 * is touched), two loads from the header in the mapping: magic (0: HM_EUNFINISHED, another
 * value: HM_ENOTHINT) and layout_fingerprint (not this build's: HM_ELAYOUT): the header changed
 * under the store, e.g. a hole punched into the file or the file overwritten in place.
 *
 * Truncation under the mapping: pages past the new end of the file no longer exist, and the
 * next access to one of them raises SIGBUS. Without HM_OPEN_FAULT_GUARD the library installs no
 * signal handler, so a process that touches them is killed by SIGBUS, as with any mapped
 * file. hm_check() touches nothing in the mapping before fstat found its size intact: a caller that polls it (e.g. before bulk
 * work such as iterating with hm_region_at) learns of a truncation before any access and can
 * close the store (hm_close() checks the size itself before releasing the writer entry) and
 * reopen the path. A file grown, replaced or removed never faults: this store just no longer
 * shares what others open at the path. The per-record path does not check (two system calls
 * would cost more than a record).
 *
 * Returns HM_OK when unchanged. Errors: HM_ECHANGED (the message says truncated, resized,
 * replaced or removed, with the sizes or inodes), HM_EUNFINISHED, HM_ENOTHINT, HM_ELAYOUT (the
 * header in the mapping changed), HM_EIO (fstat/lstat failed otherwise), HM_EINVAL, HM_ECLOSED.
 */
HM_API int hm_check(hm_store *s);

/**
 * The message of the last failure on this store (any thread), "" if none.
 * The pointer stays valid until hm_close(); under concurrent failures prefer
 * hm_last_error_copy(). Returns "invalid store" for NULL.
 */
HM_API const char *hm_last_error(const hm_store *s);
/** Copies the last message into buf (NUL-terminated, truncated); returns its full length. Thread-safe. */
HM_API size_t hm_last_error_copy(const hm_store *s, char *buf, size_t len);

/* ------------------------------------------------------------------ fault guard */

/*
 * Fault guard. Another program may truncate a hint file under a live store (`truncate`, `> FILE`,
 * `cp` over it), and the next access to a page past the new end raises SIGBUS; no check before
 * the access can rule that out, since the truncation may come between the check and the access.
 * The guard is the JVM's answer, for C: a SIGBUS handler that, when the fault's address lies in
 * the mapping of a store opened with HM_OPEN_FAULT_GUARD and the faulting thread is inside a call
 * of this library on that store, jumps back to that call, which then returns an error code.
 *
 * What a guarded store promises when its file is truncated or replaced in place:
 *   - the call that meets a lost page returns HM_ECHANGED (the file is shorter than file_bytes;
 *     HM_EIO when it still has its size: an I/O error, or a hole on a full filesystem), and its
 *     message says where the fault was and how large the file is now;
 *   - from then on the store is unusable: every call on it or its handles returns that code
 *     without touching the mapping again (hm_high_water() returns 0); hm_close() unmaps and frees
 *     it and returns the code; its writer entry is not released (a dead writer's, reclaimed after
 *     this process exits, FORMAT §6.1), nor a lock it held when the fault came (others give up
 *     on it after lock_wait_limit while this process lives, §6.2, and steal it after);
 *   - a call that touches only pages that remain answers as before (hm_size() reads the header);
 *   - a file replaced by a rename never faults: the store keeps the old file (hm_check()).
 *
 * Every other SIGBUS goes to the disposition SIGBUS had when the guard was installed, as the
 * kernel would deliver it: a handler is called with the same arguments, the default action kills
 * the process. A fault in a store opened without the flag, or outside the library, still kills.
 * A handler installed after the guard runs first and must chain to the one it replaced (the JVM's
 * and Python's faulthandler do), else guarded calls die as unguarded ones. The library is linked
 * -z nodelete: once the guard is installed, dlclose() never unloads the handler's code.
 */

/**
 * Installs the fault guard's SIGBUS handler for the process, once (later calls do nothing; safe
 * from any thread). hm_open() with HM_OPEN_FAULT_GUARD calls it; call it yourself to choose when
 * it takes SIGBUS over relative to other handlers (it chains to the one it finds). Only the
 * calls on stores opened with HM_OPEN_FAULT_GUARD are guarded. Errors: HM_EIO (sigaction failed).
 */
HM_API int hm_fault_guard_install(void);

/* ------------------------------------------------------------------ handles */

typedef struct hm_region hm_region;

/**
 * Pre-resolves region `name` for the hot path. The handle caches the region's
 * (slot, gen) and the name's stored form; it does not insert the region (the first
 * hm_region_add() does). Works on read-only stores for hm_region_lookup(). A name longer than
 * max_name_bytes costs a SHA-256 of it in every call by name (hm_name_canonical()), and once
 * here: record and read a long name through a handle.
 * Errors: HM_EINVAL, HM_EEMPTYNAME, HM_EBADNAME, HM_ENAMETOOLONG (HM_OPEN_REJECT_LONG_NAMES), HM_ENOMEM,
 * HM_ECLOSED.
 */
HM_API int hm_region_resolve(hm_store *s, const char *name, size_t name_len, hm_region **out);

/**
 * Records one sample through a handle (same semantics as hm_record). (Named
 * hm_region_add because hm_region_record is the snapshot type.) If the
 * cached slot was evicted or reused (gen changed, checked under the slot lock,
 * FORMAT §7.1) the name is re-resolved, or inserted, transparently.
 * Returns HM_OK or HM_DROPPED (as hm_record). Errors: HM_EINVAL, HM_EREADONLY, HM_ECLOSED.
 */
HM_API int hm_region_add(hm_region *r, uint64_t kernel_ns, uint64_t bytes_touched);

/**
 * hm_lookup() through a handle. While the slot the handle resolved keeps its generation, the read
 * compares no name (FORMAT §7.2.2: a slot's name changes only while its generation is odd); once it
 * moved, the name is resolved again. Errors: as hm_lookup().
 */
HM_API int hm_region_lookup(hm_region *r, hm_region_record *out);

/** Frees a handle (also after its store was closed). NULL is accepted. */
HM_API void hm_region_free(hm_region *r);

/* ------------------------------------------------------------------ format helpers */

/** hm64 of FORMAT §4 over `len` bytes. */
HM_API uint64_t hm_hash64(const void *bytes, size_t len);

/* HM_NAME_DIGEST_BYTES and HM_NAME_TAG_BYTES, the parts of a stored form: with the limits above. */

/**
 * The stored form of region name `name` (`len` bytes of UTF-8) in a file whose max_name_bytes is
 * `max_name_bytes` (FORMAT §1.1): the name itself when len <= max_name_bytes; otherwise its
 * longest prefix of at most max_name_bytes - 33 bytes that ends on a character boundary
 * (possibly empty), '~', and the 32 lowercase hex digits of the first 16 bytes of SHA-256 over
 * the whole name. Every function that takes a name applies it (unless the store was opened with
 * HM_OPEN_REJECT_LONG_NAMES), as Java's HintStore.storedName() does; the stored form of a stored
 * form is itself. Two different names get one stored form only when their digests collide (a
 * 128-bit SHA-256 collision) and their kept prefixes are equal, or when one of them is the other's
 * stored form (FORMAT §4.1).
 *
 * Cost: a name over the limit is digested whole on every call that takes it (hm_record,
 * hm_lookup, hm_is_hot: about 1.1 µs for 200 bytes, src/jmh/resources/dev/hintmap/bench/long-names.md "Long names, v3"), where
 * a name stored whole takes the pointer cache. On a hot path, resolve the name once with
 * hm_region_resolve() and record and read through the handle (hm_region_add,
 * hm_region_lookup), as the CUPTI collector does: a handle keeps the stored form.
 *
 * Writes the stored form to out (not NUL-terminated; at most max_name_bytes bytes, so a buffer of
 * max_name_bytes always suffices) and its length to *out_len. Needs no store and keeps no state.
 * Errors: HM_EINVAL (NULL name, out or out_len; max_name_bytes outside 33..1024; out_cap smaller
 * than the stored form, *out_len still set to the length needed), HM_EEMPTYNAME, HM_EBADNAME.
 */
HM_API int hm_name_canonical(const char *name, size_t len, uint32_t max_name_bytes, char *out, size_t out_cap,
                             size_t *out_len);

/** The layout fingerprint of FORMAT §3.4 computed from this build's structs. */
HM_API uint64_t hm_layout_fingerprint(void);

/** The format version this library reads and writes (3). */
HM_API uint32_t hm_format_version(void);

#ifdef __cplusplus
}
#endif

#endif /* HINTMAP_H */
