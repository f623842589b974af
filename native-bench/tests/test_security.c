/*
 * test_security.c - file security: symbolic links, owners, modes, ACLs, what is not a regular file
 * (FORMAT §5 step 0, docs/SECURITY.md; Java: FileSecurityTest, GroupSharedAclTest).
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

const hm_test_case *hm_t_security_cases(size_t *n) {
    static const hm_test_case cases[] = {
        {"symlink_refused_unless_allowed", test_symlink_refused_unless_allowed},
        {"owner_rule_accepts_own_or_group_shared_files_only", test_owner_rule_accepts_own_or_group_shared_files_only},
        {"foreign_owner_refused_unless_allowed", test_foreign_owner_refused_unless_allowed},
        {"created_file_mode_is_exact_under_any_umask", test_created_file_mode_is_exact_under_any_umask},
        {"fifo_directory_or_socket_at_path_is_refused", test_fifo_directory_or_socket_at_path_is_refused},
        {"acl_rule_finds_named_user_or_group_write_grant", test_acl_rule_finds_named_user_or_group_write_grant},
        {"group_shared_acl_write_refused", test_group_shared_acl_write_refused},
    };
    *n = sizeof cases / sizeof cases[0];
    return cases;
}
