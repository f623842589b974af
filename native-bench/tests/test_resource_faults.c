/*
 * test_resource_faults.c - resource faults: file-size limits, full filesystems, address-space
 * limits, sparse files, huge pages (FORMAT §5 creation step 3, opening step 4a and 6; Java:
 * ResourceFaultTest, SparseFileTest).
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

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

/* Writes a valid header for capacity cap / max_name_bytes mnb at path and extends the file to its
 * file_bytes, allocated with fallocate (fast: no data written) so that a read-only open does not
 * refuse it as sparse (HM_ESPARSE); returns file_bytes or 0. */
static uint64_t write_big_file(const char *path, uint32_t cap, uint32_t mnb) {
    hm_store *s;
    char tmpl[1100];
    snprintf(tmpl, sizeof tmpl, "%s.template", path);
    hm_options o = opts(16, 0, 0);
    if (hm_open(tmpl, &o, &s) != HM_OK) return 0;
    hm_close(s);
    size_t len;
    unsigned char *f = t_read_file(tmpl, &len);
    unlink(tmpl);
    if (f == NULL) return 0;
    hm_file_header h;
    memcpy(&h, f, sizeof h);
    free(f);
    uint64_t ie = 16;
    while (ie < 2ull * cap) ie <<= 1;
    h.capacity = cap;
    h.max_name_bytes = mnb;
    h.slot_bytes = 128 + (mnb + 63) / 64 * 64;
    h.index_entries = (uint32_t)ie;
    h.max_probe = ie < 128 ? (uint32_t)ie : 128;
    h.ref_table_offset = (h.index_offset + 8 * ie + 4095) / 4096 * 4096;
    h.slots_offset = (h.ref_table_offset + cap + 4095) / 4096 * 4096;
    h.file_bytes = (h.slots_offset + (uint64_t)cap * h.slot_bytes + 4095) / 4096 * 4096;
    h.header_checksum = hm_hash64((unsigned char *)&h + 8, 112);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) return 0;
    int ok = write(fd, &h, sizeof h) == (ssize_t)sizeof h && ftruncate(fd, (off_t)h.file_bytes) == 0 &&
             fallocate(fd, 0, 0, (off_t)h.file_bytes) == 0;
    close(fd);
    return ok ? h.file_bytes : 0;
}

static uint64_t vm_size_bytes(void) {
    FILE *f = fopen("/proc/self/status", "r");
    if (f == NULL) return 0;
    char line[256];
    uint64_t kb = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmSize: %" SCNu64 " kB", &kb) == 1) break;
    fclose(f);
    return kb * 1024;
}

/* The VmFlags line of the mapping that starts at addr, from /proc/self/smaps ("" if none). */
static void vmflags_of(const void *addr, char *out, size_t len) {
    out[0] = '\0';
    FILE *f = fopen("/proc/self/smaps", "r");
    if (f == NULL) return;
    char line[512];
    int in = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long a, b;
        char c;
        if (sscanf(line, "%lx-%lx %c", &a, &b, &c) == 3) in = a == (unsigned long)(uintptr_t)addr;
        else if (in && strncmp(line, "VmFlags:", 8) == 0) {
            snprintf(out, len, "%s", line + 8);
            break;
        }
    }
    fclose(f);
}

/* Copies src to dst as cp --sparse=always does: only the 4 KiB pages that are not all zero are
 * written, then the size is set (the rest are holes). Returns 0 or -1. */
static int copy_sparse(const char *src, const char *dst) {
    size_t len;
    unsigned char *b = t_read_file(src, &len);
    if (b == NULL) return -1;
    static const unsigned char zero[4096];
    int fd = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int ok = fd >= 0;
    for (size_t off = 0; ok && off < len; off += 4096) {
        size_t n = len - off < 4096 ? len - off : 4096;
        if (memcmp(b + off, zero, n) != 0) ok = pwrite(fd, b + off, n, (off_t)off) == (ssize_t)n;
    }
    if (ok) ok = ftruncate(fd, (off_t)len) == 0;
    if (fd >= 0) close(fd);
    free(b);
    return ok ? 0 : -1;
}

/* Shared with the forked child of the tmpfs tests: why it skipped. */
typedef struct child_note {
    char why[256];
} child_note;

/* Child: a private mount namespace with a 256 KiB tmpfs mounted on dir. Returns 0, or writes the
 * errno text of the step that failed (unshare, making / private, mounting) into note and
 * returns -1. */
static int mount_small_tmpfs(const char *dir, child_note *note) {
    int ok = unshare(CLONE_NEWNS) == 0 && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0 &&
             mount("tmpfs", dir, "tmpfs", 0, "size=256k,mode=0700") == 0;
    if (!ok) snprintf(note->why, sizeof note->why, "%s", strerror(errno));
    return ok ? 0 : -1;
}

/* Writes a filler file at path until the filesystem is full. Returns 0 when it ended in ENOSPC. */
static int fill_filesystem(const char *path) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) return -1;
    char buf[4096];
    memset(buf, 0xAB, sizeof buf);
    ssize_t w;
    while ((w = write(fd, buf, sizeof buf)) > 0) {
    }
    int e = errno;
    close(fd);
    return w < 0 && e == ENOSPC ? 0 : -1;
}

/* Child: with a file-size limit of 64 KiB and SIGXFSZ ignored, a small file is created and a
 * large one is HM_ENOSPC with nothing left at its path. */
static void test_file_size_limit_at_creation_is_enospc_leaving_nothing(void) {
    char small[1024], big[1024];
    snprintf(small, sizeof small, "%s", tpath("small.hm"));
    snprintf(big, sizeof big, "%s", tpath("big.hm"));
    fflush(NULL);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        signal(SIGXFSZ, SIG_IGN); /* tests only: the library never touches signals */
        struct rlimit rl = {64 * 1024, 64 * 1024};
        if (setrlimit(RLIMIT_FSIZE, &rl) != 0) _exit(20);
        hm_options o = opts(16, 0, 0); /* 28 KiB */
        hm_store *s;
        char e[512];
        if (hm_open_ex(small, &o, &s, e, sizeof e) != HM_OK) _exit(21);
        if (t_rec(s, "r", 1, 1) != HM_OK || hm_close(s) != HM_OK) _exit(22);
        o = opts(4096, 0, 0); /* ~1 MiB */
        int rc = hm_open_ex(big, &o, &s, e, sizeof e);
        if (rc != HM_ENOSPC) {
            fprintf(stderr, "  big: %d %s\n", rc, e);
            _exit(23);
        }
        if (strstr(e, "RLIMIT_FSIZE") == NULL || strstr(e, big) == NULL || strstr(e, "file_bytes") == NULL) {
            fprintf(stderr, "  message: %s\n", e);
            _exit(24);
        }
        _exit(0);
    }
    int st = wait_status(pid);
    CHECK(WIFEXITED(st));
    CHECK_EQ(WEXITSTATUS(st), 0);
    CHECK(exists(small));
    CHECK(!exists(big));
    CHECK_EQ(count_tmp_in(hm_t_dir), 0);
}

/* Child in its own mount namespace: a 256 KiB tmpfs that fills up. */
static void test_full_filesystem_at_creation_is_enospc_leaving_nothing(void) {
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", tpath("tmpfs"));
    CHECK(mkdir(dir, 0700) == 0);
    fflush(NULL);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        if (unshare(CLONE_NEWNS) != 0) _exit(77);
        if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) _exit(77);
        if (mount("tmpfs", dir, "tmpfs", 0, "size=256k,mode=0700") != 0) _exit(77);
        char p[1200], e[512];
        hm_store *s;
        hm_options o = opts(640, 0, 0); /* 144 KiB */
        hm_options_set_max_name_bytes(&o, 64); /* the sizes below are this layout's */
        snprintf(p, sizeof p, "%s/a.hm", dir);
        if (hm_open_ex(p, &o, &s, e, sizeof e) != HM_OK) _exit(30);
        if (t_rec(s, "r", 1, 1) != HM_OK || hm_close(s) != HM_OK) _exit(31);
        snprintf(p, sizeof p, "%s/b.hm", dir); /* 144 + 144 KiB do not fit in 256 KiB */
        int rc = hm_open_ex(p, &o, &s, e, sizeof e);
        if (rc != HM_ENOSPC || strstr(e, "No space") == NULL) {
            fprintf(stderr, "  b: %d %s\n", rc, e);
            _exit(32);
        }
        if (exists(p) || count_tmp_in(dir) != 0) _exit(33);
        hm_options big = opts(4096, 0, 0); /* ~1 MiB: more than the whole filesystem */
        snprintf(p, sizeof p, "%s/c.hm", dir);
        if (hm_open_ex(p, &big, &s, e, sizeof e) != HM_ENOSPC || exists(p) || count_tmp_in(dir) != 0) _exit(34);
        o = opts(64, 0, 0); /* 36 KiB still fit */
        hm_options_set_max_name_bytes(&o, 64);
        snprintf(p, sizeof p, "%s/d.hm", dir);
        if (hm_open_ex(p, &o, &s, e, sizeof e) != HM_OK) _exit(35);
        if (t_rec(s, "r", 1, 1) != HM_OK || hm_close(s) != HM_OK) _exit(36);
        snprintf(p, sizeof p, "%s/a.hm", dir);
        if (hm_open_ex(p, NULL, &s, e, sizeof e) != HM_OK) _exit(37);
        hm_region_record r;
        if (t_look(s, "r", &r) != HM_OK || r.dispatch_count != 1 || hm_close(s) != HM_OK) _exit(38);
        _exit(0);
    }
    int st = wait_status(pid);
    rmdir(dir);
    CHECK(WIFEXITED(st));
    if (WEXITSTATUS(st) == 77) {
        fprintf(stderr, "  info: skipped (cannot mount a tmpfs in a private mount namespace: not root?)\n");
        return;
    }
    CHECK_EQ(WEXITSTATUS(st), 0);
}

/* Child: an address-space limit too small for a 1.1 GiB file gives a clean HM_ENOMEM. */
static void test_address_space_limit_is_clean_enomem(void) {
    char p[1024];
    snprintf(p, sizeof p, "%s", tpath("huge.hm"));
    uint64_t bytes = write_big_file(p, 1u << 20, 1024);
    CHECK(bytes > (1ull << 30));
    hm_options ro = opts(HM_DEFAULT_CAPACITY, 1, 0);
    hm_store *s;
    OPEN_OK(s, p, &ro); /* without the limit it maps fine */
    CHECK_EQ(hm_capacity(s), 1u << 20);
    CHECK_EQ(hm_close(s), HM_OK);
    fflush(NULL);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        uint64_t vm = vm_size_bytes();
        if (vm == 0) _exit(40);
        struct rlimit rl = {vm + (256ull << 20), vm + (256ull << 20)};
        if (setrlimit(RLIMIT_AS, &rl) != 0) _exit(41);
        for (int rw = 0; rw < 2; rw++) {
            hm_options o = opts(HM_DEFAULT_CAPACITY, !rw, 0);
            char e[512];
            int rc = hm_open_ex(p, &o, &s, e, sizeof e);
            if (rc != HM_ENOMEM || strstr(e, "RLIMIT_AS") == NULL || strstr(e, p) == NULL) {
                fprintf(stderr, "  rw=%d: %d %s\n", rw, rc, e);
                _exit(42 + rw);
            }
        }
        _exit(0);
    }
    int st = wait_status(pid);
    CHECK(WIFEXITED(st));
    CHECK_EQ(WEXITSTATUS(st), 0);
    /* the failed read-write open claimed no writer entry: the table is still empty */
    OPEN_OK(s, p, &ro);
    hm_writer_entry *w = (hm_writer_entry *)((unsigned char *)hm_test_mapping(s) + HM_HEADER_BYTES);
    int held = 0;
    for (unsigned i = 0; i < HM_WRITER_ENTRIES; i++) held += atomic_load(&w[i].token) != 0;
    CHECK_EQ(held, 0);
    CHECK_EQ(hm_close(s), HM_OK);
    unlink(p);
}

/* §5 step 6: a mapping of file_bytes >= 2 MiB is advised MADV_HUGEPAGE (VmFlags "hg"); a smaller
 * one is not. Best effort in the library; here only checked where the kernel has THP. */
static void test_large_mapping_advised_hugepage(void) {
    if (access("/sys/kernel/mm/transparent_hugepage", F_OK) != 0) {
        hm_t_skip("no transparent huge pages in this kernel (/sys/kernel/mm/transparent_hugepage)");
        return;
    }
    hm_options small = opts(16, 0, 0), big = opts(16384, 0, 0); /* 45 KiB; 3 MiB of slots */
    hm_store *s, *b;
    OPEN_OK(s, tpath("small-thp.hm"), &small);
    OPEN_OK(b, tpath("big-thp.hm"), &big);
    CHECK(hm_test_mapping_bytes(s) < (2u << 20));
    CHECK(hm_test_mapping_bytes(b) >= (2u << 20));
    char fs[256], fb[256];
    vmflags_of(hm_test_mapping(s), fs, sizeof fs);
    vmflags_of(hm_test_mapping(b), fb, sizeof fb);
    if (strstr(fb, " hg") == NULL) fprintf(stderr, "  VmFlags of the large mapping:%s", fb);
    CHECK(fs[0] != '\0' && fb[0] != '\0');
    CHECK(strstr(fs, " hg") == NULL);
    CHECK(strstr(fb, " hg") != NULL);
    CHECK_EQ(t_rec(b, "x", 1, 1), HM_OK); /* the file's bytes are the same either way */
    CHECK_EQ(hm_close(b), HM_OK);
    CHECK_EQ(hm_close(s), HM_OK);
}

/* A sparse copy of a hint file (as cp --sparse=always makes): a read-only open refuses it with
 * HM_ESPARSE and changes nothing, a writer's open allocates its holes and works, and then the
 * read-only open works too. A file made by creation (allocated, but with ranges never written,
 * which lseek SEEK_HOLE reports as holes) is not sparse. Runs as any user. */
static void test_sparse_copy_refused_read_only_allocated_by_writer(void) {
    char p[1024], q[1024];
    snprintf(p, sizeof p, "%s", tpath("dense.hm"));
    snprintf(q, sizeof q, "%s", tpath("sparse.hm"));
    hm_options o = opts(640, 0, 0), ro = opts(HM_DEFAULT_CAPACITY, 1, 0), w = opts(HM_DEFAULT_CAPACITY, 0, 0);
    hm_store *s;
    OPEN_OK(s, p, &o);
    CHECK_EQ(t_rec(s, "r", 5, 5), HM_OK);
    CHECK_EQ(hm_close(s), HM_OK);
    OPEN_OK(s, p, &ro); /* freshly created: allocated, not sparse */
    CHECK_EQ(hm_close(s), HM_OK);
    CHECK(copy_sparse(p, q) == 0);
    struct stat st;
    CHECK(stat(q, &st) == 0);
    if ((uint64_t)st.st_blocks * 512 >= (uint64_t)st.st_size) {
        hm_t_skip("the filesystem of %s keeps no holes", hm_t_dir);
        return;
    }
    size_t len;
    unsigned char *before = t_read_file(q, &len);
    CHECK(before != NULL);
    OPEN_FAILS(q, &ro, HM_ESPARSE, "cp --sparse=never");
    int same = same_bytes(q, before, len);
    free(before);
    CHECK(same);
    CHECK(strstr(hm_strerror(HM_ESPARSE), "unallocated ranges") != NULL);
    OPEN_OK(s, q, &w); /* allocates the holes */
    CHECK_EQ(t_rec(s, "r", 5, 5), HM_OK);
    CHECK_EQ(hm_close(s), HM_OK);
    CHECK(stat(q, &st) == 0);
    CHECK((uint64_t)st.st_blocks * 512 >= (uint64_t)st.st_size);
    OPEN_OK(s, q, &ro);
    hm_region_record r;
    CHECK_EQ(t_look(s, "r", &r), HM_OK);
    CHECK_EQ(r.dispatch_count, 2);
    CHECK_EQ(hm_close(s), HM_OK);
}

/* A sparse copy on a full tmpfs (where a fault on a hole is SIGBUS, read or write): the writer's
 * open is HM_ENOSPC with the file unchanged, the read-only open HM_ESPARSE, neither faults; once
 * there is room again the writer's open allocates the holes and records, and a read-only open
 * works. Needs root (a tmpfs in a private mount namespace). */
static void test_sparse_copy_on_full_tmpfs(void) {
    char src[1024], dir[1024];
    snprintf(src, sizeof src, "%s", tpath("full-src.hm"));
    snprintf(dir, sizeof dir, "%s", tpath("tmpfs-full"));
    hm_options o = opts(640, 0, 0); /* 144 KiB */
    hm_options_set_max_name_bytes(&o, 64); /* the size these filesystems were sized for */
    hm_store *s;
    OPEN_OK(s, src, &o);
    CHECK_EQ(t_rec(s, "r", 5, 5), HM_OK);
    CHECK_EQ(t_rec(s, "q", 5, 5), HM_OK);
    CHECK_EQ(hm_close(s), HM_OK);
    CHECK(mkdir(dir, 0700) == 0);
    child_note *note = mmap(NULL, sizeof *note, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(note != MAP_FAILED);
    memset(note, 0, sizeof *note);
    fflush(NULL);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        alarm(60);
        if (mount_small_tmpfs(dir, note) != 0) _exit(77);
        char p[1200], filler[1200], e[512];
        snprintf(p, sizeof p, "%s/copy.hm", dir);
        snprintf(filler, sizeof filler, "%s/filler", dir);
        if (copy_sparse(src, p) != 0) _exit(50);
        struct stat st;
        if (stat(p, &st) != 0 || (uint64_t)st.st_blocks * 512 >= (uint64_t)st.st_size) _exit(51); /* sparse */
        if (fill_filesystem(filler) != 0) _exit(52);
        size_t len;
        unsigned char *before = t_read_file(p, &len); /* read() of a hole allocates nothing */
        if (before == NULL) _exit(53);
        hm_store *cs;
        hm_options w = opts(HM_DEFAULT_CAPACITY, 0, 0), ro = opts(HM_DEFAULT_CAPACITY, 1, 0);
        int rc = hm_open_ex(p, &w, &cs, e, sizeof e);
        if (rc != HM_ENOSPC || strstr(e, "unallocated ranges") == NULL || strstr(e, "nothing was changed") == NULL) {
            fprintf(stderr, "  writer on a full tmpfs: %d %s\n", rc, e);
            _exit(54);
        }
        if (!same_bytes(p, before, len)) _exit(55);
        rc = hm_open_ex(p, &ro, &cs, e, sizeof e);
        if (rc != HM_ESPARSE || strstr(e, "cp --sparse=never") == NULL) {
            fprintf(stderr, "  read-only on a full tmpfs: %d %s\n", rc, e);
            _exit(56);
        }
        if (!same_bytes(p, before, len)) _exit(57);
        free(before);
        if (unlink(filler) != 0) _exit(58);
        rc = hm_open_ex(p, &w, &cs, e, sizeof e);
        if (rc != HM_OK) {
            fprintf(stderr, "  writer with room: %d %s\n", rc, e);
            _exit(59);
        }
        if (t_rec(cs, "r", 5, 5) != HM_OK || t_rec(cs, "new", 5, 5) != HM_OK || hm_close(cs) != HM_OK) _exit(60);
        rc = hm_open_ex(p, &ro, &cs, e, sizeof e);
        if (rc != HM_OK) {
            fprintf(stderr, "  read-only after the writer: %d %s\n", rc, e);
            _exit(61);
        }
        hm_region_record r;
        if (t_look(cs, "r", &r) != HM_OK || r.dispatch_count != 2 || t_look(cs, "q", &r) != HM_OK ||
            t_look(cs, "new", &r) != HM_OK || hm_close(cs) != HM_OK)
            _exit(62);
        _exit(0);
    }
    int st = wait_status(pid);
    rmdir(dir);
    char why[256];
    snprintf(why, sizeof why, "%s", note->why);
    munmap(note, sizeof *note);
    if (!WIFEXITED(st)) fprintf(stderr, "  child killed by signal %d\n", WIFSIGNALED(st) ? WTERMSIG(st) : 0);
    CHECK(WIFEXITED(st)); /* no SIGBUS */
    if (WEXITSTATUS(st) == 77) {
        hm_t_skip("needs root and unshare(CLONE_NEWNS) (%s)", why);
        return;
    }
    CHECK_EQ(WEXITSTATUS(st), 0);
}

const hm_test_case *hm_t_resource_faults_cases(size_t *n) {
    static const hm_test_case cases[] = {
        {"file_size_limit_at_creation_is_enospc_leaving_nothing",
         test_file_size_limit_at_creation_is_enospc_leaving_nothing},
        {"full_filesystem_at_creation_is_enospc_leaving_nothing",
         test_full_filesystem_at_creation_is_enospc_leaving_nothing},
        {"address_space_limit_is_clean_enomem", test_address_space_limit_is_clean_enomem},
        {"large_mapping_advised_hugepage", test_large_mapping_advised_hugepage},
        {"sparse_copy_refused_read_only_allocated_by_writer", test_sparse_copy_refused_read_only_allocated_by_writer},
        {"sparse_copy_on_full_tmpfs", test_sparse_copy_on_full_tmpfs},
    };
    *n = sizeof cases / sizeof cases[0];
    return cases;
}
