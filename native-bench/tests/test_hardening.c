/*
 * test_hardening.c - issue 7: hostile and broken files, security of the shared file, resource
 * faults (FORMAT §5, §5.1, §6.2 "give up"; docs/SECURITY.md). Run by test_unit_asan.
 *
 * Tests that need root (chown to another uid, mounting a tmpfs in a private mount namespace)
 * print "info: skipped ..." for that part when they cannot do it; everything else runs as
 * any user. Processes that must die or hit a limit are forked children; they report through
 * their exit status, never through CHECK.
 */
#define _GNU_SOURCE 1
#include "test_hardening.h"

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

/* Expects hm_open_ex to fail with `code` and a message containing the path and `needle`. */
#define OPEN_FAILS(path, opts, code, needle)                                          \
    do {                                                                              \
        char e_[512];                                                                 \
        hm_store *s_ = (hm_store *)1;                                                 \
        int rc_ = hm_open_ex((path), (opts), &s_, e_, sizeof e_);                     \
        if (rc_ != (code) || strstr(e_, (needle)) == NULL || strstr(e_, (path)) == NULL) \
            fprintf(stderr, "  %s:%d: open %s: got %d '%s', want %d with '%s'\n", __FILE__, __LINE__, \
                    (path), rc_, e_, (code), (needle));                               \
        CHECK_EQ(rc_, (code));                                                        \
        CHECK(s_ == NULL);                                                            \
        CHECK(strstr(e_, (needle)) != NULL);                                          \
        CHECK(strstr(e_, (path)) != NULL);                                            \
    } while (0)

static hm_options opts(uint32_t cap, int read_only, uint32_t flags) {
    hm_options o;
    hm_options_init(&o);
    if (cap != HM_DEFAULT_CAPACITY) hm_options_set_capacity(&o, cap);
    o.read_only = read_only;
    o.flags = flags;
    return o;
}

/* Files in directory `dir` whose name ends in ".tmp". */
static int count_tmp_in(const char *dir) {
    DIR *d = opendir(dir);
    if (d == NULL) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (l > 4 && strcmp(e->d_name + l - 4, ".tmp") == 0) n++;
    }
    closedir(d);
    return n;
}

static int exists(const char *p) {
    struct stat st;
    return lstat(p, &st) == 0;
}

static int same_bytes(const char *path, const unsigned char *bytes, size_t len) {
    size_t n;
    unsigned char *b = t_read_file(path, &n);
    int same = b != NULL && n == len && memcmp(b, bytes, len) == 0;
    free(b);
    return same;
}

static int wait_status(pid_t pid) {
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    return st;
}

/* ------------------------------------------------------------------ symlinks (§5 step 0) */

static void test_symlink_refused_unless_allowed(void) {
    char target[1024], link_p[1024];
    snprintf(target, sizeof target, "%s", tpath("target.hm"));
    snprintf(link_p, sizeof link_p, "%s", tpath("link.hm"));
    hm_options o = opts(16, 0, 0);
    hm_store *s;
    OPEN_OK(s, target, &o);
    CHECK_EQ(t_rec(s, "r", 5, 5), HM_OK);
    CHECK_EQ(hm_close(s), HM_OK);
    size_t len;
    unsigned char *before = t_read_file(target, &len);
    CHECK(before != NULL);
    CHECK(symlink(target, link_p) == 0);
    hm_options ro = opts(HM_DEFAULT_CAPACITY, 1, 0);
    OPEN_FAILS(link_p, &o, HM_ESYMLINK, "symbolic link");
    OPEN_FAILS(link_p, &ro, HM_ESYMLINK, "HM_OPEN_FOLLOW_SYMLINKS");
    int same = same_bytes(target, before, len);
    free(before);
    CHECK(same); /* never modified */
    CHECK_EQ(count_tmp_in(hm_t_dir), 0);

    /* allowed: the link is followed, and hm_check() follows it too */
    hm_options f = opts(HM_DEFAULT_CAPACITY, 0, HM_OPEN_FOLLOW_SYMLINKS);
    OPEN_OK(s, link_p, &f);
    CHECK_EQ(t_rec(s, "r", 5, 5), HM_OK);
    CHECK_EQ(hm_check(s), HM_OK);
    CHECK_EQ(hm_close(s), HM_OK);
    OPEN_OK(s, target, &ro);
    hm_region_record r;
    CHECK_EQ(t_look(s, "r", &r), HM_OK);
    CHECK_EQ(r.dispatch_count, 2);
    CHECK_EQ(hm_close(s), HM_OK);

    /* a dangling link: refused, or (when following) never created through */
    char dangling[1024], nowhere[1024];
    snprintf(dangling, sizeof dangling, "%s", tpath("dangling.hm"));
    snprintf(nowhere, sizeof nowhere, "%s", tpath("nowhere.hm"));
    CHECK(symlink(nowhere, dangling) == 0);
    OPEN_FAILS(dangling, &o, HM_ESYMLINK, "symbolic link");
    OPEN_FAILS(dangling, &f, HM_EIO, "dangling");
    CHECK(!exists(nowhere));
    CHECK_EQ(count_tmp_in(hm_t_dir), 0);

    /* links in the directories of the path are followed: they are trusted (FORMAT §5) */
    char realdir[1024], dirlink[1024], via[1100];
    snprintf(realdir, sizeof realdir, "%s", tpath("realdir"));
    snprintf(dirlink, sizeof dirlink, "%s", tpath("dirlink"));
    CHECK(mkdir(realdir, 0700) == 0);
    CHECK(symlink(realdir, dirlink) == 0);
    snprintf(via, sizeof via, "%s/x.hm", dirlink);
    OPEN_OK(s, via, &o);
    CHECK_EQ(hm_check(s), HM_OK);
    CHECK_EQ(hm_close(s), HM_OK);
    snprintf(via, sizeof via, "%s/x.hm", realdir);
    CHECK(exists(via));
    unlink(via);
    rmdir(realdir);
}

/* ------------------------------------------------------------------ owners (§5 step 0) */

static void test_owner_rule_accepts_own_or_group_shared_files_only(void) {
    const gid_t groups[] = {10, 20, 30};
    const uint32_t G = HM_OPEN_GROUP_SHARED, A = HM_OPEN_ALLOW_FOREIGN_OWNER;
    /* own file: always, whatever its group or mode */
    CHECK_EQ(hm_test_owner_rule(1000, 99, 0666, 1000, 5, groups, 3, 0), HM_OK);
    /* another owner: refused by default */
    CHECK_EQ(hm_test_owner_rule(1001, 5, 0600, 1000, 5, groups, 3, 0), HM_EOWNER);
    CHECK_EQ(hm_test_owner_rule(0, 5, 0600, 1000, 5, groups, 3, 0), HM_EOWNER); /* root's file too */
    /* allowed explicitly */
    CHECK_EQ(hm_test_owner_rule(1001, 99, 0666, 1000, 5, groups, 3, A), HM_OK);
    /* group-shared: the file's group is our effective group or a supplementary one ... */
    CHECK_EQ(hm_test_owner_rule(1001, 5, 0660, 1000, 5, groups, 3, G), HM_OK);
    CHECK_EQ(hm_test_owner_rule(1001, 30, 0660, 1000, 5, groups, 3, G), HM_OK);
    CHECK_EQ(hm_test_owner_rule(1001, 31, 0660, 1000, 5, groups, 3, G), HM_EOWNER);
    CHECK_EQ(hm_test_owner_rule(1001, 30, 0660, 1000, 5, NULL, 0, G), HM_EOWNER);
    /* ... and the file is not writable by others */
    CHECK_EQ(hm_test_owner_rule(1001, 5, 0662, 1000, 5, groups, 3, G), HM_EOWNER);
    CHECK_EQ(hm_test_owner_rule(1001, 5, 0664, 1000, 5, groups, 3, G), HM_OK);
    CHECK_EQ(hm_test_owner_rule(1001, 5, 0662, 1000, 5, groups, 3, G | A), HM_OK);
}

static void test_foreign_owner_refused_unless_allowed(void) {
    if (geteuid() != 0) {
        fprintf(stderr, "  info: skipped (needs root to chown a file to another uid)\n");
        return;
    }
    char p[1024];
    snprintf(p, sizeof p, "%s", tpath("foreign.hm"));
    hm_options o = opts(16, 0, 0);
    hm_store *s;
    OPEN_OK(s, p, &o);
    CHECK_EQ(t_rec(s, "r", 5, 5), HM_OK);
    CHECK_EQ(hm_close(s), HM_OK);
    CHECK(chown(p, 65534, 65534) == 0); /* nobody:nogroup */
    size_t len;
    unsigned char *before = t_read_file(p, &len);
    CHECK(before != NULL);
    hm_options ro = opts(HM_DEFAULT_CAPACITY, 1, 0);
    OPEN_FAILS(p, &o, HM_EOWNER, "owned by uid 65534");
    OPEN_FAILS(p, &ro, HM_EOWNER, "[check owner");
    hm_options g = opts(HM_DEFAULT_CAPACITY, 0, HM_OPEN_GROUP_SHARED);
    OPEN_FAILS(p, &g, HM_EOWNER, "not one of this process's groups"); /* 65534 is not our group */
    int same = same_bytes(p, before, len);
    free(before);
    CHECK(same);

    hm_options a = opts(HM_DEFAULT_CAPACITY, 0, HM_OPEN_ALLOW_FOREIGN_OWNER);
    OPEN_OK(s, p, &a);
    CHECK_EQ(t_rec(s, "r", 5, 5), HM_OK);
    CHECK_EQ(hm_close(s), HM_OK);

    /* group-shared: another owner, our group, not writable by others */
    CHECK(chown(p, 65534, getegid()) == 0);
    CHECK(chmod(p, 0660) == 0);
    OPEN_FAILS(p, &o, HM_EOWNER, "owned by uid 65534");
    OPEN_OK(s, p, &g);
    hm_region_record r;
    CHECK_EQ(t_look(s, "r", &r), HM_OK);
    CHECK_EQ(r.dispatch_count, 2);
    CHECK_EQ(hm_close(s), HM_OK);
    CHECK(chmod(p, 0662) == 0);
    OPEN_FAILS(p, &g, HM_EOWNER, "S_IWOTH");
}

static void test_created_file_mode_is_exact_under_any_umask(void) {
    mode_t old = umask(077);
    hm_options g = opts(16, 0, HM_OPEN_GROUP_SHARED);
    hm_store *s;
    struct stat st;
    int rc = hm_open(tpath("shared.hm"), &g, &s);
    umask(000);
    hm_options d = opts(16, 0, 0);
    hm_store *s2;
    int rc2 = hm_open(tpath("private.hm"), &d, &s2);
    umask(old);
    CHECK_EQ(rc, HM_OK);
    CHECK_EQ(rc2, HM_OK);
    CHECK(stat(tpath("shared.hm"), &st) == 0);
    CHECK_EQ(st.st_mode & 07777, 0660); /* group-shared under umask 077 */
    CHECK(stat(tpath("private.hm"), &st) == 0);
    CHECK_EQ(st.st_mode & 07777, 0600); /* default under umask 000 */
    CHECK_EQ(hm_close(s), HM_OK);
    CHECK_EQ(hm_close(s2), HM_OK);
    CHECK_EQ(count_tmp_in(hm_t_dir), 0);
    CHECK_EQ(hm_open(tpath("bad-flags.hm"), &(hm_options){.capacity = 16, .max_name_bytes = 64, .flags = 1u << 7}, &s),
             HM_EINVAL);
    CHECK(!exists(tpath("bad-flags.hm")));

    /* the way to share between users: a setgid directory of the shared group (docs/SECURITY.md) */
    if (geteuid() != 0) {
        fprintf(stderr, "  info: setgid-directory part skipped (needs root to chown the directory)\n");
        return;
    }
    char dir[1024], f[1100];
    snprintf(dir, sizeof dir, "%s", tpath("team"));
    CHECK(mkdir(dir, 0700) == 0);
    CHECK(chown(dir, getuid(), 65534) == 0);
    CHECK(chmod(dir, 02770) == 0);
    snprintf(f, sizeof f, "%s/h.hm", dir);
    OPEN_OK(s, f, &g);
    CHECK(stat(f, &st) == 0);
    CHECK_EQ(st.st_gid, 65534);
    CHECK_EQ(st.st_mode & 07777, 0660);
    CHECK_EQ(hm_close(s), HM_OK);
    unlink(f);
    rmdir(dir);
}

/* ------------------------------------------------------------------ not a regular file */

static void test_fifo_directory_or_socket_at_path_is_refused(void) {
    char fifo[1024], dir[1024], sock[1024];
    snprintf(fifo, sizeof fifo, "%s", tpath("fifo.hm"));
    snprintf(dir, sizeof dir, "%s", tpath("dir.hm"));
    snprintf(sock, sizeof sock, "%s", tpath("sock.hm"));
    CHECK(mkfifo(fifo, 0600) == 0);
    CHECK(mkdir(dir, 0700) == 0);
    int sfd = socket(AF_UNIX, SOCK_STREAM, 0);
    CHECK(sfd >= 0);
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    int have_sock = strlen(sock) < sizeof sa.sun_path;
    if (have_sock) {
        memcpy(sa.sun_path, sock, strlen(sock));
        CHECK(bind(sfd, (struct sockaddr *)&sa, sizeof sa) == 0);
    }
    /* in a child with an alarm: a blocking open of the FIFO would hang the test otherwise */
    fflush(NULL);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        alarm(20);
        const char *paths[] = {fifo, dir, sock, "/dev/null"};
        for (int i = 0; i < 4; i++) {
            if (i == 2 && !have_sock) continue;
            for (int ro = 0; ro < 2; ro++) {
                if (i == 3 && !ro) continue; /* a device is only opened read-only here */
                hm_options o = opts(16, ro, 0);
                hm_store *s;
                char e[512];
                int rc = hm_open_ex(paths[i], &o, &s, e, sizeof e);
                if (rc != HM_ENOTHINT || strstr(e, "regular file") == NULL) {
                    fprintf(stderr, "  %s ro=%d: %d %s\n", paths[i], ro, rc, e);
                    _exit(10 + i);
                }
            }
        }
        _exit(0);
    }
    int st = wait_status(pid);
    close(sfd);
    CHECK(WIFEXITED(st));
    CHECK_EQ(WEXITSTATUS(st), 0);
    struct stat fst;
    CHECK(lstat(fifo, &fst) == 0 && S_ISFIFO(fst.st_mode)); /* left as it was */
    CHECK_EQ(count_tmp_in(hm_t_dir), 0);
    unlink(sock);
    unlink(fifo);
    rmdir(dir);
}

/* ------------------------------------------------------------------ resource faults */

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

/* ------------------------------------------------------------------ creation races (§5) */

typedef struct race_result {
    int rc;
    uint64_t created_epoch_ms, checksum;
} race_result;

typedef struct race_shared {
    race_result r[16];
    _Atomic int reader_bad, reader_ok, reader_absent;
    char reader_msg[600];
} race_shared;

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
            hm_test_create_hooks hooks = {pause_after_allocate, &fds[1]};
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

/* ------------------------------------------------------------------ files changed under the mapping (§5.1) */

static void test_check_detects_file_grown_replaced_or_removed(void) {
    char p[1024], q[1024];
    snprintf(p, sizeof p, "%s", tpath("chk.hm"));
    snprintf(q, sizeof q, "%s", tpath("chk-other.hm"));
    hm_options o = opts(16, 0, 0), ro = opts(HM_DEFAULT_CAPACITY, 1, 0);
    hm_store *s, *r;
    OPEN_OK(s, p, &o);
    OPEN_OK(r, p, &ro);
    CHECK_EQ(t_rec(s, "x", 1, 1), HM_OK);
    CHECK_EQ(hm_check(s), HM_OK);
    CHECK_EQ(hm_check(r), HM_OK);
    struct stat st;
    CHECK(stat(p, &st) == 0);
    /* grown */
    CHECK(truncate(p, st.st_size + 4096) == 0);
    CHECK_EQ(hm_check(s), HM_ECHANGED);
    CHECK(strstr(hm_last_error(s), "resized") != NULL);
    CHECK(strstr(hm_last_error(s), p) != NULL);
    CHECK_EQ(hm_check(r), HM_ECHANGED);
    CHECK(truncate(p, st.st_size) == 0);
    CHECK_EQ(hm_check(s), HM_OK);
    /* replaced: another file renamed onto the path */
    hm_store *t;
    OPEN_OK(t, q, &o);
    CHECK_EQ(hm_close(t), HM_OK);
    CHECK(rename(q, p) == 0);
    CHECK_EQ(hm_check(s), HM_ECHANGED);
    CHECK(strstr(hm_last_error(s), "replaced") != NULL);
    CHECK_EQ(hm_check(r), HM_ECHANGED);
    CHECK(strstr(hm_last_error(r), "replaced") != NULL);
    /* the old stores still work on the old inode: nothing faults */
    CHECK_EQ(t_rec(s, "x", 1, 1), HM_OK);
    hm_region_record rr;
    CHECK_EQ(t_look(r, "x", &rr), HM_OK);
    CHECK_EQ(rr.dispatch_count, 2);
    CHECK_EQ(hm_close(s), HM_OK);
    CHECK_EQ(hm_close(r), HM_OK);
    /* removed */
    OPEN_OK(s, p, &o);
    CHECK(unlink(p) == 0);
    CHECK_EQ(hm_check(s), HM_ECHANGED);
    CHECK(strstr(hm_last_error(s), "removed") != NULL);
    CHECK_EQ(hm_close(s), HM_OK);
    /* replaced by a symbolic link to the same file */
    OPEN_OK(s, p, &o);
    CHECK(rename(p, q) == 0);
    CHECK(symlink(q, p) == 0);
    CHECK_EQ(hm_check(s), HM_ECHANGED);
    CHECK(strstr(hm_last_error(s), "symbolic link") != NULL);
    CHECK_EQ(hm_close(s), HM_OK);
    unlink(p);
    unlink(q);
    /* truncated: reported before any access; close checks the size before touching its entry */
    OPEN_OK(s, p, &o);
    OPEN_OK(r, p, &ro);
    CHECK_EQ(t_rec(s, "x", 1, 1), HM_OK);
    CHECK(truncate(p, 8192) == 0); /* the writer table's first page survives */
    CHECK_EQ(hm_check(s), HM_ECHANGED);
    CHECK(strstr(hm_last_error(s), "truncated") != NULL);
    CHECK(strstr(hm_last_error(s), "SIGBUS") != NULL);
    CHECK_EQ(hm_check(r), HM_ECHANGED);
    CHECK_EQ(hm_close(s), HM_OK); /* its entry is still in the file: released */
    {
        char e[512];
        hm_store *x;
        CHECK_EQ(hm_open_ex(p, &o, &x, e, sizeof e), HM_ETRUNCATED); /* a reopen refuses it */
        CHECK(strstr(e, "file_bytes") != NULL);
    }
    OPEN_OK(s, q, &o); /* a writer whose entry page is then cut off entirely */
    CHECK(truncate(q, 2048) == 0);
    CHECK_EQ(hm_check(s), HM_ECHANGED);
    CHECK_EQ(hm_close(s), HM_ECHANGED); /* no SIGBUS: the entry is left for reclaim */
    CHECK_EQ(hm_close(r), HM_OK);
    unlink(p);
    unlink(q);
    CHECK_EQ(hm_check(NULL), HM_EINVAL);
}

/* A file truncated by another program while a writer records into it: the writer is killed by
 * SIGBUS at its next access to a lost page (the documented behaviour in C: the library installs
 * no signal handler); a store that polls hm_check() learns of it before touching anything. */
static void test_truncated_file_kills_writer_by_sigbus_and_check_sees_it_first(void) {
    char p[1024];
    snprintf(p, sizeof p, "%s", tpath("sigbus.hm"));
    hm_options o = opts(64, 0, 0), ro = opts(HM_DEFAULT_CAPACITY, 1, 0);
    hm_store *s;
    OPEN_OK(s, p, &o);
    CHECK_EQ(hm_close(s), HM_OK);
    hm_store *r;
    OPEN_OK(r, p, &ro);
    int fds[2];
    CHECK(pipe(fds) == 0);
    fflush(NULL);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        signal(SIGBUS, SIG_DFL); /* the sanitizer's handler would turn the signal into a report */
        alarm(30);               /* a different signal if SIGBUS never came */
        hm_store *cs;
        if (hm_open(p, NULL, &cs) != HM_OK) _exit(70);
        char nb[16];
        for (unsigned long n = 0;; n++) {
            snprintf(nb, sizeof nb, "t-%lu", n % 48);
            if (t_rec(cs, nb, 1, 1) != HM_OK) _exit(71);
            if (n == 1000 && write(fds[1], "r", 1) != 1) _exit(72);
        }
    }
    close(fds[1]);
    char c;
    CHECK(read(fds[0], &c, 1) == 1);
    close(fds[0]);
    CHECK_EQ(hm_check(r), HM_OK);
    CHECK(truncate(p, 0) == 0);
    int st = wait_status(pid);
    if (!WIFSIGNALED(st)) fprintf(stderr, "  child status 0x%x\n", st);
    CHECK(WIFSIGNALED(st));
    CHECK_EQ(WTERMSIG(st), SIGBUS);
    CHECK_EQ(hm_check(r), HM_ECHANGED); /* without touching the mapping */
    CHECK(strstr(hm_last_error(r), "truncated") != NULL);
    CHECK_EQ(hm_close(r), HM_OK);
    unlink(p);
}

/* ------------------------------------------------------------------ bounded lock waits (§6.2 give up) */

#define LIMIT_MS 300

/* A slot lock held by a live process (this one, through a second writer entry): records into
 * that region give up after lock_wait_limit, then after at most one liveness check (counted, not
 * timed: a loaded machine can stretch any call); other regions, lookups and the store stay
 * usable, and the region works again once the lock is free. */
static void test_live_owner_slot_lock_gives_up(void) {
    hm_options o = opts(8, 0, 0);
    hm_store *s;
    OPEN_OK(s, tpath("giveup-slot.hm"), &o);
    hm_test_set_lock_wait_limit_ns(s, LIMIT_MS * 1000000ull);
    CHECK_EQ(t_rec(s, "a", 10, 1), HM_OK);
    CHECK_EQ(t_rec(s, "b", 10, 1), HM_OK);
    uint32_t ka;
    CHECK_EQ(hm_test_slot_of(s, "a", 1, &ka), HM_OK);
    uint64_t owner = t_plant_owner(s, 1000, getpid());
    CHECK(owner != 0);
    hm_slot *sl = hm_test_slot(s, ka);
    atomic_store(&sl->lock, owner);
    double t0 = t_now_ms();
    uint64_t c0 = hm_test_liveness_checks(s);
    CHECK_EQ(t_rec(s, "a", 10, 1), HM_DROPPED);
    double first = t_now_ms() - t0;
    uint64_t c1 = hm_test_liveness_checks(s);
    CHECK_EQ(t_rec(s, "a", 10, 1), HM_DROPPED); /* the same (lock, owner): at most one liveness check */
    uint64_t c2 = hm_test_liveness_checks(s);
    hm_region *h;
    CHECK_EQ(hm_region_resolve(s, "a", 1, &h), HM_OK);
    CHECK_EQ(hm_region_add(h, 10, 1), HM_DROPPED);
    uint64_t c3 = hm_test_liveness_checks(s);
    fprintf(stderr, "  info: gave up after %.1f ms and %" PRIu64 " liveness checks, then %" PRIu64 " and %" PRIu64
            " (limit %d ms)\n", first, c1 - c0, c2 - c1, c3 - c2, LIMIT_MS);
    CHECK(first >= LIMIT_MS - 1 && first < T_HANG_MS); /* waited for the limit, and returned */
    CHECK(c1 - c0 >= 2); /* a first check, and at least one more when the limit was up */
    CHECK(c2 - c1 <= 1 && c3 - c2 <= 1); /* no second wait for the limit */
    CHECK_EQ(atomic_load(&sl->lock), owner); /* nothing taken from a live process */
    hm_region_record r;
    CHECK_EQ(t_look(s, "a", &r), HM_OK); /* readers never wait for a lock */
    CHECK_EQ(r.dispatch_count, 1);
    CHECK_EQ(t_rec(s, "b", 10, 1), HM_OK);
    hm_stats st;
    CHECK_EQ(hm_stats_get(s, &st), HM_OK);
    CHECK_EQ(st.stolen_locks, 0);
    /* the holder lets go: recording works again at once */
    atomic_store(&sl->lock, 0);
    CHECK_EQ(t_rec(s, "a", 10, 1), HM_OK);
    CHECK_EQ(hm_region_add(h, 10, 1), HM_OK);
    CHECK_EQ(t_look(s, "a", &r), HM_OK);
    CHECK_EQ(r.dispatch_count, 3);
    /* the word changed (we took the lock): the same owner word held again is waited for afresh */
    atomic_store(&sl->lock, owner);
    t0 = t_now_ms();
    CHECK_EQ(hm_region_add(h, 10, 1), HM_DROPPED);
    CHECK(t_now_ms() - t0 >= LIMIT_MS - 1);
    /* and so is another live owner word in the same lock (the memo names the word) */
    uint64_t owner2 = t_plant_owner(s, 1001, getpid());
    atomic_store(&sl->lock, owner2);
    t0 = t_now_ms();
    CHECK_EQ(hm_region_add(h, 10, 1), HM_DROPPED);
    CHECK(t_now_ms() - t0 >= LIMIT_MS - 1);
    uint64_t c4 = hm_test_liveness_checks(s);
    CHECK_EQ(t_rec(s, "a", 10, 1), HM_DROPPED);
    CHECK(hm_test_liveness_checks(s) - c4 <= 1); /* remembered: no second wait */
    atomic_store(&sl->lock, 0);
    hm_region_free(h);
    CHECK_EQ(hm_close(s), HM_OK);
}

/* A forked child that opens `path` (read-only when ro, else as a writer), then, when name is not
 * NULL, takes the slot lock of region `name`, and pauses until killed: a live process that maps
 * the file (FORMAT §6.3). Returns its pid once it is ready, or -1. */
static pid_t spawn_mapper(const char *path, int ro, const char *name) {
    int fds[2];
    if (pipe(fds) != 0) return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        close(fds[0]);
        hm_options o = opts(HM_DEFAULT_CAPACITY, ro, 0);
        hm_store *cs;
        if (hm_open(path, &o, &cs) != HM_OK) _exit(1);
        if (name != NULL && hm_test_hold_slot_lock(cs, name, strlen(name)) != HM_OK) _exit(2);
        if (write(fds[1], "r", 1) != 1) _exit(3);
        alarm(120); /* never outlives a test run that failed before killing it */
        for (;;) pause();
    }
    close(fds[1]);
    char c;
    int ready = read(fds[0], &c, 1) == 1;
    close(fds[0]);
    if (!ready) {
        wait_status(pid);
        return -1;
    }
    return pid;
}

static void kill_child(pid_t pid) {
    if (pid <= 0) return;
    kill(pid, SIGKILL);
    wait_status(pid);
}

/* struct_lock held by a live process that maps the file (a child): inserts give up and change
 * nothing; records into existing regions do not need that lock. */
static void test_live_owner_struct_lock_gives_up(void) {
    hm_options o = opts(8, 0, 0);
    hm_store *s;
    OPEN_OK(s, tpath("giveup-struct.hm"), &o);
    hm_test_set_lock_wait_limit_ns(s, LIMIT_MS * 1000000ull);
    CHECK_EQ(t_rec(s, "a", 10, 1), HM_OK);
    hm_file_header *h = hm_test_mapping(s);
    pid_t holder = spawn_mapper(tpath("giveup-struct.hm"), 1, NULL);
    CHECK(holder > 0);
    uint64_t owner = t_plant_owner(s, 1002, holder);
    atomic_store(&h->struct_lock, owner);
    uint64_t seq = atomic_load(&h->index_seq), hw = atomic_load(&h->high_water);
    double t0 = t_now_ms();
    uint64_t c0 = hm_test_liveness_checks(s);
    CHECK_EQ(t_rec(s, "new", 10, 1), HM_DROPPED);
    double first = t_now_ms() - t0;
    uint64_t c1 = hm_test_liveness_checks(s);
    CHECK_EQ(t_rec(s, "new2", 10, 1), HM_DROPPED);
    uint64_t c2 = hm_test_liveness_checks(s);
    CHECK(first >= LIMIT_MS - 1 && first < T_HANG_MS);
    CHECK(c1 - c0 >= 2);
    CHECK(c2 - c1 <= 1); /* no second wait for the limit (counted, not timed) */
    CHECK_EQ(atomic_load(&h->struct_lock), owner);
    CHECK_EQ(atomic_load(&h->index_seq), seq);
    CHECK_EQ(atomic_load(&h->high_water), hw);
    CHECK_EQ(t_rec(s, "a", 10, 1), HM_OK); /* an existing region: no structure lock */
    hm_region_record r;
    CHECK_EQ(t_look(s, "new", &r), HM_ENOTFOUND);
    atomic_store(&h->struct_lock, 0);
    kill_child(holder);
    CHECK_EQ(t_rec(s, "new", 10, 1), HM_OK);
    CHECK_EQ(t_look(s, "new", &r), HM_OK);
    CHECK_EQ(t_look(s, "a", &r), HM_OK);
    CHECK_EQ(r.dispatch_count, 2);
    CHECK_EQ(hm_close(s), HM_OK);
}

/* The CLOCK victim's lock, and the journaled slot's lock during recovery, held by a live
 * process: the structural change gives up, leaving the regions, high_water, the hand, and
 * (recovery) journal_slot / index_seq as they were for the next holder. */
static void test_live_owner_victim_and_recovery_give_up(void) {
    hm_options o = opts(4, 0, 0);
    hm_store *s;
    OPEN_OK(s, tpath("giveup-victim.hm"), &o);
    hm_test_set_lock_wait_limit_ns(s, LIMIT_MS * 1000000ull);
    const char *names[] = {"a", "b", "c", "d"};
    for (int i = 0; i < 4; i++) CHECK_EQ(t_rec(s, names[i], 10, 1), HM_OK); /* bits clear, hand at 0 */
    hm_file_header *h = hm_test_mapping(s);
    uint32_t ka;
    CHECK_EQ(hm_test_slot_of(s, "a", 1, &ka), HM_OK);
    CHECK_EQ(ka, 0);
    uint64_t owner = t_plant_owner(s, 1003, getpid());
    atomic_store(&hm_test_slot(s, ka)->lock, owner);
    uint64_t hand = atomic_load(&h->clock_hand), seq = atomic_load(&h->index_seq);
    CHECK_EQ(t_rec(s, "e", 10, 1), HM_DROPPED);
    hm_stats st;
    CHECK_EQ(hm_stats_get(s, &st), HM_OK);
    CHECK_EQ(st.evictions, 0);
    CHECK_EQ(st.live_count, 4);
    CHECK_EQ(st.high_water, 4);
    CHECK_EQ(atomic_load(&h->clock_hand), hand);
    CHECK_EQ(atomic_load(&h->index_seq), seq);
    CHECK_EQ(atomic_load(&h->journal_slot), 0);
    hm_region_record r;
    for (int i = 0; i < 4; i++) CHECK_EQ(t_look(s, names[i], &r), HM_OK);
    CHECK_EQ(t_look(s, "e", &r), HM_ENOTFOUND);
    atomic_store(&hm_test_slot(s, ka)->lock, 0);
    CHECK_EQ(t_rec(s, "e", 10, 1), HM_OK); /* evicts a now */
    CHECK_EQ(t_look(s, "e", &r), HM_OK);
    CHECK_EQ(t_look(s, "a", &r), HM_ENOTFOUND);

    /* recovery: a journaled change whose slot lock a live process holds */
    uint32_t kb;
    CHECK_EQ(hm_test_slot_of(s, "b", 1, &kb), HM_OK);
    atomic_store(&h->journal_slot, (uint64_t)kb + 1);
    atomic_store(&hm_test_slot(s, kb)->lock, owner);
    atomic_fetch_or(&hm_test_slot(s, kb)->gen, 1); /* past §7.4 step 7: BUSY, so §8 step 1 frees it */
    seq = atomic_load(&h->index_seq);
    CHECK_EQ(t_rec(s, "f", 10, 1), HM_DROPPED);
    CHECK_EQ(atomic_load(&h->journal_slot), (uint64_t)kb + 1); /* left for the next holder */
    CHECK_EQ(atomic_load(&h->index_seq), seq);
    CHECK_EQ(hm_stats_get(s, &st), HM_OK);
    CHECK_EQ(st.recoveries, 0);
    CHECK_EQ(t_look(s, "b", &r), HM_ENOTFOUND); /* BUSY reads absent: a hint missing, never wrong */
    atomic_store(&hm_test_slot(s, kb)->lock, 0);
    CHECK_EQ(t_rec(s, "f", 10, 1), HM_OK);
    CHECK_EQ(atomic_load(&h->journal_slot), 0);
    CHECK_EQ(hm_stats_get(s, &st), HM_OK);
    CHECK_EQ(st.recoveries, 1);
    CHECK_EQ(t_look(s, "b", &r), HM_ENOTFOUND); /* the journaled region is dropped (§8 step 1) */
    CHECK_EQ(t_look(s, "f", &r), HM_OK);
    CHECK_EQ(hm_close(s), HM_OK);
}

/* Counters at 2^63-1 saturate instead of wrapping into the top bit (§1): a steal with
 * stolen_locks at the maximum, and an eviction with evictions at the maximum, leave both there. */
static void test_statistics_counters_saturate_at_max(void) {
    hm_options o = opts(2, 0, 0);
    hm_store *s;
    OPEN_OK(s, tpath("saturate.hm"), &o);
    CHECK_EQ(t_rec(s, "a", 10, 1), HM_OK);
    CHECK_EQ(t_rec(s, "b", 10, 1), HM_OK);
    hm_file_header *h = hm_test_mapping(s);
    atomic_store(&h->stolen_locks, HM_VALUE_MAX);
    atomic_store(&h->evictions, HM_VALUE_MAX);
    uint32_t ka;
    CHECK_EQ(hm_test_slot_of(s, "a", 1, &ka), HM_OK);
    atomic_store(&hm_test_slot(s, ka)->lock, UINT64_C(7) << 32 | (HM_WRITER_ENTRIES + 1)); /* dead: stolen */
    CHECK_EQ(t_rec(s, "a", 10, 1), HM_OK);
    CHECK_EQ(t_rec(s, "c", 10, 1), HM_OK); /* full: evicts */
    hm_stats st;
    CHECK_EQ(hm_stats_get(s, &st), HM_OK);
    CHECK_EQ_U64(st.stolen_locks, HM_VALUE_MAX);
    CHECK_EQ_U64(st.evictions, HM_VALUE_MAX);
    CHECK_EQ(hm_close(s), HM_OK);
}

/* §5 step 5, §7.5, §9.1: a statistics counter whose top bit a damaged file set reads as 0 from
 * hm_stats_get, and its next increment stores 2^63-1 (§1); a live_count with the top bit set
 * reads as 0 from hm_size. */
static void test_damaged_counters_and_live_count_read_as_zero(void) {
    hm_options o = opts(2, 0, 0);
    hm_store *s;
    OPEN_OK(s, tpath("topbit.hm"), &o);
    CHECK_EQ(t_rec(s, "a", 10, 1), HM_OK);
    CHECK_EQ(t_rec(s, "b", 10, 1), HM_OK);
    hm_file_header *h = hm_test_mapping(s);
    const uint64_t TOP = UINT64_C(1) << 63;
    atomic_store(&h->evictions, TOP | 5);
    atomic_store(&h->recoveries, UINT64_MAX);
    atomic_store(&h->dropped_inserts, TOP);
    atomic_store(&h->stolen_locks, TOP | 1);
    hm_stats st;
    CHECK_EQ(hm_stats_get(s, &st), HM_OK);
    CHECK_EQ_U64(st.evictions, 0);
    CHECK_EQ_U64(st.recoveries, 0);
    CHECK_EQ_U64(st.dropped_inserts, 0);
    CHECK_EQ_U64(st.stolen_locks, 0);
    CHECK_EQ(st.live_count, 2);
    /* the next increment saturates: an eviction, a stolen lock */
    uint32_t ka;
    CHECK_EQ(hm_test_slot_of(s, "a", 1, &ka), HM_OK);
    atomic_store(&hm_test_slot(s, ka)->lock, UINT64_C(7) << 32 | (HM_WRITER_ENTRIES + 1)); /* dead: stolen */
    CHECK_EQ(t_rec(s, "a", 10, 1), HM_OK);
    CHECK_EQ(t_rec(s, "c", 10, 1), HM_OK); /* full: evicts */
    CHECK_EQ_U64(atomic_load(&h->evictions), HM_VALUE_MAX);
    CHECK_EQ_U64(atomic_load(&h->stolen_locks), HM_VALUE_MAX);
    CHECK_EQ(hm_stats_get(s, &st), HM_OK);
    CHECK_EQ_U64(st.evictions, HM_VALUE_MAX);
    CHECK_EQ_U64(st.stolen_locks, HM_VALUE_MAX);
    CHECK_EQ_U64(st.recoveries, 0);
    /* live_count: the top bit reads as 0, a value above capacity as capacity */
    uint64_t n;
    CHECK_EQ(hm_size(s, &n), HM_OK);
    CHECK_EQ(n, 2);
    atomic_store(&h->live_count, TOP | 1);
    CHECK_EQ(hm_size(s, &n), HM_OK);
    CHECK_EQ(n, 0);
    atomic_store(&h->live_count, 3);
    CHECK_EQ(hm_size(s, &n), HM_OK);
    CHECK_EQ(n, 2);
    atomic_store(&h->live_count, 2);
    CHECK_EQ(hm_close(s), HM_OK);
}

/* §3.5, §6.3: the parser of /proc/<pid>/stat. Fields 3.. start after the LAST ')'; a text that
 * is empty, has no ')' or fewer than 22 fields cannot tell, which makes the owner alive (an empty
 * file read as no process would let a lock be stolen on a read racing the exit). */
static void test_stat_parse_empty_or_short_means_alive(void) {
    char state = 0;
    uint64_t start = 0;
    const char *ok = "4242 (a) b) c) S 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 1234567 23 24\n";
    CHECK_EQ(hm_test_stat_parse(ok, strlen(ok), &state, &start), 1);
    CHECK_EQ(state, 'S');
    CHECK_EQ(start, 1234567);
    CHECK_EQ(hm_test_stat_parse("", 0, &state, &start), -1); /* empty: alive */
    const char *noparen = "4242 a S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 1234567\n";
    CHECK_EQ(hm_test_stat_parse(noparen, strlen(noparen), &state, &start), -1);
    const char *shortf = "4242 (a) Z 1 2 3 4 5\n";
    CHECK_EQ(hm_test_stat_parse(shortf, strlen(shortf), &state, &start), -1);
    const char *nonum = "4242 (a) R 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 x 23\n"; /* field 22 not a number */
    CHECK_EQ(hm_test_stat_parse(nonum, strlen(nonum), &state, &start), -1);
    /* this process's own stat parses, with its start time: its token (§3.5) */
    char path[64], self[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)getpid());
    FILE *f = fopen(path, "r"); /* a /proc file's st_size is 0: read it to its end */
    CHECK(f != NULL);
    size_t len = fread(self, 1, sizeof self - 1, f);
    fclose(f);
    CHECK(len > 0);
    CHECK_EQ(hm_test_stat_parse(self, len, &state, &start), 1);
    CHECK_EQ_U64((uint64_t)getpid() << 42 | (start & ((UINT64_C(1) << 42) - 1)), t_token_of((long)getpid()));
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

/* hm_sat_add, the one saturating add (hintmap_format.h): b the caller's value in [0, 2^63-1], a
 * from the file and possibly damaged; the result is a + b clamped to 2^63-1, a damaged a gives
 * the maximum, and nothing it returns has the top bit set. */
static void test_saturating_add_clamps_sums_and_damaged_values(void) {
    const uint64_t M = HM_VALUE_MAX, TOP = UINT64_C(1) << 63;
    CHECK_EQ_U64(hm_sat_add(0, 0), 0);
    CHECK_EQ_U64(hm_sat_add(5, 7), 12);
    CHECK_EQ_U64(hm_sat_add(0, M), M);
    CHECK_EQ_U64(hm_sat_add(M - 7, 7), M);
    CHECK_EQ_U64(hm_sat_add(M - 7, 8), M);
    CHECK_EQ_U64(hm_sat_add(M, 1), M);
    CHECK_EQ_U64(hm_sat_add(M, M), M);
    CHECK_EQ_U64(hm_sat_add(TOP, 0), M);          /* damaged a, nothing added: still clamped */
    CHECK_EQ_U64(hm_sat_add(TOP + 5, 1), M);
    CHECK_EQ_U64(hm_sat_add(UINT64_MAX, 0), M);
    CHECK_EQ_U64(hm_sat_add(UINT64_MAX, M), M);    /* would wrap to 2^63-2 unsigned */
    CHECK_EQ_U64(hm_sat_add(1, UINT64_MAX), M);    /* b outside the contract does not wrap either */
}

/* A record into a copy a damaged file left with the top bit set (count and bytes) stores
 * 2^63-1 there, never a wrapped or top-bit value: the region reads as a hint again. */
static void test_record_onto_damaged_copy_saturates(void) {
    hm_options o = opts(4, 0, 0);
    hm_store *s;
    OPEN_OK(s, tpath("damaged-copy.hm"), &o);
    hm_region *r;
    CHECK_EQ(hm_region_resolve(s, "a", 1, &r), HM_OK);
    CHECK_EQ(hm_region_add(r, 10, 1), HM_OK);
    uint32_t k;
    CHECK_EQ(hm_test_slot_of(s, "a", 1, &k), HM_OK);
    hm_slot *sl = hm_test_slot(s, k);
    hm_record_copy *cur = &sl->copies[atomic_load(&sl->seq) & 1];
    atomic_store(&cur->dispatch_count, (UINT64_C(1) << 63) + 5);
    atomic_store(&cur->bytes_total, UINT64_MAX);
    CHECK_EQ(hm_region_add(r, 10, 1), HM_OK); /* the handle is still resolved: straight to §7.1 */
    hm_region_record rec;
    CHECK_EQ(hm_region_lookup(r, &rec), HM_OK);
    CHECK_EQ_U64(rec.dispatch_count, HM_VALUE_MAX);
    CHECK_EQ_U64(rec.kernel_ns_total, 20);
    CHECK_EQ_U64(rec.kernel_ns_max, 10);
    CHECK_EQ_U64(rec.bytes_total, HM_VALUE_MAX);
    hm_region_free(r);
    CHECK_EQ(hm_close(s), HM_OK);
}

/* ------------------------------------------------------------------ hostile words in the mapping (§5 step 5) */

/* Words a buggy or hostile writer can leave in the mapping are never trusted as offsets,
 * lengths or owners: every call stays in bounds, returns, and repairs what it owns. */
static void test_hostile_words_are_bounded(void) {
    hm_options o = opts(8, 0, 0);
    hm_options_set_max_name_bytes(&o, 64); /* the bounds below (a name_len of 65) are this layout's */
    hm_store *s;
    OPEN_OK(s, tpath("hostile.hm"), &o);
    hm_test_set_lock_wait_limit_ns(s, LIMIT_MS * 1000000ull);
    const char *names[] = {"a", "b", "c", "d", "e"};
    for (int i = 0; i < 5; i++) CHECK_EQ(t_rec(s, names[i], 10, 1), HM_OK);
    hm_file_header *h = hm_test_mapping(s);
    _Atomic uint64_t *index = (_Atomic uint64_t *)((unsigned char *)h + h->index_offset);
    hm_region_record r;
    char nb[128];
    size_t nl;
    uint32_t k[5];
    for (int i = 0; i < 5; i++) CHECK_EQ(hm_test_slot_of(s, names[i], 1, &k[i]), HM_OK);

    /* name_len beyond max_name_bytes, and 2^32-1: read as absent, never as a length */
    atomic_store(&hm_test_slot(s, k[0])->name_len, 65);
    atomic_store(&hm_test_slot(s, k[1])->name_len, UINT32_MAX);
    CHECK_EQ(t_look(s, "a", &r), HM_ENOTFOUND);
    CHECK_EQ(t_look(s, "b", &r), HM_ENOTFOUND);
    CHECK_EQ(hm_region_at(s, k[0], nb, sizeof nb, &nl, &r), HM_ENOTFOUND);
    CHECK_EQ(hm_region_at(s, k[1], nb, sizeof nb, &nl, &r), HM_ENOTFOUND);
    /* owner words naming no writer entry (index >= writer_entries, or 0): dead, stolen */
    atomic_store(&hm_test_slot(s, k[2])->lock, UINT64_C(7) << 32 | (HM_WRITER_ENTRIES + 1));
    atomic_store(&hm_test_slot(s, k[3])->lock, UINT64_C(7) << 32);
    CHECK_EQ(t_rec(s, "c", 10, 1), HM_OK);
    CHECK_EQ(t_rec(s, "d", 10, 1), HM_OK);
    hm_stats st;
    CHECK_EQ(hm_stats_get(s, &st), HM_OK);
    CHECK_EQ(st.stolen_locks, 2);
    /* a record copy no writer could have produced: absent */
    hm_slot *se = hm_test_slot(s, k[4]);
    uint64_t seq = atomic_load(&se->seq);
    atomic_store(&se->copies[seq & 1].kernel_ns_total, UINT64_MAX);
    CHECK_EQ(t_look(s, "e", &r), HM_ENOTFOUND);
    atomic_store(&se->copies[seq & 1].kernel_ns_total, 10);
    /* coordination words out of range: clamped for readers, repaired by the next insertion; a
     * live_count above capacity reads as capacity, one with the top bit set as 0 (§7.5, §9.1) */
    uint64_t n;
    atomic_store(&h->live_count, 11);
    CHECK_EQ(hm_size(s, &n), HM_OK);
    CHECK_EQ(n, 8);
    atomic_store(&h->live_count, UINT64_MAX);
    atomic_store(&h->high_water, UINT64_MAX);
    atomic_store(&h->clock_hand, UINT64_MAX);
    CHECK_EQ(hm_size(s, &n), HM_OK);
    CHECK_EQ(n, 0);
    CHECK_EQ(hm_high_water(s), 8);
    CHECK_EQ(hm_region_at(s, 7, nb, sizeof nb, &nl, &r), HM_ENOTFOUND); /* FREE slot, in bounds */
    CHECK_EQ(hm_region_at(s, 8, nb, sizeof nb, &nl, &r), HM_ENOTFOUND);
    /* index entries naming slot 2^27-2 and slot -1 (0) with the tag and the dist of the name
     * looked up, so that the lookup takes them for its own */
    uint64_t hz = hm_hash64("z", 1);
    uint32_t j = (uint32_t)hz & (h->index_entries - 1);
    while (atomic_load(&index[j]) != 0) j = (j + 1) & (h->index_entries - 1);
    uint32_t dz = (j - (uint32_t)hz) & (h->index_entries - 1);
    atomic_store(&index[j], hm_index_entry(hz, dz, (uint32_t)HM_INDEX_SLOT_MASK - 1));
    atomic_store(&index[(j + 1) & (h->index_entries - 1)], hm_index_entry(hz, dz + 1, UINT32_MAX)); /* slot field 0 */
    CHECK_EQ(t_look(s, "z", &r), HM_ENOTFOUND);
    /* the next insertion repairs all of it (§8): malformed slots freed, words back in range */
    CHECK_EQ(t_rec(s, "z", 10, 1), HM_OK);
    CHECK_EQ(t_look(s, "z", &r), HM_OK);
    CHECK_EQ(hm_stats_get(s, &st), HM_OK);
    CHECK(st.recoveries >= 1);
    CHECK(atomic_load(&h->clock_hand) < 8);
    CHECK(atomic_load(&h->high_water) <= 8);
    CHECK_EQ(hm_size(s, &n), HM_OK);
    CHECK_EQ(n, 4); /* c, d, e, z: a and b had malformed names */
    CHECK_EQ(t_look(s, "e", &r), HM_OK);
    CHECK_EQ(t_look(s, "c", &r), HM_OK);
    CHECK_EQ(r.dispatch_count, 2);
    /* a full index of foreign entries: lookups end within max_probe, inserts are dropped */
    for (uint32_t i = 0; i < h->index_entries; i++)
        if (atomic_load(&index[i]) == 0) atomic_store(&index[i], UINT64_C(0xDEAD) << 32 | 1);
    CHECK_EQ(t_look(s, "nothere", &r), HM_ENOTFOUND);
    int rc = t_rec(s, "nothere", 10, 1);
    CHECK(rc == HM_DROPPED || rc == HM_OK);
    CHECK_EQ(hm_check(s), HM_OK);
    CHECK_EQ(hm_close(s), HM_OK);
}

/* ------------------------------------------------------------------ sparse files (§5 opening) */

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

/* Copies src to dst byte for byte with a read/write loop, as plain cp does. Returns 0 or -1. */
static int copy_plain(const char *src, const char *dst) {
    int in = open(src, O_RDONLY), out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int ok = in >= 0 && out >= 0;
    char buf[65536];
    while (ok) {
        ssize_t r = read(in, buf, sizeof buf);
        if (r <= 0) {
            ok = r == 0;
            break;
        }
        ok = write(out, buf, (size_t)r) == r;
    }
    if (in >= 0) close(in);
    if (out >= 0) close(out);
    return ok ? 0 : -1;
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

/* ------------------------------------------------------------------ hm_check reads the header (§5.1) */

/* The header in the mapping changed under a live store: a hole punched over it (magic reads 0),
 * another magic, another layout fingerprint; hm_check reports each, and all is well again when
 * the header is restored. */
static void test_check_detects_header_changed_in_mapping(void) {
    char p[1024];
    snprintf(p, sizeof p, "%s", tpath("punched.hm"));
    hm_options o = opts(16, 0, 0);
    hm_store *s;
    OPEN_OK(s, p, &o);
    CHECK_EQ(t_rec(s, "x", 1, 1), HM_OK);
    hm_file_header h;
    int fd = open(p, O_RDWR);
    CHECK(fd >= 0);
    CHECK(pread(fd, &h, sizeof h, 0) == (ssize_t)sizeof h);
    if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, 4096) != 0) {
        int e = errno;
        close(fd);
        CHECK_EQ(hm_close(s), HM_OK);
        CHECK(e == EOPNOTSUPP);
        hm_t_skip("the filesystem of %s cannot punch holes (%s)", hm_t_dir, strerror(e));
        return;
    }
    CHECK_EQ(hm_check(s), HM_EUNFINISHED);
    CHECK(strstr(hm_last_error(s), "changed under the store") != NULL);
    CHECK(strstr(hm_last_error(s), "magic is now 0") != NULL);
    hm_file_header bad = h;
    atomic_store(&bad.magic, UINT64_C(0x1234));
    CHECK(pwrite(fd, &bad, sizeof bad, 0) == (ssize_t)sizeof bad);
    CHECK_EQ(hm_check(s), HM_ENOTHINT);
    CHECK(strstr(hm_last_error(s), "changed under the store") != NULL);
    bad = h;
    bad.layout_fingerprint ^= 1;
    CHECK(pwrite(fd, &bad, sizeof bad, 0) == (ssize_t)sizeof bad);
    CHECK_EQ(hm_check(s), HM_ELAYOUT);
    CHECK(strstr(hm_last_error(s), "layout_fingerprint") != NULL);
    CHECK(pwrite(fd, &h, sizeof h, 0) == (ssize_t)sizeof h);
    CHECK_EQ(hm_check(s), HM_OK);
    close(fd);
    CHECK_EQ(hm_close(s), HM_OK);
}

/* ------------------------------------------------------------------ liveness: maps this file (§6.3) */

static int writers_attached(hm_store *s) {
    hm_writer_entry *w = (hm_writer_entry *)((unsigned char *)hm_test_mapping(s) + HM_HEADER_BYTES);
    int n = 0;
    for (unsigned i = 0; i < HM_WRITER_ENTRIES; i++) n += atomic_load(&w[i].token) != 0;
    return n;
}

/* A copy (cp) of a file whose slot lock a live writer holds: the lock words and writer entries in
 * the copy name that writer, which is alive but does not map the copy. The copy's first writer
 * steals the lock at once (the lock wait's liveness check applies §6.3's maps rule); the entry
 * stays until that process exits (the reclaim at open does not apply the maps rule, §6.1). On
 * the original file the same record is still dropped after the limit: there the holder maps it. */
static void test_copied_file_lock_of_live_holder_is_stolen(void) {
    char p[1024], q[1024];
    snprintf(p, sizeof p, "%s", tpath("live-orig.hm"));
    snprintf(q, sizeof q, "%s", tpath("live-copy.hm"));
    hm_options o = opts(16, 0, 0), w = opts(HM_DEFAULT_CAPACITY, 0, 0);
    hm_store *s;
    OPEN_OK(s, p, &o);
    CHECK_EQ(t_rec(s, "held", 10, 1), HM_OK);
    CHECK_EQ(t_rec(s, "other", 10, 1), HM_OK);
    CHECK_EQ(hm_close(s), HM_OK);
    pid_t holder = spawn_mapper(p, 0, "held");
    CHECK(holder > 0);
    CHECK(copy_plain(p, q) == 0);
    hm_store *c;
    OPEN_OK(c, q, &w);
    int attached = writers_attached(c);
    hm_test_set_lock_wait_limit_ns(c, 200000000ull);
    int rc = t_rec(c, "held", 10, 1);
    hm_region_record r;
    int lrc = t_look(c, "held", &r);
    hm_stats st;
    CHECK_EQ(hm_stats_get(c, &st), HM_OK);
    /* an owner word planted after the open (so no reclaim at open removed it) naming the live
     * holder: the liveness check of the lock wait itself finds that it does not map the copy */
    uint32_t ko;
    CHECK_EQ(hm_test_slot_of(c, "other", 5, &ko), HM_OK);
    uint64_t planted = t_plant_owner(c, 1000, holder);
    atomic_store(&hm_test_slot(c, ko)->lock, planted);
    int rc2 = t_rec(c, "other", 10, 1);
    hm_stats st2;
    CHECK_EQ(hm_stats_get(c, &st2), HM_OK);
    CHECK_EQ(hm_close(c), HM_OK);
    /* the original: the holder lives and maps it */
    hm_store *orig;
    OPEN_OK(orig, p, &w);
    int attached_orig = writers_attached(orig);
    hm_test_set_lock_wait_limit_ns(orig, 200000000ull);
    double t0 = t_now_ms();
    int rc_orig = t_rec(orig, "held", 10, 1);
    double waited = t_now_ms() - t0;
    hm_stats st_orig;
    CHECK_EQ(hm_stats_get(orig, &st_orig), HM_OK);
    CHECK_EQ(hm_close(orig), HM_OK);
    kill_child(holder);
    CHECK_EQ(attached, 2);       /* the holder's entry came with the copy and stays: it is running */
    CHECK_EQ(rc, HM_OK);
    CHECK_EQ(lrc, HM_OK);
    CHECK_EQ(r.dispatch_count, 2); /* the sample counted */
    CHECK_EQ(st.stolen_locks, 1);
    CHECK_EQ(rc2, HM_OK);
    CHECK_EQ(st2.stolen_locks, 2);
    CHECK_EQ(attached_orig, 2);  /* the holder and this process */
    CHECK_EQ(rc_orig, HM_DROPPED);
    CHECK(waited >= 199);
    CHECK_EQ(st_orig.stolen_locks, 0);
}

/* Writer entries copied with a file (cp of a file with live writers) name running processes:
 * the copy's next writer keeps them (§6.1 reclaims only entries of processes that are not
 * running: a reopen between the check and the CAS must not lose its claim) and a writer that
 * opens the copy after those processes exited reclaims them. */
static void test_copied_file_writer_entries_kept_until_their_processes_exit(void) {
    char p[1024], q[1024];
    snprintf(p, sizeof p, "%s", tpath("entries-orig.hm"));
    snprintf(q, sizeof q, "%s", tpath("entries-copy.hm"));
    hm_options o = opts(16, 0, 0), w = opts(HM_DEFAULT_CAPACITY, 0, 0);
    hm_store *s;
    OPEN_OK(s, p, &o);
    CHECK_EQ(hm_close(s), HM_OK);
    pid_t a = spawn_mapper(p, 0, NULL), b = spawn_mapper(p, 0, NULL);
    hm_store *c = NULL, *orig = NULL;
    int copied = copy_plain(p, q);
    int orc = copied == 0 ? hm_open(q, &w, &c) : -1;
    int attached = orc == HM_OK ? writers_attached(c) : -1;
    int orc2 = hm_open(p, &w, &orig);
    int attached_orig = orc2 == HM_OK ? writers_attached(orig) : -1;
    if (c) hm_close(c);
    if (orig) hm_close(orig);
    kill_child(a);
    kill_child(b);
    hm_store *later = NULL;
    int orc3 = hm_open(q, &w, &later);
    int attached_later = orc3 == HM_OK ? writers_attached(later) : -1;
    if (later) hm_close(later);
    CHECK(a > 0 && b > 0);
    CHECK_EQ(copied, 0);
    CHECK_EQ(orc, HM_OK);
    CHECK_EQ(attached, 3);        /* a's and b's copied entries, and this process */
    CHECK_EQ(orc2, HM_OK);
    CHECK_EQ(attached_orig, 3);
    CHECK_EQ(orc3, HM_OK);
    CHECK_EQ(attached_later, 1);  /* a and b exited: reclaimed */
}

/* ------------------------------------------------------------------ give up, remembered (§6.2) */

/* After a give-up, a sample that meets the same (lock, owner word) is dropped at once, without a
 * liveness check, while the last check of that pair is fresh (the period is set long here, so
 * that the test does not depend on timing); with the period 0 each such sample makes exactly one
 * check; a holder found dead then is stolen from at once. */
static void test_giveup_remembered_without_liveness_check(void) {
    hm_options o = opts(8, 0, 0);
    hm_store *s;
    OPEN_OK(s, tpath("giveup-memo.hm"), &o);
    hm_test_set_lock_wait_limit_ns(s, 50000000ull);
    hm_test_set_giveup_recheck_ns(s, 3600ull * 1000000000ull);
    CHECK_EQ(t_rec(s, "a", 10, 1), HM_OK);
    uint32_t ka;
    CHECK_EQ(hm_test_slot_of(s, "a", 1, &ka), HM_OK);
    uint64_t owner = t_plant_owner(s, 1000, getpid());
    hm_slot *sl = hm_test_slot(s, ka);
    atomic_store(&sl->lock, owner);
    CHECK_EQ(hm_test_liveness_checks(s), 0);
    CHECK_EQ(t_rec(s, "a", 10, 1), HM_DROPPED); /* waits for the limit */
    uint64_t c0 = hm_test_liveness_checks(s);
    CHECK(c0 >= 1);
    hm_region *h;
    CHECK_EQ(hm_region_resolve(s, "a", 1, &h), HM_OK);
    for (int i = 0; i < 100; i++) {
        CHECK_EQ(t_rec(s, "a", 10, 1), HM_DROPPED);
        CHECK_EQ(hm_region_add(h, 10, 1), HM_DROPPED);
    }
    CHECK_EQ(hm_test_liveness_checks(s), c0); /* none */
    hm_test_set_giveup_recheck_ns(s, 0);
    CHECK_EQ(t_rec(s, "a", 10, 1), HM_DROPPED);
    CHECK_EQ(hm_test_liveness_checks(s), c0 + 1); /* exactly one, then gave up */
    CHECK_EQ(hm_region_add(h, 10, 1), HM_DROPPED);
    CHECK_EQ(hm_test_liveness_checks(s), c0 + 2);
    /* the holder's entry is released: the next check finds it dead and steals */
    hm_writer_entry *we = (hm_writer_entry *)((unsigned char *)hm_test_mapping(s) + HM_HEADER_BYTES) + 1000;
    atomic_store(&we->token, 0);
    CHECK_EQ(t_rec(s, "a", 10, 1), HM_OK);
    CHECK_EQ(hm_test_liveness_checks(s), c0 + 3);
    hm_stats st;
    CHECK_EQ(hm_stats_get(s, &st), HM_OK);
    CHECK_EQ(st.stolen_locks, 1);
    CHECK_EQ(atomic_load(&sl->lock), 0);
    hm_region_record r;
    CHECK_EQ(t_look(s, "a", &r), HM_OK);
    CHECK_EQ(r.dispatch_count, 2);
    hm_region_free(h);
    CHECK_EQ(hm_close(s), HM_OK);
}

/* ------------------------------------------------------------------ ACLs and --group-shared (§5 step 0) */

/* Builds a system.posix_acl_access value: version 2, then the n entries {tag, perm, id}. */
static size_t acl_value(unsigned char *out, const uint32_t (*e)[3], size_t n) {
    out[0] = 2;
    out[1] = out[2] = out[3] = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char *p = out + 4 + 8 * i;
        p[0] = (unsigned char)e[i][0];
        p[1] = (unsigned char)(e[i][0] >> 8);
        p[2] = (unsigned char)e[i][1];
        p[3] = (unsigned char)(e[i][1] >> 8);
        for (int k = 0; k < 4; k++) p[4 + k] = (unsigned char)(e[i][2] >> (8 * k));
    }
    return 4 + 8 * n;
}

#define ACL_UOBJ 0x01u
#define ACL_U    0x02u
#define ACL_GOBJ 0x04u
#define ACL_G    0x08u
#define ACL_M    0x10u
#define ACL_O    0x20u
#define NOID     0xFFFFFFFFu

static void test_acl_rule_finds_named_user_or_group_write_grant(void) {
    unsigned char v[128];
    uint32_t id;
    const uint32_t user_rw[][3] = {{ACL_UOBJ, 6, NOID}, {ACL_U, 6, 23456}, {ACL_GOBJ, 6, NOID}, {ACL_M, 6, NOID}, {ACL_O, 0, NOID}};
    CHECK_EQ(hm_test_acl_rule(v, acl_value(v, user_rw, 5), &id), 1);
    CHECK_EQ(id, 23456);
    const uint32_t user_masked[][3] = {{ACL_UOBJ, 6, NOID}, {ACL_U, 6, 23456}, {ACL_GOBJ, 6, NOID}, {ACL_M, 4, NOID}, {ACL_O, 0, NOID}};
    CHECK_EQ(hm_test_acl_rule(v, acl_value(v, user_masked, 5), &id), 0); /* write masked out */
    const uint32_t group_rw[][3] = {{ACL_UOBJ, 6, NOID}, {ACL_GOBJ, 6, NOID}, {ACL_G, 2, 34567}, {ACL_M, 6, NOID}, {ACL_O, 0, NOID}};
    CHECK_EQ(hm_test_acl_rule(v, acl_value(v, group_rw, 5), &id), 2);
    CHECK_EQ(id, 34567);
    const uint32_t read_only[][3] = {{ACL_UOBJ, 6, NOID}, {ACL_U, 4, 23456}, {ACL_GOBJ, 6, NOID}, {ACL_G, 5, 34567}, {ACL_M, 7, NOID}, {ACL_O, 0, NOID}};
    CHECK_EQ(hm_test_acl_rule(v, acl_value(v, read_only, 6), &id), 0);
    const uint32_t no_mask[][3] = {{ACL_UOBJ, 6, NOID}, {ACL_U, 2, 23456}, {ACL_GOBJ, 6, NOID}, {ACL_O, 0, NOID}};
    CHECK_EQ(hm_test_acl_rule(v, acl_value(v, no_mask, 4), &id), 1); /* no mask: the entry's own bits */
    const uint32_t minimal[][3] = {{ACL_UOBJ, 6, NOID}, {ACL_GOBJ, 6, NOID}, {ACL_O, 6, NOID}};
    CHECK_EQ(hm_test_acl_rule(v, acl_value(v, minimal, 3), &id), 0); /* others: the S_IWOTH check's business */
    size_t n = acl_value(v, user_rw, 5);
    CHECK_EQ(hm_test_acl_rule(v, n - 1, &id), -1); /* not a whole entry */
    CHECK_EQ(hm_test_acl_rule(v, 3, &id), -1);
    v[0] = 1;
    CHECK_EQ(hm_test_acl_rule(v, n, &id), -1); /* unknown version */
}

/* A group-shared open of another user's file (uid 12345, our group, mode 0660) is refused when its
 * access ACL lets a named user or group write it, and accepted when the ACL's mask removes that
 * write, when the named entries only read, or without an ACL. Needs root (fchown) and a
 * filesystem with POSIX ACLs. */
static void test_group_shared_acl_write_refused(void) {
    if (geteuid() != 0) {
        hm_t_skip("needs root to chown a file to another uid");
        return;
    }
    char p[1024];
    snprintf(p, sizeof p, "%s", tpath("acl.hm"));
    hm_options o = opts(16, 0, 0), g = opts(HM_DEFAULT_CAPACITY, 0, HM_OPEN_GROUP_SHARED);
    hm_store *s;
    OPEN_OK(s, p, &o);
    CHECK_EQ(t_rec(s, "r", 5, 5), HM_OK);
    CHECK_EQ(hm_close(s), HM_OK);
    int fd = open(p, O_RDWR);
    CHECK(fd >= 0);
    CHECK(fchown(fd, 12345, getegid()) == 0);
    CHECK(fchmod(fd, 0660) == 0);
    unsigned char v[128];
    const uint32_t user_rw[][3] = {{ACL_UOBJ, 6, NOID}, {ACL_U, 6, 23456}, {ACL_GOBJ, 6, NOID}, {ACL_M, 6, NOID}, {ACL_O, 0, NOID}};
    if (fsetxattr(fd, "system.posix_acl_access", v, acl_value(v, user_rw, 5), 0) != 0) {
        int e = errno;
        close(fd);
        CHECK(e == EOPNOTSUPP);
        hm_t_skip("the filesystem of %s has no POSIX ACLs (%s)", hm_t_dir, strerror(e));
        return;
    }
    OPEN_FAILS(p, &g, HM_EOWNER, "its ACL grants write to user 23456");
    const uint32_t group_rw[][3] = {{ACL_UOBJ, 6, NOID}, {ACL_GOBJ, 6, NOID}, {ACL_G, 6, 34567}, {ACL_M, 6, NOID}, {ACL_O, 0, NOID}};
    CHECK(fsetxattr(fd, "system.posix_acl_access", v, acl_value(v, group_rw, 5), 0) == 0);
    OPEN_FAILS(p, &g, HM_EOWNER, "its ACL grants write to group 34567");
    /* the same named user, its write masked out (mask r--): accepted */
    const uint32_t user_masked[][3] = {{ACL_UOBJ, 6, NOID}, {ACL_U, 6, 23456}, {ACL_GOBJ, 4, NOID}, {ACL_M, 4, NOID}, {ACL_O, 0, NOID}};
    CHECK(fsetxattr(fd, "system.posix_acl_access", v, acl_value(v, user_masked, 5), 0) == 0);
    OPEN_OK(s, p, &g);
    CHECK_EQ(hm_close(s), HM_OK);
    /* a named user that only reads: accepted */
    const uint32_t user_r[][3] = {{ACL_UOBJ, 6, NOID}, {ACL_U, 4, 23456}, {ACL_GOBJ, 6, NOID}, {ACL_M, 6, NOID}, {ACL_O, 0, NOID}};
    CHECK(fsetxattr(fd, "system.posix_acl_access", v, acl_value(v, user_r, 5), 0) == 0);
    OPEN_OK(s, p, &g);
    CHECK_EQ(hm_close(s), HM_OK);
    /* no named entry (the ACL is the mode): accepted */
    CHECK(fremovexattr(fd, "system.posix_acl_access") == 0);
    CHECK(fchmod(fd, 0660) == 0);
    OPEN_OK(s, p, &g);
    hm_region_record r;
    CHECK_EQ(t_look(s, "r", &r), HM_OK);
    CHECK_EQ(hm_close(s), HM_OK);
    /* allowed explicitly: the ACL is not looked at */
    CHECK(fsetxattr(fd, "system.posix_acl_access", v, acl_value(v, user_rw, 5), 0) == 0);
    hm_options a = opts(HM_DEFAULT_CAPACITY, 0, HM_OPEN_ALLOW_FOREIGN_OWNER);
    OPEN_OK(s, p, &a);
    CHECK_EQ(hm_close(s), HM_OK);
    close(fd);
}

/* Issue 35 §3: an index entry naming no slot (slot field above capacity, or 0) with the tag and the
 * distance of a name, so a lookup of that name would follow it. A lock-free lookup passes it as not
 * matching and records nothing, so an insertion whose lookups never meet it repairs nothing; the
 * writer whose lookup under struct_lock meets it recovers (§8) and resolves again before it
 * inserts, once. The Java twin: IndexEntryNamingNoSlotTest. */
static void test_entry_naming_no_slot_is_passed_by_readers_and_repaired_by_the_writer_that_meets_it(void) {
    hm_options o = opts(8, 0, 0);
    hm_options_set_max_name_bytes(&o, 256);
    hm_store *s;
    OPEN_OK(s, tpath("no-slot-entry.hm"), &o);
    const char *gemm = "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8>(Params)";
    const char *norm = "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, float,"
                       " float const*, float const*, float const*, float*, float*, float*)";
    const char *attn = "void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 64, 64, 4, false, false, cutlass::half_t>,"
                       " true, false>(Flash_fwd_params)";
    CHECK_EQ(t_rec(s, gemm, 3000, 64), HM_OK);
    hm_file_header *h = hm_test_mapping(s);
    _Atomic uint64_t *index = (_Atomic uint64_t *)((unsigned char *)h + h->index_offset);
    const uint32_t mask = (uint32_t)h->index_entries - 1;
    uint64_t hn = hm_hash64(norm, strlen(norm));
    uint32_t j = (uint32_t)hn & mask;
    while (atomic_load(&index[j]) != 0) j = (j + 1) & mask;
    uint32_t d = (j - (uint32_t)hn) & mask;
    CHECK_EQ(atomic_load(&index[(j + 1) & mask]), 0);
    atomic_store(&index[j], hm_index_entry(hn, d, 8));                         /* slot field 9: above capacity */
    atomic_store(&index[(j + 1) & mask], hm_index_entry(hn, d + 1, UINT32_MAX)); /* slot field 0 */

    hm_region_record r;
    hm_stats st;
    uint64_t n;
    CHECK_EQ(t_look(s, norm, &r), HM_ENOTFOUND);
    CHECK_EQ(t_look(s, gemm, &r), HM_OK);
    CHECK_EQ(t_rec(s, attn, 500, 8), HM_OK); /* a new region whose lookups pass neither entry */
    CHECK_EQ(hm_stats_get(s, &st), HM_OK);
    CHECK_EQ(st.recoveries, 0); /* the lookup of norm remembered nothing */
    CHECK_EQ(t_rec(s, norm, 2000, 64), HM_OK);
    CHECK_EQ(hm_stats_get(s, &st), HM_OK);
    CHECK_EQ(st.recoveries, 1);
    CHECK_EQ(t_look(s, norm, &r), HM_OK);
    CHECK_EQ(r.dispatch_count, 1);
    CHECK_EQ(hm_size(s, &n), HM_OK);
    CHECK_EQ(n, 3);
    for (uint32_t i = 0; i <= mask; i++) {
        uint64_t e = atomic_load(&index[i]);
        CHECK(e == 0 || (hm_index_slot1(e) >= 1 && hm_index_slot1(e) <= 8)); /* the rebuild dropped both */
    }
    CHECK_EQ(hm_check(s), HM_OK);
    CHECK_EQ(hm_close(s), HM_OK);
}

const hm_test_case *hm_t_hardening_cases(size_t *n) {
    static const hm_test_case cases[] = {
        {"symlink_refused_unless_allowed", test_symlink_refused_unless_allowed},
        {"owner_rule_accepts_own_or_group_shared_files_only", test_owner_rule_accepts_own_or_group_shared_files_only},
        {"foreign_owner_refused_unless_allowed", test_foreign_owner_refused_unless_allowed},
        {"created_file_mode_is_exact_under_any_umask", test_created_file_mode_is_exact_under_any_umask},
        {"fifo_directory_or_socket_at_path_is_refused", test_fifo_directory_or_socket_at_path_is_refused},
        {"file_size_limit_at_creation_is_enospc_leaving_nothing", test_file_size_limit_at_creation_is_enospc_leaving_nothing},
        {"full_filesystem_at_creation_is_enospc_leaving_nothing", test_full_filesystem_at_creation_is_enospc_leaving_nothing},
        {"address_space_limit_is_clean_enomem", test_address_space_limit_is_clean_enomem},
        {"racing_creators_share_one_file_initialised_once", test_racing_creators_share_one_file_initialised_once},
        {"creator_killed_before_link_leaves_no_file_and_stray_is_removed", test_creator_killed_before_link_leaves_no_file_and_stray_is_removed},
        {"check_detects_file_grown_replaced_or_removed", test_check_detects_file_grown_replaced_or_removed},
        {"truncated_file_kills_writer_by_sigbus_and_check_sees_it_first", test_truncated_file_kills_writer_by_sigbus_and_check_sees_it_first},
        {"live_owner_slot_lock_gives_up", test_live_owner_slot_lock_gives_up},
        {"live_owner_struct_lock_gives_up", test_live_owner_struct_lock_gives_up},
        {"live_owner_victim_and_recovery_give_up", test_live_owner_victim_and_recovery_give_up},
        {"hostile_words_are_bounded", test_hostile_words_are_bounded},
        {"statistics_counters_saturate_at_max", test_statistics_counters_saturate_at_max},
        {"large_mapping_advised_hugepage", test_large_mapping_advised_hugepage},
        {"damaged_counters_and_live_count_read_as_zero", test_damaged_counters_and_live_count_read_as_zero},
        {"stat_parse_empty_or_short_means_alive", test_stat_parse_empty_or_short_means_alive},
        {"saturating_add_clamps_sums_and_damaged_values", test_saturating_add_clamps_sums_and_damaged_values},
        {"record_onto_damaged_copy_saturates", test_record_onto_damaged_copy_saturates},
        {"sparse_copy_refused_read_only_allocated_by_writer", test_sparse_copy_refused_read_only_allocated_by_writer},
        {"sparse_copy_on_full_tmpfs", test_sparse_copy_on_full_tmpfs},
        {"check_detects_header_changed_in_mapping", test_check_detects_header_changed_in_mapping},
        {"copied_file_lock_of_live_holder_is_stolen", test_copied_file_lock_of_live_holder_is_stolen},
        {"copied_file_writer_entries_kept_until_their_processes_exit", test_copied_file_writer_entries_kept_until_their_processes_exit},
        {"giveup_remembered_without_liveness_check", test_giveup_remembered_without_liveness_check},
        {"acl_rule_finds_named_user_or_group_write_grant", test_acl_rule_finds_named_user_or_group_write_grant},
        {"group_shared_acl_write_refused", test_group_shared_acl_write_refused},
        {"entry_naming_no_slot_is_passed_by_readers_and_repaired_by_the_writer_that_meets_it",
         test_entry_naming_no_slot_is_passed_by_readers_and_repaired_by_the_writer_that_meets_it},
    };
    *n = sizeof cases / sizeof cases[0];
    return cases;
}
