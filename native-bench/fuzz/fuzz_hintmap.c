/*
 * fuzz_hintmap.c - libFuzzer target: hm_open (read-only and read-write, on a private copy of a
 * hint file) + hm_lookup + hm_record + iteration (hm_region_at, hm_size, hm_stats_get) +
 * handles + hm_check, on hostile file contents (issue 7 item 2, docs/archive/RELIABILITY.md).
 *
 * A hint file is at least 24 KiB and protected by a header checksum, so random bytes rarely
 * get past the first check. The input is therefore structure-aware, with a raw mode besides:
 *
 *   byte 0 = mode. (mode & 0xC0) == 0xC0: RAW. The file is bytes [1, size); a fixed op script
 *            runs on it. Otherwise STRUCTURED, and mode's bits are:
 *              bit 0  recompute header_checksum after the patches (reach past the header)
 *              bit 1  skip the read-only open     bit 2  skip the read-write open
 *   STRUCTURED:
 *   byte 1 = capacity choice (CAPS[b % N])      byte 2 = max_name_bytes choice (MNBS[b % N])
 *   byte 3 = prefill choice (b % 4: none, 3 names, capacity/2, capacity+5 with evictions)
 *            of a valid file the library creates (cached per choice)
 *   byte 4 = number of patches (b % 17), then each patch:
 *              region (1 byte, mod 9: 0 header lines 0-3, 1 writer table, 2 index, 3 slots,
 *                      4 anywhere, 5 an interesting u64 into a header word, 6 an interesting
 *                      u64/u32 into a slot field or u8 into its reference byte (§3.9), 7 an
 *                      index entry naming a slot with a name's tag and a dist that is its
 *                      distance from home or, for some offsets, one off (§3.8),
 *                      8 a LIVE owner: this process's token in a writer entry and that
 *                      entry's owner word in struct_lock or a slot lock, so that the writer
 *                      must give up, FORMAT §6.2, after the 2 ms limit the target sets)
 *              offset (3 bytes, little-endian, reduced modulo the region)
 *              len    (1 byte: 1..32 bytes follow, or for 5-8 one selector byte follows)
 *   rest   = op script, one byte per op (low 4 bits: op, high 4 bits: name), some ops read
 *            one more byte (a value, or a raw name length + bytes).
 *
 * Checked beyond "no crash, no sanitizer report, no leak, no hang":
 *   - a failed open leaves the file byte for byte unchanged (FORMAT §5);
 *   - every record returned satisfies §7.2.1's invariants; hm_size, hm_high_water <= capacity;
 *     names from hm_region_at are <= max_name_bytes; hm_check of an untouched file is HM_OK.
 *
 * The same file is compiled into build/fuzz_replay (gcc, ASan+UBSan, fuzz/replay_main.c)
 * which `make test` runs on fuzz/regressions/.
 */
#define _GNU_SOURCE 1
#include "hintmap.h"
#include "hintmap_format.h"
#include "hm_internal.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(c)                                                                        \
    do {                                                                                     \
        if (!(c)) {                                                                          \
            fprintf(stderr, "fuzz_hintmap: invariant failed at %s:%d: %s\n", __FILE__, __LINE__, #c); \
            abort();                                                                         \
        }                                                                                    \
    } while (0)

static const uint32_t CAPS[] = {0, 1, 2, 3, 4, 7, 8, 16, 33, 64};
/* max_name_bytes choices: the format's smallest (33: a stored form is its tag alone), limits around
 * a 3- or 4-byte character at the cut, and the ones of version 2's corpus from index 6 on (63..128:
 * a corpus input names an index, so those inputs keep their geometry). */
static const uint32_t MNBS[] = {33, 34, 35, 36, 40, 48, 63, 64, 65, 128};
#define NCAPS (sizeof CAPS / sizeof CAPS[0])
#define NMNBS (sizeof MNBS / sizeof MNBS[0])
#define NAMES 16

/* Fuzzer-process state (the library itself keeps none). */
static char g_dir[256];
static char g_file[320];
static unsigned char *g_images[NCAPS][NMNBS][4];
static size_t g_image_len[NCAPS][NMNBS][4];

static void cleanup(void) {
    if (g_file[0]) unlink(g_file);
    if (g_dir[0]) {
        char p[400];
        snprintf(p, sizeof p, "%s/base.hm", g_dir);
        unlink(p);
        rmdir(g_dir);
    }
}

static int setup(void) {
    if (g_dir[0]) return 0;
    const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(g_dir, sizeof g_dir, "%s/hm-fuzz-%ld-XXXXXX", base, (long)getpid());
    if (mkdtemp(g_dir) == NULL) {
        perror("fuzz_hintmap: mkdtemp");
        abort();
    }
    snprintf(g_file, sizeof g_file, "%s/f.hm", g_dir);
    atexit(cleanup);
    return 0;
}

static void name_of(unsigned i, uint32_t mnb, char *buf, size_t *len) {
    /* short ASCII names, one with a NUL, one 3-byte UTF-8 character, one at exactly mnb bytes */
    i %= NAMES;
    if (i == 13) {
        memcpy(buf, "a\0b", 3);
        *len = 3;
    } else if (i == 14) {
        memcpy(buf, "\xe2\x82\xac", 3);
        *len = 3;
    } else if (i == 15) {
        memset(buf, 'L', mnb);
        *len = mnb;
    } else {
        *len = (size_t)snprintf(buf, 16, "n%u", i);
    }
}

static int write_file(const char *path, const unsigned char *b, size_t n) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return -1;
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(fd, b + done, n - done);
        if (w <= 0) {
            close(fd);
            return -1;
        }
        done += (size_t)w;
    }
    return close(fd);
}

/* Reads a whole file (malloc'd, NULL on failure); also the replay driver's reader. */
unsigned char *hm_fuzz_read_file(const char *path, size_t *n) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return NULL;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        close(fd);
        return NULL;
    }
    unsigned char *b = malloc((size_t)st.st_size + 1);
    size_t done = 0;
    while (b && done < (size_t)st.st_size) {
        ssize_t r = read(fd, b + done, (size_t)st.st_size - done);
        if (r <= 0) break;
        done += (size_t)r;
    }
    close(fd);
    *n = done;
    return b;
}

/* A valid file of the chosen geometry, filled by the library itself; cached per choice. */
static const unsigned char *base_image(unsigned ci, unsigned mi, unsigned pi, size_t *len) {
    if (g_images[ci][mi][pi] == NULL) {
        char p[400];
        snprintf(p, sizeof p, "%s/base.hm", g_dir);
        unlink(p);
        hm_options o;
        hm_options_init(&o);
        hm_options_set_capacity(&o, CAPS[ci]);
        hm_options_set_max_name_bytes(&o, MNBS[mi]);
        hm_store *s;
        char err[512];
        if (hm_open_ex(p, &o, &s, err, sizeof err) != HM_OK) {
            fprintf(stderr, "fuzz_hintmap: cannot create a base file: %s\n", err);
            abort();
        }
        uint32_t cap = CAPS[ci];
        uint32_t n = pi == 0 ? 0 : pi == 1 ? 3 : pi == 2 ? cap / 2 : cap + 5;
        char nb[1100];
        for (uint32_t i = 0; i < n; i++) {
            size_t nl;
            if (i < NAMES) name_of(i, MNBS[mi], nb, &nl);
            else nl = (size_t)snprintf(nb, sizeof nb, "p%u", i);
            if (nl > MNBS[mi]) nl = MNBS[mi];
            hm_record(s, nb, nl, 1000u * (i + 1), i);
            if (i % 2) hm_record(s, nb, nl, 7, 7); /* some with their reference bit set */
        }
        FUZZ_CHECK(hm_close(s) == HM_OK);
        g_images[ci][mi][pi] = hm_fuzz_read_file(p, &g_image_len[ci][mi][pi]);
        unlink(p);
        FUZZ_CHECK(g_images[ci][mi][pi] != NULL);
    }
    *len = g_image_len[ci][mi][pi];
    return g_images[ci][mi][pi];
}

static uint64_t own_token(void) {
    static uint64_t cached;
    if (cached) return cached;
    char buf[1024];
    FILE *f = fopen("/proc/self/stat", "r");
    if (f == NULL) return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    if (p == NULL) return 0;
    p++;
    for (int field = 3; field < 22 && *p; field++) {
        while (*p == ' ') p++;
        while (*p && *p != ' ') p++;
    }
    cached = (uint64_t)getpid() << HM_TOKEN_START_BITS | (strtoull(p, NULL, 10) & HM_TOKEN_START_MASK);
    return cached;
}

static uint64_t interesting(uint8_t sel, uint32_t cap, uint32_t mnb) {
    switch (sel % 19) {
    case 0: return 0;
    case 1: return 1;
    case 2: return 2;
    case 3: return cap ? cap - 1 : 0;
    case 4: return cap;
    case 5: return (uint64_t)cap + 1;
    case 6: return mnb;
    case 7: return (uint64_t)mnb + 1;
    case 8: return HM_VALUE_MAX;
    case 9: return UINT64_C(1) << 63;
    case 10: return UINT64_MAX;
    case 11: return 0xFFFFFFFFu;
    case 12: return UINT64_C(1) << 32;
    case 13: return own_token();                      /* a live process: this one */
    case 14: return UINT64_C(1) << 32 | 1;            /* owner word: entry 0, generation 1 */
    case 15: return UINT64_C(1) << 32 | 1025;         /* owner word naming entry 1024 (out of range) */
    case 16: return 3;
    case 17: return UINT64_C(2) << 32 | 1;           /* owner word: entry 0, generation 2 (often live) */
    default: return (uint64_t)cap * 2;
    }
}

typedef struct geo {
    uint32_t cap, mnb, slot_bytes, index_entries;
    size_t index_off, ref_off, slots_off;
} geo;

static void apply_patches(unsigned char *f, size_t flen, const geo *g, const uint8_t **pp, const uint8_t *end) {
    const uint8_t *p = *pp;
    if (p >= end) return;
    unsigned n = *p++ % 17;
    for (unsigned i = 0; i < n && end - p >= 5; i++) {
        unsigned region = p[0] % 9;
        size_t off = (size_t)p[1] | (size_t)p[2] << 8 | (size_t)p[3] << 16;
        unsigned len = p[4];
        p += 5;
        size_t lo = 0, span = flen;
        switch (region) {
        case 0: span = 256; break;
        case 1: lo = 4096; span = 16u * 1024u; break;
        case 2: lo = g->index_off; span = (size_t)g->index_entries * 8; break;
        case 3: lo = g->slots_off; span = (size_t)g->cap * g->slot_bytes; break;
        default: break;
        }
        if (region >= 5) {
            if (p >= end) break;
            uint8_t sel = *p++;
            uint64_t v = interesting(sel, g->cap, g->mnb);
            size_t at;
            if (region == 8) {
                uint32_t entry = 512 + (uint32_t)(off % 512);
                uint64_t gen = 1 + (off >> 9) % 3;
                uint64_t tok = own_token();
                size_t we = 4096 + (size_t)entry * 16;
                memcpy(f + we, &tok, 8);
                memcpy(f + we + 8, &gen, 8);
                v = gen << 32 | (entry + 1);
                at = sel % 2 == 0 || g->cap == 0 ? 128 : g->slots_off + (size_t)(sel / 2 % g->cap) * g->slot_bytes;
            } else if (region == 5) {
                at = 128 + (off % 16) * 8; /* a coordination or statistics word */
            } else if (region == 6) {
                if (g->cap == 0) continue;
                /* lock, seq, gen, hash, name_len (u32), the slot's reference byte (v1's `referenced`
                 * at 36, so that the inputs of v1 still aim at the same kind of field), a copy field */
                static const unsigned fields[] = {0, 8, 16, 24, 32, 36, 64, 72, 80, 88, 96, 104};
                uint32_t k = (uint32_t)(off / 16 % g->cap);
                at = g->slots_off + (size_t)k * g->slot_bytes + fields[off % 12];
                if (fields[off % 12] == 32) {
                    uint32_t v32 = (uint32_t)v;
                    memcpy(f + at, &v32, 4);
                    continue;
                }
                if (fields[off % 12] == 36) { /* any byte value: a reader treats non-zero as 1 */
                    f[g->ref_off + k] = (unsigned char)v;
                    continue;
                }
            } else {
                /* an index entry with the tag of name (off % NAMES) naming slot v - 1 */
                char nb[1100];
                size_t nl;
                name_of((unsigned)off, g->mnb, nb, &nl);
                uint64_t h = hm_hash64(nb, nl);
                uint32_t dist = (uint32_t)((off >> 8) % 4);
                at = g->index_off + (size_t)((h + dist) & (g->index_entries - 1)) * 8;
                if ((off >> 10) % 4 == 3) dist++; /* a damaged dist: lookups must skip it, deletion must stay in the table */
                v = hm_index_entry(h, dist, (uint32_t)(v & HM_INDEX_SLOT_MASK) - 1);
            }
            if (at + 8 <= flen) memcpy(f + at, &v, 8);
            continue;
        }
        size_t k = len % 32 + 1;
        if (k > (size_t)(end - p)) k = (size_t)(end - p);
        if (span != 0 && lo < flen) {
            size_t at = lo + off % span;
            size_t w = at + k > flen ? flen - at : k;
            memcpy(f + at, p, w);
        }
        p += k;
    }
    *pp = p;
}

static void check_record(const hm_region_record *r) {
    FUZZ_CHECK(r->dispatch_count > 0);
    FUZZ_CHECK(r->kernel_ns_max <= r->kernel_ns_total);
    FUZZ_CHECK(r->kernel_ns_total / r->dispatch_count <= r->kernel_ns_max);
    FUZZ_CHECK(r->kernel_ns_total <= HM_VALUE_MAX && r->bytes_total <= HM_VALUE_MAX);
}

static void iterate(hm_store *s) {
    uint32_t hw = hm_high_water(s);
    FUZZ_CHECK(hw <= hm_capacity(s));
    char nb[HM_MAX_NAME_BYTES_LIMIT + 1];
    for (uint32_t k = 0; k < hw; k++) {
        size_t nl = 0;
        hm_region_record r;
        int rc = hm_region_at(s, k, nb, sizeof nb, &nl, &r);
        if (rc == HM_OK) {
            FUZZ_CHECK(nl >= 1 && nl <= hm_max_name_bytes(s));
            check_record(&r);
            hm_region_record r2;
            if (hm_lookup(s, nb, nl, &r2) == HM_OK) check_record(&r2);
        } else {
            FUZZ_CHECK(rc == HM_ENOTFOUND || rc == HM_EINVAL);
        }
    }
    FUZZ_CHECK(hm_region_at(s, hw, nb, sizeof nb, &(size_t){0}, &(hm_region_record){0}) == HM_ENOTFOUND);
    uint64_t n = 0;
    FUZZ_CHECK(hm_size(s, &n) == HM_OK);
    FUZZ_CHECK(n <= hm_capacity(s));
    hm_stats st;
    FUZZ_CHECK(hm_stats_get(s, &st) == HM_OK);
}

static void run_ops(hm_store *rw, hm_store *ro, uint32_t mnb, const uint8_t *p, const uint8_t *end) {
    hm_region *handles[4] = {0};
    char nb[HM_MAX_NAME_BYTES_LIMIT + 64];
    unsigned ops = 0;
    while (p < end && ops++ < 64) {
        uint8_t b = *p++;
        unsigned op = b & 15;
        size_t nl;
        name_of(b >> 4, mnb, nb, &nl);
        hm_store *s = ((op + (b >> 4)) & 1) && ro ? ro : rw ? rw : ro;
        hm_region_record r;
        int rc;
        switch (op) {
        case 0:
        case 1:
        case 2: {
            uint64_t ns = p < end ? (uint64_t)*p++ * 1000 : 5;
            if (rw) {
                rc = hm_record(rw, nb, nl, op == 2 ? UINT64_MAX - ns : ns, ns);
                FUZZ_CHECK(rc == HM_OK || rc == HM_DROPPED || rc == HM_ENAMETOOLONG);
            }
            break;
        }
        case 3:
        case 4:
            rc = hm_lookup(s, nb, nl, &r);
            if (rc == HM_OK) check_record(&r);
            break;
        case 5:
            rc = hm_is_hot(s, nb, nl);
            FUZZ_CHECK(rc == 0 || rc == 1 || rc == HM_ENAMETOOLONG);
            break;
        case 6: {
            unsigned h = (b >> 4) & 3;
            if (handles[h] == NULL && hm_region_resolve(s, nb, nl, &handles[h]) != HM_OK) break;
            if (rw && !hm_is_read_only(s)) {
                rc = hm_region_add(handles[h], 3, 3);
                FUZZ_CHECK(rc == HM_OK || rc == HM_DROPPED);
            }
            if (hm_region_lookup(handles[h], &r) == HM_OK) check_record(&r);
            break;
        }
        case 7:
            iterate(s);
            break;
        case 8:
            FUZZ_CHECK(hm_check(s) == HM_OK);
            break;
        case 9:
        case 10: {
            /* a raw name from the input: any bytes, any length (validation is part of the API) */
            if (p >= end) break;
            size_t l = *p++ % 80;
            if (l > (size_t)(end - p)) l = (size_t)(end - p);
            memcpy(nb, p, l);
            p += l;
            if (op == 9 && rw) {
                rc = hm_record(rw, nb, l, 1, 1);
                FUZZ_CHECK(rc == HM_OK || rc == HM_DROPPED || rc == HM_ENAMETOOLONG || rc == HM_EEMPTYNAME ||
                           rc == HM_EBADNAME);
            } else {
                rc = hm_lookup(s, nb, l, &r);
                if (rc == HM_OK) check_record(&r);
            }
            break;
        }
        case 11:
            /* churn: enough new names to force evictions and recovery of damaged words */
            if (rw) {
                for (unsigned i = 0; i < 12; i++) {
                    size_t l = (size_t)snprintf(nb, sizeof nb, "c%u-%u", b >> 4, i);
                    rc = hm_record(rw, nb, l, i + 1, 1);
                    FUZZ_CHECK(rc == HM_OK || rc == HM_DROPPED || rc == HM_ENAMETOOLONG);
                }
            }
            break;
        case 12: {
            FUZZ_CHECK(hm_flush(s) == HM_OK);
            char msg[64];
            hm_last_error_copy(s, msg, sizeof msg);
            FUZZ_CHECK(hm_strerror(-(int)(b >> 4) - 10) != NULL);
            (void)hm_hot_threshold_ns(s);
            break;
        }
        default: {
            uint64_t n;
            FUZZ_CHECK(hm_size(s, &n) == HM_OK && n <= hm_capacity(s));
            FUZZ_CHECK(hm_high_water(s) <= hm_capacity(s));
            break;
        }
        }
    }
    for (unsigned h = 0; h < 4; h++) hm_region_free(handles[h]);
}

/* Opens g_file (read-only or not). A failed open must leave the file byte for byte unchanged. */
static hm_store *open_checked(int read_only, const unsigned char *bytes, size_t len) {
    hm_options o;
    hm_options_init(&o);
    o.read_only = read_only;
    hm_store *s = NULL;
    char err[512];
    int rc = hm_open_ex(g_file, &o, &s, err, sizeof err);
    if (rc == HM_OK) {
        FUZZ_CHECK(s != NULL);
        hm_test_set_lock_wait_limit_ns(s, 2000000); /* a hostile live owner costs 2 ms, not 5 s */
        return s;
    }
    FUZZ_CHECK(s == NULL);
    FUZZ_CHECK(rc < 0 && rc != HM_EINVAL);
    FUZZ_CHECK(strstr(err, g_file) != NULL); /* the message names the file */
    size_t n;
    unsigned char *after = hm_fuzz_read_file(g_file, &n);
    FUZZ_CHECK(after != NULL);
    FUZZ_CHECK(n == len && memcmp(after, bytes, len) == 0);
    free(after);
    return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    setup();
    const uint8_t *end = data + size;
    unsigned char *f;
    size_t flen;
    uint32_t mnb;
    const uint8_t *script;
    int want_ro = 1, want_rw = 1;
    static const uint8_t RAW_SCRIPT[] = {0x07, 0x10, 0x24, 0x33, 0x56, 0x0b, 0x07, 0x18, 0x4c, 0x08, 0x2e, 0x61};
    if ((data[0] & 0xC0) == 0xC0) {
        flen = size - 1;
        f = malloc(flen + 1);
        memcpy(f, data + 1, flen);
        mnb = 64;
        script = RAW_SCRIPT;
        end = RAW_SCRIPT + sizeof RAW_SCRIPT;
        if (flen >= 32) memcpy(&mnb, f + 28, 4);
        if (mnb == 0 || mnb > HM_MAX_NAME_BYTES_LIMIT) mnb = 64;
    } else {
        if (size < 5) return 0;
        unsigned ci = data[1] % NCAPS, mi = data[2] % NMNBS, pi = data[3] % 4;
        const unsigned char *img = base_image(ci, mi, pi, &flen);
        f = malloc(flen);
        memcpy(f, img, flen);
        hm_file_header h;
        memcpy(&h, f, sizeof h);
        geo g = {CAPS[ci], MNBS[mi], h.slot_bytes, h.index_entries, (size_t)h.index_offset, (size_t)h.ref_table_offset,
                 (size_t)h.slots_offset};
        mnb = MNBS[mi];
        const uint8_t *p = data + 4;
        apply_patches(f, flen, &g, &p, end);
        if (data[0] & 1) {
            uint64_t ck = hm_hash64(f + 8, 112);
            memcpy(f + 120, &ck, 8);
        }
        want_ro = !(data[0] & 2);
        want_rw = !(data[0] & 4);
        script = p;
    }
    FUZZ_CHECK(write_file(g_file, f, flen) == 0);
    hm_store *rw = want_rw ? open_checked(0, f, flen) : NULL;
    hm_store *ro = want_ro ? open_checked(1, f, flen) : NULL;
    if (rw || ro) run_ops(rw, ro, mnb, script, end);
    if (rw) FUZZ_CHECK(hm_close(rw) == HM_OK);
    if (ro) FUZZ_CHECK(hm_close(ro) == HM_OK);
    free(f);
    return 0;
}
