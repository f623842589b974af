/*
 * test_opener.c - opener: creating and opening a file, its header checked and refused, the writer
 * table (FORMAT §5, §9; Java: HintFileValidationTest, CreationRaceTest, ExclusiveCreationTest).
 * Registered by the runner, test_unit.c; run under ASan+UBSan (build/test_unit_asan).
 *
 * Tests that need root (chown to another uid, mounting a tmpfs in a private mount namespace)
 * print "info: skipped ..." for that part when they cannot do it; everything else runs as any
 * user. Processes that must die or hit a limit are forked children; they report through their
 * exit status, never through CHECK.
 */
#define _GNU_SOURCE 1
#include "test_cases.h"
#include "test_support.h"

#include "hintmap.h"
#include "hintmap_format.h"
#include "hm_internal.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/xattr.h>

static int count_tmp_files(void) {
    int n = 0;
    char cmd[700];
    snprintf(cmd, sizeof cmd, "ls %s | grep -c '\\.tmp$'", hm_t_dir);
    FILE *p = popen(cmd, "r");
    if (p) {
        if (fscanf(p, "%d", &n) != 1) n = -1;
        pclose(p);
    }
    return n;
}

static void write_header_checksum(unsigned char *f) {
    uint64_t ck = hm_hash64(f + 8, 112);
    memcpy(f + 120, &ck, 8);
}

static void expect_open_fails(const char *name, const unsigned char *bytes, size_t len, int code, const char *needle) {
    const char *p = tpath(name);
    CHECK(t_write_file(p, bytes, len) == 0);
    for (int ro = 0; ro < 2; ro++) {
        hm_options o;
        hm_options_init(&o);
        o.read_only = ro;
        hm_store *s = (hm_store *)1;
        char err[512];
        int rc = hm_open_ex(p, &o, &s, err, sizeof err);
        if (rc != code) fprintf(stderr, "  %s (ro=%d): got %d (%s), want %d\n", name, ro, rc, err, code);
        CHECK_EQ(rc, code);
        CHECK(s == NULL);
        if (needle && !strstr(err, needle)) fprintf(stderr, "  %s: message '%s' lacks '%s'\n", name, err, needle);
        CHECK(needle == NULL || strstr(err, needle) != NULL);
        CHECK(strstr(err, p) != NULL); /* names the file */
        size_t got_len;
        unsigned char *after = t_read_file(p, &got_len);
        CHECK(after != NULL);
        int same = got_len == len && memcmp(after, bytes, len) == 0;
        free(after);
        CHECK(same); /* a failed open never modifies the file */
    }
    CHECK_EQ(count_tmp_files(), 0);
}

typedef struct race_result {
    int rc;
    uint64_t created_epoch_ms, checksum;
} race_result;

typedef struct race_shared {
    race_result r[16];
    _Atomic int reader_bad, reader_ok, reader_absent;
    char reader_msg[600];
} race_shared;

static void pause_after_allocate(void *arg, const char *tmp_path) {
    int fd = *(int *)arg;
    size_t n = strlen(tmp_path) + 1;
    if (write(fd, tmp_path, n) != (ssize_t)n) _exit(60);
    for (;;) pause(); /* killed here, between allocation and link */
}

static char proc_state(pid_t pid) {
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    FILE *f = fopen(path, "r");
    if (f == NULL) return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    return p && p[1] == ' ' ? p[2] : '?';
}

static void test_create_writes_documented_header_and_reopen_checks_options(void) {
    const char *p = tpath("c.hm");
    hm_options o;
    hm_options_init(&o);
    hm_options_set_capacity(&o, 100);
    hm_options_set_max_name_bytes(&o, 40);
    hm_options_set_hot_threshold_ns(&o, 5000);
    hm_store *s;
    struct timespec before, after; /* the creation time lies between them, however long the open took */
    clock_gettime(CLOCK_REALTIME, &before);
    OPEN_OK(s, p, &o);
    clock_gettime(CLOCK_REALTIME, &after);
    struct stat st;
    CHECK(stat(p, &st) == 0);
    CHECK_EQ(st.st_size, 49152); /* 128+64 slot bytes, 256 index entries, 100 reference bytes: §2 */
    CHECK_EQ(st.st_mode & 0777, 0600);
    CHECK_EQ(count_tmp_files(), 0);
    hm_file_header *h = hm_test_mapping(s);
    CHECK_EQ_U64(atomic_load(&h->magic), HM_MAGIC);
    CHECK_EQ(h->format_version, 3);
    CHECK_EQ(h->header_bytes, 4096);
    CHECK_EQ(h->capacity, 100);
    CHECK_EQ(h->max_name_bytes, 40);
    CHECK_EQ(h->slot_bytes, 192);
    CHECK_EQ(h->index_entries, 256);
    CHECK_EQ(h->max_probe, 128);
    CHECK_EQ(h->writer_entries, 1024);
    CHECK_EQ(h->hot_threshold_ns, 5000);
    CHECK_EQ(h->writer_table_offset, 4096);
    CHECK_EQ(h->index_offset, 20480);
    CHECK_EQ(h->ref_table_offset, 24576); /* roundup(20480 + 8 * 256, 4096) */
    CHECK_EQ(h->slots_offset, 28672);     /* roundup(24576 + 100, 4096) */
    CHECK_EQ(h->file_bytes, 49152);       /* roundup(28672 + 100 * 192, 4096) */
    CHECK_EQ_U64(h->header_checksum, hm_hash64((unsigned char *)h + 8, 112));
    CHECK(h->created_epoch_ms >= (uint64_t)before.tv_sec * 1000u + (uint64_t)before.tv_nsec / 1000000u);
    CHECK(h->created_epoch_ms <= (uint64_t)after.tv_sec * 1000u + (uint64_t)after.tv_nsec / 1000000u);
    for (int i = 104; i < 120; i++) CHECK_EQ(((unsigned char *)h)[i], 0); /* reserved */
    CHECK_EQ(hm_capacity(s), 100);
    CHECK_EQ(hm_max_name_bytes(s), 40);
    CHECK_EQ(hm_hot_threshold_ns(s), 5000);
    uint64_t owner = hm_test_owner(s);
    hm_writer_entry *w = (hm_writer_entry *)((unsigned char *)h + 4096) + ((owner & 0xFFFFFFFF) - 1);
    CHECK((atomic_load(&w->token) >> 42) == (uint64_t)getpid());
    CHECK_EQ(owner >> 32, atomic_load(&w->generation) & 0xFFFFFFFF);
    CHECK_EQ(t_rec(s, "alpha", 10, 1), HM_OK);
    CHECK_EQ(hm_close(s), HM_OK);

    /* reopen without options: the file's layout is used */
    OPEN_OK(s, p, NULL);
    CHECK_EQ(hm_capacity(s), 100);
    hm_region_record r;
    CHECK_EQ(t_look(s, "alpha", &r), HM_OK);
    CHECK_EQ(r.dispatch_count, 1);
    CHECK_EQ(hm_close(s), HM_OK);
    /* explicit and equal: fine */
    OPEN_OK(s, p, &o);
    CHECK_EQ(hm_close(s), HM_OK);
    /* explicit and different */
    char err[512];
    hm_options x = opts_cap(200);
    CHECK_EQ(hm_open_ex(p, &x, &s, err, sizeof err), HM_EOPTIONS);
    CHECK(s == NULL);
    CHECK(strstr(err, "capacity") != NULL);
    hm_options_init(&x);
    x.capacity = 7; /* no mask, but differs from the default: explicit */
    CHECK_EQ(hm_open(p, &x, &s), HM_EOPTIONS);
    hm_options_init(&x);
    hm_options_set_capacity(&x, HM_DEFAULT_CAPACITY); /* default value, but marked explicit */
    CHECK_EQ(hm_open(p, &x, &s), HM_EOPTIONS);
    hm_options_init(&x);
    hm_options_set_hot_threshold_ns(&x, 1);
    CHECK_EQ(hm_open(p, &x, &s), HM_EOPTIONS);
    hm_options_init(&x);
    hm_options_set_max_name_bytes(&x, 64);
    CHECK_EQ(hm_open_ex(p, &x, &s, err, sizeof err), HM_EOPTIONS);
    CHECK(strstr(err, "max_name_bytes") != NULL);
    /* out-of-range options */
    hm_options_init(&x);
    x.capacity = HM_MAX_CAPACITY + 1;
    CHECK_EQ(hm_open(tpath("never.hm"), &x, &s), HM_EINVAL);
    hm_options_init(&x);
    x.max_name_bytes = 0;
    CHECK_EQ(hm_open(tpath("never.hm"), &x, &s), HM_EINVAL);
    x.max_name_bytes = HM_MIN_NAME_BYTES - 1; /* 32 cannot hold a stored form's '~' and 32 hex digits */
    CHECK_EQ(hm_open_ex(tpath("never.hm"), &x, &s, err, sizeof err), HM_EINVAL);
    CHECK(strstr(err, "max_name_bytes 32 is outside [33, 1024]") != NULL);
    x.max_name_bytes = 1025;
    CHECK_EQ(hm_open(tpath("never.hm"), &x, &s), HM_EINVAL);
    hm_options_init(&x);
    x.hot_threshold_ns = UINT64_C(1) << 63;
    CHECK_EQ(hm_open(tpath("never.hm"), &x, &s), HM_EINVAL);
    CHECK(access(tpath("never.hm"), F_OK) != 0);
    CHECK_EQ(hm_open(NULL, NULL, &s), HM_EINVAL);
    CHECK_EQ(hm_open(p, NULL, NULL), HM_EINVAL);

    /* read-only */
    hm_options ro;
    hm_options_init(&ro);
    ro.read_only = 1;
    OPEN_OK(s, p, &ro);
    CHECK(hm_is_read_only(s));
    CHECK_EQ(t_look(s, "alpha", &r), HM_OK);
    CHECK_EQ(t_rec(s, "alpha", 1, 1), HM_EREADONLY);
    CHECK(strstr(hm_last_error(s), "read-only") != NULL);
    hm_region *hr;
    CHECK_EQ(hm_region_resolve(s, "alpha", 5, &hr), HM_OK);
    CHECK_EQ(hm_region_lookup(hr, &r), HM_OK);
    CHECK_EQ(hm_region_add(hr, 1, 1), HM_EREADONLY);
    hm_region_free(hr);
    CHECK_EQ(hm_close(s), HM_OK);
    CHECK_EQ(hm_open_ex(tpath("missing.hm"), &ro, &s, err, sizeof err), HM_EMISSING);
    CHECK(strstr(err, "No such file") != NULL);
    CHECK(access(tpath("missing.hm"), F_OK) != 0);

}

/* Java's Problem.MISSING (HintFileOpener): nothing at the path of a read-only open, and no
 * directory to create a file in, are HM_EMISSING ("no hints yet"), not HM_EIO; nothing is created. */
static void test_missing_file_read_only_and_missing_directory_are_emissing(void) {
    hm_options ro;
    hm_options_init(&ro);
    ro.read_only = 1;
    hm_store *s = (hm_store *)&ro; /* not NULL: the failed open must set it to NULL */
    char err[512];
    const char *p = tpath("never-recorded.hm");
    CHECK_EQ(hm_open_ex(p, &ro, &s, err, sizeof err), HM_EMISSING);
    CHECK(s == NULL);
    CHECK(strstr(err, "no such hint file") != NULL);
    CHECK(strstr(err, p) != NULL);
    CHECK(access(p, F_OK) != 0);
    CHECK(strstr(hm_strerror(HM_EMISSING), "no such hint file") != NULL);

    /* a writer's open in a directory that does not exist: creation fails, nothing is made */
    char dir[1024], in_dir[1100];
    snprintf(dir, sizeof dir, "%s", tpath("no-such-dir"));
    snprintf(in_dir, sizeof in_dir, "%s/h.hm", dir);
    CHECK_EQ(hm_open_ex(in_dir, NULL, &s, err, sizeof err), HM_EMISSING);
    CHECK(s == NULL);
    CHECK(strstr(err, "no directory") != NULL);
    CHECK(strstr(err, "No such file") != NULL);
    CHECK(access(dir, F_OK) != 0);
    /* read-only in the missing directory: the same code */
    CHECK_EQ(hm_open_ex(in_dir, &ro, &s, err, sizeof err), HM_EMISSING);

    /* other failures to open stay what they were: a path through a regular file is ENOTDIR, HM_EIO */
    const char *file = tpath("plain-file");
    FILE *f = fopen(file, "w");
    CHECK(f != NULL);
    if (f) fclose(f);
    char through[1100];
    snprintf(through, sizeof through, "%s/h.hm", file);
    CHECK_EQ(hm_open_ex(through, &ro, &s, err, sizeof err), HM_EIO);
    CHECK_EQ(hm_open_ex(through, NULL, &s, err, sizeof err), HM_EIO);
}

static void test_close_releases_writer_entry_and_readers_claim_none(void) {
    const char *p = tpath("w.hm");
    hm_store *s, *r;
    OPEN_OK(s, p, NULL);
    uint64_t owner = hm_test_owner(s);
    hm_options ro;
    hm_options_init(&ro);
    ro.read_only = 1;
    OPEN_OK(r, p, &ro);
    CHECK_EQ(hm_test_owner(r), 0);
    hm_writer_entry *w = (hm_writer_entry *)((unsigned char *)hm_test_mapping(r) + 4096) + ((owner & 0xFFFFFFFF) - 1);
    CHECK(atomic_load(&w->token) != 0);
    CHECK_EQ(hm_close(s), HM_OK);
    CHECK_EQ(atomic_load(&w->token), 0);
    CHECK_EQ(hm_close(r), HM_OK);
}

/* §5 step 2, §12: the committed v1 golden file (and its copy anywhere) is refused with
 * HM_EVERSION, before any other check, with a message naming the file and the command that
 * converts it; the file is left as it was. */
static void test_v1_file_is_refused_naming_hintmap_upgrade(void) {
    char src[1024];
    snprintf(src, sizeof src, "%s/golden-v1.hints", hm_t_vectors);
    size_t len;
    unsigned char *v1 = t_read_file(src, &len);
    if (v1 == NULL) fprintf(stderr, "  cannot read %s\n", src);
    CHECK(v1 != NULL);
    uint32_t ver;
    memcpy(&ver, v1 + 8, 4);
    CHECK_EQ(ver, 1);
    char want[1200];
    snprintf(want, sizeof want, "hint file format version 1; this library reads version 3 \xe2\x80\x94 convert it with: "
                                "hintmap upgrade %s", tpath("golden-v1.hints"));
    expect_open_fails("golden-v1.hints", v1, len, HM_EVERSION, want);
    free(v1);
    CHECK(strstr(hm_strerror(HM_EVERSION), "hintmap upgrade") != NULL);
    CHECK_EQ(hm_format_version(), 3);
}

static void test_damaged_header_is_refused_and_file_left_unmodified(void) {
    char p[1024];
    snprintf(p, sizeof p, "%s", tpath("good.hm"));
    hm_options o = opts_cap(16);
    hm_store *s;
    OPEN_OK(s, p, &o);
    CHECK_EQ(t_rec(s, "x", 1, 1), HM_OK);
    CHECK_EQ(hm_close(s), HM_OK);
    size_t len;
    unsigned char *good = t_read_file(p, &len);
    CHECK(good != NULL && len > 8192);
    unsigned char *f = malloc(len + 4096);
    CHECK(f != NULL);
#define RESET() memcpy(f, good, len)
    expect_open_fails("empty.hm", f, 0, HM_ETRUNCATED, "truncated");
    RESET();
    expect_open_fails("short.hm", f, 100, HM_ETRUNCATED, "truncated");
    RESET();
    expect_open_fails("cut.hm", f, 8192, HM_ETRUNCATED, "file_bytes");
    RESET();
    memset(f, 0, 8);
    expect_open_fails("unfinished.hm", f, len, HM_EUNFINISHED, "magic");
    RESET();
    f[0] ^= 0x20;
    expect_open_fails("magic.hm", f, len, HM_ENOTHINT, "not a hint file");
    RESET();
    f[8] = 4;
    expect_open_fails("newer.hm", f, len, HM_EVERSION, "newer");
    RESET();
    f[8] = 0;
    expect_open_fails("older.hm", f, len, HM_EVERSION, "format_version");
    RESET();
    f[8] = 1; /* a v1 file: refused at the version check, before its (v1) fingerprint is compared */
    expect_open_fails("v1.hm", f, len, HM_EVERSION, "format version 1; this library reads version 3");
    {
        char want[1200];
        snprintf(want, sizeof want, "convert it with: hintmap upgrade %s", tpath("v1.hm"));
        expect_open_fails("v1.hm", f, len, HM_EVERSION, want);
        /* where a C user gets that command: the tool's distribution of this version */
        expect_open_fails("v1.hm", f, len, HM_EVERSION, "hintmap-" HM_VERSION_STRING "-bin.tar.gz");
    }
    RESET();
    f[8] = 2; /* a v2 file (same layout, v2's stored names): refused, naming the command that converts it */
    {
        char want[1200];
        snprintf(want, sizeof want, "format version 2; this library reads version 3 \xe2\x80\x94 convert it with: "
                                    "hintmap upgrade %s", tpath("v2.hm"));
        expect_open_fails("v2.hm", f, len, HM_EVERSION, want);
    }
    RESET();
    f[56] ^= 0x01; /* created_epoch_ms */
    expect_open_fails("flip56.hm", f, len, HM_ECHECKSUM, "checksum");
    RESET();
    f[30] ^= 0x01; /* max_name_bytes */
    expect_open_fails("flip30.hm", f, len, HM_ECHECKSUM, "checksum");
    RESET();
    f[100] = 1; /* ref_table_offset */
    expect_open_fails("flip100.hm", f, len, HM_ECHECKSUM, "checksum");
    RESET();
    f[110] = 1; /* reserved */
    expect_open_fails("flip110.hm", f, len, HM_ECHECKSUM, "checksum");
    RESET();
    f[123] ^= 0x80; /* the checksum itself */
    expect_open_fails("flip123.hm", f, len, HM_ECHECKSUM, "checksum");
    RESET();
    f[16] ^= 0x01;
    write_header_checksum(f);
    expect_open_fails("layout.hm", f, len, HM_ELAYOUT, "layout");
    RESET();
    f[24] = 17; /* capacity without the matching derived values */
    write_header_checksum(f);
    expect_open_fails("cap.hm", f, len, HM_EINCONSISTENT, "index_entries");
    RESET();
    f[12] = 1; /* header_bytes 0x1001 */
    write_header_checksum(f);
    expect_open_fails("hdrbytes.hm", f, len, HM_EINCONSISTENT, "header_bytes");
    RESET();
    memset(f + 28, 0, 4); /* max_name_bytes 0 */
    write_header_checksum(f);
    expect_open_fails("mnb0.hm", f, len, HM_EINCONSISTENT, "max_name_bytes");
    RESET();
    f[28] = 32; /* max_name_bytes 256 -> 32: below the minimum, named before any derived value */
    f[29] = 0;
    write_header_checksum(f);
    expect_open_fails("mnb32.hm", f, len, HM_EINCONSISTENT, "max_name_bytes is 32, outside [33, 1024]");
    RESET();
    f[40] = 7; /* max_probe */
    write_header_checksum(f);
    expect_open_fails("probe.hm", f, len, HM_EINCONSISTENT, "max_probe");
    RESET();
    f[97] ^= 0x10; /* ref_table_offset off by 4096 */
    write_header_checksum(f);
    expect_open_fails("reftab.hm", f, len, HM_EINCONSISTENT, "ref_table_offset");
    RESET();
    f[81] ^= 0x10; /* slots_offset off by 4096 */
    write_header_checksum(f);
    expect_open_fails("slotsoff.hm", f, len, HM_EINCONSISTENT, "slots_offset");
    RESET();
    f[55] = 0x80; /* hot threshold with the top bit */
    write_header_checksum(f);
    expect_open_fails("hot.hm", f, len, HM_EINCONSISTENT, "hot_threshold_ns");
    RESET();
    memset(f + len, 0, 4096);
    expect_open_fails("long.hm", f, len + 4096, HM_EINCONSISTENT, "file_bytes");
    RESET();
    /* the good file still opens */
    OPEN_OK(s, p, NULL);
    CHECK_EQ(hm_close(s), HM_OK);
#undef RESET
    free(f);
    free(good);
}

static void test_full_writer_table_refuses_writers_not_readers(void) {
    const char *p = tpath("full.hm");
    hm_options o = opts_cap(4);
    enum { N = 1024 };
    hm_store **ss = calloc(N, sizeof *ss);
    CHECK(ss != NULL);
    for (int i = 0; i < N; i++) OPEN_OK(ss[i], p, &o);
    hm_store *extra;
    char err[512];
    CHECK_EQ(hm_open_ex(p, &o, &extra, err, sizeof err), HM_EWRITERS);
    CHECK(strstr(err, "writer table full") != NULL);
    hm_options ro;
    hm_options_init(&ro);
    ro.read_only = 1;
    OPEN_OK(extra, p, &ro); /* readers claim nothing */
    CHECK_EQ(hm_close(extra), HM_OK);
    CHECK_EQ(hm_close(ss[500]), HM_OK);
    OPEN_OK(ss[500], p, &o);
    CHECK_EQ(t_rec(ss[500], "w", 1, 1), HM_OK);
    for (int i = 0; i < N; i++) CHECK_EQ(hm_close(ss[i]), HM_OK);
    free(ss);
}

/* N processes created together (released by closing a pipe) open the same new path while a
 * reader polls it read-only: all succeed on one file initialised once, their records all land
 * in it, no temporary file is left, and the reader only ever sees "absent" or a valid file. */
static void test_racing_creators_share_one_file_initialised_once(void) {
    enum { ROUNDS = 8, N = 6, R = 400, REG = 3 };
    race_shared *sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(sh != MAP_FAILED);
    memset(sh, 0, sizeof *sh);
    for (int round = 0; round < ROUNDS; round++) {
        char p[1024];
        snprintf(p, sizeof p, "%s/race-%d.hm", hm_t_dir, round);
        int gate[2];
        CHECK(pipe(gate) == 0);
        pid_t pids[N + 1];
        fflush(NULL);
        for (int i = 0; i <= N; i++) {
            pids[i] = fork();
            CHECK(pids[i] >= 0);
            if (pids[i] != 0) continue;
            close(gate[1]);
            char c;
            if (read(gate[0], &c, 1) != 0) _exit(50); /* EOF: everyone starts now */
            if (i == N) {
                /* the reader: polls until the file exists, then a few more opens */
                hm_options ro = opts(HM_DEFAULT_CAPACITY, 1, 0);
                int seen = 0;
                for (int k = 0; k < 200000 && seen < 20; k++) {
                    hm_store *s;
                    char e[512];
                    int rc = hm_open_ex(p, &ro, &s, e, sizeof e);
                    if (rc == HM_OK) {
                        seen++;
                        atomic_fetch_add(&sh->reader_ok, 1);
                        hm_close(s);
                    } else if (rc == HM_EMISSING && strstr(e, "No such file") != NULL) {
                        atomic_fetch_add(&sh->reader_absent, 1);
                    } else if (atomic_fetch_add(&sh->reader_bad, 1) == 0) {
                        snprintf(sh->reader_msg, sizeof sh->reader_msg, "%d %s", rc, e);
                    }
                }
                _exit(0);
            }
            hm_options o = opts(64, 0, 0);
            hm_store *s;
            int rc = hm_open(p, &o, &s);
            sh->r[i].rc = rc;
            if (rc != HM_OK) _exit(51);
            hm_file_header *h = hm_test_mapping(s);
            sh->r[i].created_epoch_ms = h->created_epoch_ms;
            sh->r[i].checksum = h->header_checksum;
            char nb[32];
            for (int n = 0; n < R; n++) {
                snprintf(nb, sizeof nb, "race-%d", n % REG);
                if (t_rec(s, nb, (uint64_t)i + 1, 1) != HM_OK) _exit(52);
            }
            _exit(hm_close(s) == HM_OK ? 0 : 53);
        }
        close(gate[0]);
        close(gate[1]); /* release them all at once */
        for (int i = 0; i <= N; i++) {
            int st = wait_status(pids[i]);
            if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) fprintf(stderr, "  round %d child %d: status 0x%x\n", round, i, st);
            CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        }
        for (int i = 1; i < N; i++) {
            CHECK_EQ(sh->r[i].rc, HM_OK);
            CHECK_EQ_U64(sh->r[i].created_epoch_ms, sh->r[0].created_epoch_ms);
            CHECK_EQ_U64(sh->r[i].checksum, sh->r[0].checksum);
        }
        CHECK_EQ(count_tmp_in(hm_t_dir), 0);
        hm_options ro = opts(HM_DEFAULT_CAPACITY, 1, 0);
        hm_store *s;
        OPEN_OK(s, p, &ro);
        uint64_t count = 0, total = 0;
        for (int g = 0; g < REG; g++) {
            char nb[32];
            snprintf(nb, sizeof nb, "race-%d", g);
            hm_region_record r;
            CHECK_EQ(t_look(s, nb, &r), HM_OK);
            count += r.dispatch_count;
            total += r.kernel_ns_total;
        }
        CHECK_EQ(count, (uint64_t)N * R);
        CHECK_EQ(total, (uint64_t)R * (N * (N + 1) / 2)); /* child i recorded R samples of i+1 ns */
        CHECK_EQ(hm_close(s), HM_OK);
        struct stat st;
        CHECK(stat(p, &st) == 0);
        CHECK_EQ(st.st_mode & 07777, 0600);
        unlink(p);
    }
    if (sh->reader_bad) fprintf(stderr, "  reader saw: %s\n", sh->reader_msg);
    CHECK_EQ(sh->reader_bad, 0); /* never HM_EUNFINISHED, HM_ECHECKSUM, HM_ETRUNCATED ... */
    CHECK(sh->reader_ok > 0);
    fprintf(stderr, "  info: reader opens: %d valid, %d absent, %d bad\n", sh->reader_ok, sh->reader_absent,
            sh->reader_bad);
    munmap(sh, sizeof *sh);
}

/* A creator killed between allocation and link leaves no file at the path; the next creation
 * removes its stray temporary (a zombie or reaped creator alike), not those of live processes,
 * of other users or of other names. */
static void test_creator_killed_before_link_leaves_no_file_and_stray_is_removed(void) {
    for (int zombie = 0; zombie < 2; zombie++) {
        char p[1024];
        snprintf(p, sizeof p, "%s/crash-%d.hm", hm_t_dir, zombie);
        int fds[2];
        CHECK(pipe(fds) == 0);
        fflush(NULL);
        pid_t pid = fork();
        CHECK(pid >= 0);
        if (pid == 0) {
            close(fds[0]);
            alarm(30);
            hm_test_create_hooks hooks = {.after_allocate = pause_after_allocate, .arg = &fds[1]};
            hm_options o = opts(16, 0, 0);
            hm_store *s;
            hm_test_open_hooked(p, &o, &s, NULL, 0, &hooks);
            _exit(61); /* never reached */
        }
        close(fds[1]);
        char tmp[1200];
        size_t got = 0;
        ssize_t r;
        while (got < sizeof tmp && (r = read(fds[0], tmp + got, sizeof tmp - got)) > 0) {
            got += (size_t)r;
            if (memchr(tmp, '\0', got)) break;
        }
        close(fds[0]);
        CHECK(got > 0 && memchr(tmp, '\0', got) != NULL);
        CHECK(exists(tmp));
        CHECK(!exists(p)); /* not published before link */
        struct stat st;
        CHECK(stat(tmp, &st) == 0);
        CHECK_EQ(st.st_mode & 07777, 0600);
        CHECK(st.st_blocks * 512 >= st.st_size); /* allocated, not sparse */
        kill(pid, SIGKILL);
        if (zombie) {
            double limit = t_now_ms() + T_HANG_MS; /* until the kill has taken effect */
            while (proc_state(pid) != 'Z' && t_now_ms() < limit) usleep(1000);
            CHECK_EQ(proc_state(pid), 'Z');
        } else {
            wait_status(pid);
        }
        CHECK(!exists(p));
        CHECK(exists(tmp)); /* the stray the next creation removes */

        /* temporaries that must survive: a live creator's (ours), a name that does not match exactly */
        char live[1200], odd[1200], other[1200];
        snprintf(live, sizeof live, "%s.%ld.0123456789abcdef.tmp", p, (long)getpid());
        snprintf(odd, sizeof odd, "%s.%ld.0123456789abcdeX.tmp", p, (long)pid);
        snprintf(other, sizeof other, "%s.%ld.fedcba9876543210.tmp", p, (long)pid);
        CHECK(t_write_file(live, "x", 1) == 0);
        CHECK(t_write_file(odd, "x", 1) == 0);
        CHECK(t_write_file(other, "x", 1) == 0);
        int foreign = geteuid() == 0 && chown(other, 65534, 65534) == 0;

        hm_store *s;
        hm_options o = opts(16, 0, 0);
        OPEN_OK(s, p, &o);
        CHECK_EQ(t_rec(s, "r", 1, 1), HM_OK);
        CHECK_EQ(hm_close(s), HM_OK);
        CHECK(!exists(tmp)); /* removed: its creator is not running */
        CHECK(exists(live));
        CHECK(exists(odd));
        CHECK(exists(other) == foreign); /* another user's is never touched */
        if (zombie) wait_status(pid);
        unlink(live);
        unlink(odd);
        unlink(other);
        unlink(p);
        CHECK_EQ(count_tmp_in(hm_t_dir), 0);
    }
}

const hm_test_case *hm_t_opener_cases(size_t *n) {
    static const hm_test_case cases[] = {
        {"create_writes_documented_header_and_reopen_checks_options",
         test_create_writes_documented_header_and_reopen_checks_options},
        {"missing_file_read_only_and_missing_directory_are_emissing",
         test_missing_file_read_only_and_missing_directory_are_emissing},
        {"close_releases_writer_entry_and_readers_claim_none", test_close_releases_writer_entry_and_readers_claim_none},
        {"v1_file_is_refused_naming_hintmap_upgrade", test_v1_file_is_refused_naming_hintmap_upgrade},
        {"damaged_header_is_refused_and_file_left_unmodified", test_damaged_header_is_refused_and_file_left_unmodified},
        {"full_writer_table_refuses_writers_not_readers", test_full_writer_table_refuses_writers_not_readers},
        {"racing_creators_share_one_file_initialised_once", test_racing_creators_share_one_file_initialised_once},
        {"creator_killed_before_link_leaves_no_file_and_stray_is_removed",
         test_creator_killed_before_link_leaves_no_file_and_stray_is_removed},
    };
    *n = sizeof cases / sizeof cases[0];
    return cases;
}
