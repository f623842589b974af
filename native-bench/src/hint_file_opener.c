/*
 * hint_file_opener.c - creating and opening a hint file (FORMAT §5): creation steps 1-5, the checks
 * of opening on the descriptor (owner, ACL, type, header, options, sparse ranges), the mapping and
 * the writer claim.
 * Twin of the Java class dev.hintmap.store.HintFileOpener.
 *
 * Section references (§n) are to docs/FORMAT.md. Every atomic access to the mapping names its
 * memory order; the one-line comment next to it says why. Decisions that FORMAT.md leaves open
 * are marked "DECISION:". The library's internal interface is src/hm_internal.h.
 */
#define _GNU_SOURCE 1
#define HM_LIBRARY_SOURCE 1 /* this file is part of the library: hm_internal.h declares its internals */

#include "hm_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#define HM_OPEN_ATTEMPTS     8       /* create/open races (file replaced between link and open) */
#define HM_ACL_XATTR         "system.posix_acl_access"
#define HM_OPEN_KNOWN_FLAGS  (HM_OPEN_GROUP_SHARED | HM_OPEN_FOLLOW_SYMLINKS | HM_OPEN_ALLOW_FOREIGN_OWNER | HM_OPEN_REJECT_LONG_NAMES | \
                              HM_OPEN_FAULT_GUARD)

static uint64_t now_epoch_ms(void) {
    struct timespec ts;
    if (clock_gettime(CLOCK_REALTIME, &ts) != 0) return 0;
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static uint64_t random64(void) {
    uint64_t r = 0;
    if (getrandom(&r, sizeof r, GRND_NONBLOCK) == (ssize_t)sizeof r) return r;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_nsec * UINT64_C(0x9E3779B97F4A7C15) ^ (uint64_t)ts.tv_sec ^ (uint64_t)getpid() << 32;
}

/* The directory of path (".", "/", or its part before the last '/', copied into buf); NULL when
 * that does not fit. */
static const char *path_dir(const char *path, char *buf, size_t len) {
    const char *slash = strrchr(path, '/');
    if (slash == NULL) return ".";
    if (slash == path) return "/";
    size_t dl = (size_t)(slash - path);
    if (dl >= len) return NULL;
    memcpy(buf, path, dl);
    buf[dl] = '\0';
    return buf;
}

/* §5 step 5: makes the directory entry that link() created durable. DECISION: best effort, every
 * failure (EIO included) is ignored and nothing is reported: the file is published and usable
 * whatever fsync says; only whether its name survives a machine crash is in doubt, and a creation
 * that failed here could not take the name back (other processes may already use the file). */
static void sync_directory(const char *path) {
    char dirbuf[PATH_MAX];
    const char *dir = path_dir(path, dirbuf, sizeof dirbuf);
    if (dir == NULL) return;
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) return;
    (void)fsync(dfd);
    close(dfd);
}

/* §5 step 1: removes the siblings `<name>.<pid>.<16 hex digits>.tmp` of path that this user
 * owns and whose creator is no longer running (it died in steps 2-4). Best effort: every
 * failure is ignored, and a name that does not match exactly is never touched. */
static void remove_stray_temporaries(const char *path) {
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    size_t blen = strlen(base);
    if (blen == 0) return;
    char dirbuf[PATH_MAX];
    const char *dir = path_dir(path, dirbuf, sizeof dirbuf);
    if (dir == NULL) return;
    DIR *d = opendir(dir);
    if (d == NULL) return;
    int dfd = dirfd(d);
    const uid_t me = geteuid();
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *n = e->d_name;
        if (strncmp(n, base, blen) != 0 || n[blen] != '.') continue;
        const char *q = n + blen + 1;
        uint64_t pid = 0;
        unsigned digits = 0;
        for (; *q >= '0' && *q <= '9' && digits < 10; q++, digits++) pid = pid * 10 + (uint64_t)(*q - '0');
        if (digits == 0 || *q != '.') continue;
        q++;
        unsigned hex = 0;
        for (; hex < 16 && ((*q >= '0' && *q <= '9') || (*q >= 'a' && *q <= 'f')); q++) hex++;
        if (hex != 16 || strcmp(q, ".tmp") != 0) continue;
        if (pid == 0 || hmi_pid_running(pid)) continue;
        struct stat st;
        if (fstatat(dfd, n, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
        if (!S_ISREG(st.st_mode) || st.st_uid != me) continue;
        (void)unlinkat(dfd, n, 0);
    }
    closedir(d);
}

static int space_errno(int e) { return e == ENOSPC || e == EDQUOT || e == EFBIG; }

/* §5 creation, steps 1-5. Returns HM_OK when the file is published at the path, by this process
 * or by another that won link() (the caller then opens what is at the path). On every path the
 * temporary file is unlinked: a failed creation leaves nothing at the path. */
static int create_file(hm_open_ctx *ctx, const hm_options *o, const hm_test_create_hooks *hooks) {
    hm_geometry g;
    hmi_geometry_compute(o->capacity, o->max_name_bytes, &g);
    remove_stray_temporaries(ctx->path);                                                           /* 1 */
    const mode_t mode = (o->flags & HM_OPEN_GROUP_SHARED) ? 0660 : 0600;
    size_t plen = strlen(ctx->path);
    char *tmp = malloc(plen + 64);
    if (tmp == NULL) return OFAIL(ctx, HM_ENOMEM, "out of memory");
    int fd = -1;
    for (int attempt = 0; attempt < 16 && fd < 0; attempt++) {                           /* 2 */
        snprintf(tmp, plen + 64, "%s.%ld.%016llx.tmp", ctx->path, (long)getpid(), (unsigned long long)random64());
        fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0) {
        int e = errno;
        int rc = e == ENOENT /* the directory does not exist: Java's Problem.MISSING */
                     ? OFAIL(ctx, HM_EMISSING, "cannot create hint file: no directory for temporary file %s: %s [check create]",
                             tmp, strerror(e))
                     : OFAIL(ctx, space_errno(e) ? HM_ENOSPC : HM_EIO, "cannot create temporary file %s: %s [check create]",
                             tmp, strerror(e));
        free(tmp);
        return rc;
    }
    int rc = HM_OK;
    void *m = MAP_FAILED;
    /* exactly 0600 / 0660 whatever the umask (open() applied it) */
    if (fchmod(fd, mode) != 0) {
        rc = OFAIL(ctx, HM_EIO, "cannot set mode 0%o on temporary file %s: %s [check mode]", (unsigned)mode, tmp,
                   strerror(errno));
        goto out;
    }
    int err;
    do err = posix_fallocate(fd, 0, (off_t)g.file_bytes); /* returns the error, errno is untouched */
    while (err == EINTR);                                                                /* 3 */
    if (err == EOPNOTSUPP || err == EINVAL) {
        /* the filesystem cannot allocate: a sparse file (FORMAT §10 caveat: SIGBUS on a full disk) */
        err = ftruncate(fd, (off_t)g.file_bytes) == 0 ? 0 : errno;
    }
    if (err != 0) {
        rc = OFAIL(ctx, space_errno(err) ? HM_ENOSPC : HM_EIO,
                   "cannot allocate %llu bytes (file_bytes) for temporary file %s: %s%s [check allocation]",
                   (unsigned long long)g.file_bytes, tmp, strerror(err),
                   err == EFBIG ? " (a file-size limit, RLIMIT_FSIZE, or the filesystem's maximum file size)" : "");
        goto out;
    }
    if (hooks != NULL && hooks->after_allocate != NULL) hooks->after_allocate(hooks->arg, tmp);
    m = mmap(NULL, HM_HEADER_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);            /* 4 */
    if (m == MAP_FAILED) {
        rc = OFAIL(ctx, HM_EIO, "cannot map temporary file %s: %s [check mmap]", tmp, strerror(errno));
        goto out;
    }
    hm_file_header *h = m; /* the allocated file reads as zero everywhere */
    h->format_version = HM_FORMAT_VERSION;
    h->header_bytes = HM_HEADER_BYTES;
    h->layout_fingerprint = hm_layout_fingerprint();
    h->capacity = g.capacity;
    h->max_name_bytes = g.max_name_bytes;
    h->slot_bytes = g.slot_bytes;
    h->index_entries = g.index_entries;
    h->max_probe = g.max_probe;
    h->writer_entries = g.writer_entries;
    h->hot_threshold_ns = o->hot_threshold_ns;
    h->created_epoch_ms = now_epoch_ms();
    h->writer_table_offset = g.writer_table_offset;
    h->index_offset = g.index_offset;
    h->slots_offset = g.slots_offset;
    h->file_bytes = g.file_bytes;
    h->ref_table_offset = g.ref_table_offset;
    h->header_checksum = hmi_header_checksum(h);
    atomic_store_explicit(&h->magic, HM_MAGIC, REL); /* release: line 0 is complete before magic */
    if (msync(m, HM_HEADER_BYTES, MS_SYNC) != 0) {
        rc = OFAIL(ctx, HM_EIO, "cannot flush temporary file %s: %s [check msync]", tmp, strerror(errno));
        goto out;
    }
    if (link(tmp, ctx->path) == 0) {                                                        /* 5 */
        sync_directory(ctx->path);
    } else if (errno != EEXIST) {
        /* EEXIST: another process created the path first; the caller opens that file */
        int e = errno;
        rc = OFAIL(ctx, space_errno(e) ? HM_ENOSPC : HM_EIO, "cannot publish %s by link(): %s [check link]", tmp,
                   strerror(e));
    }
out:
    if (m != MAP_FAILED) munmap(m, HM_HEADER_BYTES);
    close(fd);
    unlink(tmp);
    free(tmp);
    return rc;
}

/* An option the caller set: its HM_OPT_* bit, or a value other than the default (hm_options). */
static int hot_threshold_set(const hm_options *o) {
    return (o->set_mask & HM_OPT_HOT_THRESHOLD) || o->hot_threshold_ns != HM_DEFAULT_HOT_THRESHOLD_NS;
}

/* §5 "Options": each option the caller set must equal the existing file's field, except a read-only
 * opener's hot threshold, which is that reader's own (reader_threshold). */
static int check_options(hm_open_ctx *ctx, const hm_options *o, const hm_file_header *h) {
    int cap_set = (o->set_mask & HM_OPT_CAPACITY) || o->capacity != HM_DEFAULT_CAPACITY;
    int mnb_set = (o->set_mask & HM_OPT_MAX_NAME_BYTES) || o->max_name_bytes != HM_DEFAULT_MAX_NAME_BYTES;
    int hot_set = hot_threshold_set(o) && !o->read_only;
    if (cap_set && o->capacity != h->capacity)
        return OFAIL(ctx, HM_EOPTIONS, "option capacity %u contradicts the file's capacity %u (the file's layout wins)",
                     o->capacity, h->capacity);
    if (mnb_set && o->max_name_bytes != h->max_name_bytes)
        return OFAIL(ctx, HM_EOPTIONS, "option max_name_bytes %u contradicts the file's max_name_bytes %u (the file's layout wins)",
                     o->max_name_bytes, h->max_name_bytes);
    if (hot_set && o->hot_threshold_ns != h->hot_threshold_ns)
        return OFAIL(ctx, HM_EOPTIONS, "option hot_threshold_ns %llu contradicts the file's hot_threshold_ns %llu (the file's "
                     "layout wins; a read-only store takes a threshold of its own)",
                     (unsigned long long)o->hot_threshold_ns, (unsigned long long)h->hot_threshold_ns);
    return HM_OK;
}

/* The threshold a store answers "hot" by (§5 "Options"): a read-only opener's own when it set one, else
 * the file's. A reader changes no byte of the file; a writer's options describe the file it would create. */
static uint64_t reader_threshold(const hm_options *o, const hm_file_header *h) {
    return o->read_only && hot_threshold_set(o) ? o->hot_threshold_ns : h->hot_threshold_ns;
}

/* §5 step 0 owner rule, on the values of an fstat of the descriptor. Returns 0 when allowed, or
 * why not: 1 another owner, 2 (group-shared) the file's group is not one of ours, 3 (group-shared)
 * the file is writable by others. */
int hmi_owner_refusal(uid_t file_uid, gid_t file_gid, mode_t mode, uid_t euid, gid_t egid, const gid_t *groups,
                      int ngroups, uint32_t flags) {
    if (file_uid == euid || (flags & HM_OPEN_ALLOW_FOREIGN_OWNER)) return 0;
    if (!(flags & HM_OPEN_GROUP_SHARED)) return 1;
    int member = file_gid == egid;
    for (int i = 0; i < ngroups && !member; i++) member = groups[i] == file_gid;
    if (!member) return 2;
    return (mode & S_IWOTH) ? 3 : 0;
}

/* The ACL part of the group-shared rule, on the descriptor. */
static int check_acl(hm_open_ctx *ctx, int fd, const struct stat *st) {
    unsigned char stack_buf[4 + 8 * 64];
    unsigned char *buf = stack_buf;
    ssize_t n = fgetxattr(fd, HM_ACL_XATTR, buf, sizeof stack_buf);
    if (n < 0 && errno == ERANGE) { /* more than 64 entries: ask for the size */
        ssize_t want = fgetxattr(fd, HM_ACL_XATTR, NULL, 0);
        if (want > 0 && want <= 65536) {
            buf = malloc((size_t)want);
            n = buf ? fgetxattr(fd, HM_ACL_XATTR, buf, (size_t)want) : -1;
            if (buf == NULL) errno = ENOMEM;
        } else if (want >= 0) {
            errno = E2BIG;
        }
    }
    int rc = HM_OK;
    if (n < 0) {
        int e = errno;
        if (e != ENODATA && e != EOPNOTSUPP && e != ENOTSUP) /* those three: no ACL */
            rc = OFAIL(ctx, HM_EIO, "cannot read its access ACL (%s): %s [check acl]", HM_ACL_XATTR, strerror(e));
    } else {
        uint32_t id = 0;
        int why = hmi_acl_write_grant(buf, (size_t)n, &id);
        if (why < 0)
            rc = OFAIL(ctx, HM_EOWNER,
                       "owned by uid %u: its access ACL (%zd bytes) cannot be read as a POSIX ACL of version 2, so "
                       "who may write it is unknown: refused for a group-shared open [check acl]",
                       (unsigned)st->st_uid, n);
        else if (why > 0)
            rc = OFAIL(ctx, HM_EOWNER,
                       "owned by uid %u and group %u: its ACL grants write to %s %u: a group-shared file of another "
                       "owner must be writable only by its owner and group [check acl, expected no named user or "
                       "group with write]",
                       (unsigned)st->st_uid, (unsigned)st->st_gid, why == 1 ? "user" : "group", (unsigned)id);
    }
    if (buf != stack_buf) free(buf);
    return rc;
}

static int check_owner(hm_open_ctx *ctx, int fd, const struct stat *st, uint32_t flags) {
    const uid_t euid = geteuid();
    const gid_t egid = getegid();
    gid_t stack_groups[64];
    gid_t *groups = stack_groups;
    int n = 0;
    if (st->st_uid != euid && (flags & HM_OPEN_GROUP_SHARED)) {
        n = getgroups((int)(sizeof stack_groups / sizeof stack_groups[0]), stack_groups);
        if (n < 0 && errno == EINVAL) {
            int want = getgroups(0, NULL);
            groups = want > 0 ? malloc((size_t)want * sizeof *groups) : NULL;
            n = groups ? getgroups(want, groups) : -1;
        }
        if (n < 0) n = 0; /* no supplementary groups known: only the effective group counts */
    }
    int why = hmi_owner_refusal(st->st_uid, st->st_gid, st->st_mode, euid, egid, groups, n, flags);
    if (groups != stack_groups) free(groups);
    switch (why) {
    case 0:
        /* accepted by the group-shared rule (another owner, not allowed explicitly): its ACL too */
        if (st->st_uid != euid && !(flags & HM_OPEN_ALLOW_FOREIGN_OWNER)) return check_acl(ctx, fd, st);
        return HM_OK;
    case 1:
        return OFAIL(ctx, HM_EOWNER,
                     "owned by uid %u, not by this process's effective uid %u: another user's file is refused "
                     "(HM_OPEN_ALLOW_FOREIGN_OWNER or HM_OPEN_GROUP_SHARED allow it) [check owner, expected uid %u]",
                     (unsigned)st->st_uid, (unsigned)euid, (unsigned)euid);
    case 2:
        return OFAIL(ctx, HM_EOWNER,
                     "owned by uid %u and group %u, which is not one of this process's groups (effective gid %u): "
                     "refused for a group-shared open [check group, expected one of this process's groups]",
                     (unsigned)st->st_uid, (unsigned)st->st_gid, (unsigned)egid);
    default:
        return OFAIL(ctx, HM_EOWNER,
                     "owned by uid %u and group %u with mode 0%03o: a group-shared file of another owner must not be "
                     "writable by others [check mode, expected S_IWOTH clear]",
                     (unsigned)st->st_uid, (unsigned)st->st_gid, (unsigned)(st->st_mode & 07777));
    }
}

/* §5 opening, sparse files (after the header checks of steps 1-4, before the mapping of step 6).
 * DECISION: lseek(SEEK_HOLE) alone also reports ranges that are allocated but were never
 * written (fallocate's unwritten extents on ext4 and XFS, tmpfs's fallocated pages; verified on
 * Linux 6.18), which every file made by creation step 3 has, and which fault in without
 * allocating. So the file "has a hole" only when SEEK_HOLE finds one before file_bytes AND
 * fewer than file_bytes bytes are allocated to it (st_blocks, 512-byte units). */
static int allocate_holes(hm_open_ctx *ctx, int fd, const struct stat *st, uint64_t file_bytes, int read_only) {
    off_t hole = lseek(fd, 0, SEEK_HOLE);
    if (hole < 0) return HM_OK; /* FORMAT §5 step 4a: a failing lseek (no SEEK_HOLE here) reads as no hole */
    const uint64_t allocated = st->st_blocks > 0 ? (uint64_t)st->st_blocks * 512u : 0;
    if ((uint64_t)hole >= file_bytes) return HM_OK;
    /* ext4 and tmpfs report allocated, never-written ranges as holes too (every created file has
     * them); the block count tells those apart for a reader. A writer allocates regardless (a no-op
     * on allocated ranges), because the block count also counts metadata that could hide a hole. */
    if (read_only && allocated >= file_bytes) return HM_OK;
    if (read_only)
        return OFAIL(ctx, HM_ESPARSE,
                     "the file has unallocated ranges (e.g. a sparse copy: %llu of its %llu bytes allocated, the first "
                     "hole at offset %lld): a read-only mapping faults on them, and on a full tmpfs that is SIGBUS; "
                     "a writer's open allocates them, or copy it with cp --sparse=never [check sparse]",
                     (unsigned long long)allocated, (unsigned long long)file_bytes, (long long)hole);
    /* fallocate(2), not posix_fallocate: where the filesystem cannot allocate, glibc's
     * posix_fallocate emulates it by writing a zero byte into every block that reads as zero,
     * which would race with the other writers of this live file and could undo their stores. */
    int err;
    do err = fallocate(fd, 0, 0, (off_t)file_bytes) == 0 ? 0 : errno;
    while (err == EINTR);
    if (err == 0 || err == EOPNOTSUPP || err == EINVAL) return HM_OK; /* cannot allocate: the FORMAT §10 sparse caveat */
    if (space_errno(err))
        return OFAIL(ctx, HM_ENOSPC,
                     "the file has unallocated ranges (e.g. a sparse copy: %llu of its %llu bytes allocated) and the "
                     "filesystem has no room to allocate them (%s); nothing was changed [check allocation]",
                     (unsigned long long)allocated, (unsigned long long)file_bytes, strerror(err));
    return OFAIL(ctx, HM_EIO, "cannot allocate the file's unallocated ranges (fallocate): %s [check allocation]",
                 strerror(err));
}

static const char *file_type_name(mode_t m) {
    if (S_ISDIR(m)) return "a directory";
    if (S_ISFIFO(m)) return "a FIFO";
    if (S_ISCHR(m)) return "a character device";
    if (S_ISBLK(m)) return "a block device";
    if (S_ISSOCK(m)) return "a socket";
    if (S_ISLNK(m)) return "a symbolic link";
    return "not a regular file";
}

/* §5 step 0 on the descriptor actually opened: a regular file (a FIFO or a device opened
 * O_NONBLOCK is refused here, before any read could block), and the owner rule. */
static int check_opened(hm_open_ctx *ctx, int fd, uint32_t flags, struct stat *st) {
    if (fstat(fd, st) != 0) return OFAIL(ctx, HM_EIO, "cannot stat: %s [check fstat]", strerror(errno));
    if (!S_ISREG(st->st_mode))
        return OFAIL(ctx, HM_ENOTHINT, "not a hint file: %s [check file type, expected a regular file]",
                     file_type_name(st->st_mode));
    return check_owner(ctx, fd, st, flags);
}

/* The writer's claim (§6.1), the one part of an open that touches the mapping: guarded for
 * HM_OPEN_FAULT_GUARD, where a file truncated since its size was checked is HM_ETRUNCATED. */
typedef struct claim_call {
    hm_open_ctx *ctx;
    hm_store *s;
} claim_call;
static int claim_entry(void *arg) {
    claim_call *c = arg;
    return hmi_writer_claim(c->ctx, c->s);
}
static int claim_guarded(hm_open_ctx *ctx, hm_store *s) {
    claim_call c = {ctx, s};
    int rc = hmi_guard_run(s, claim_entry, &c);
    if (rc < 0 && atomic_load_explicit(&s->fault_code, RLX) != 0) { /* relaxed: this thread set it */
        if (ctx->msg != NULL && ctx->msglen > 0) /* the fault's message names the file already */
            snprintf(ctx->msg, ctx->msglen, "%s (while claiming a writer entry)", s->err);
        return rc == HM_ECHANGED ? HM_ETRUNCATED : rc;
    }
    return rc;
}

/* §5 opening, steps 0 (after open) to 6, on the descriptor fd. On success the store owns fd. */
static int open_descriptor(hm_open_ctx *ctx, int fd, const hm_options *o, hm_store **out,
                           const hm_test_create_hooks *hooks) {
    struct stat st;
    int rc = check_opened(ctx, fd, o->flags, &st);
    if (rc < 0) return rc;
    uint64_t size = (uint64_t)st.st_size;
    hm_file_header h;
    memset(&h, 0, sizeof h);
    if (size >= HM_HEADER_BYTES) {
        size_t got = 0;
        while (got < sizeof h) {
            ssize_t r = pread(fd, (unsigned char *)&h + got, sizeof h - got, (off_t)got);
            if (r < 0 && errno == EINTR) continue;
            if (r < 0) return OFAIL(ctx, HM_EIO, "cannot read header: %s [check read]", strerror(errno));
            if (r == 0) { size = got; break; } /* shrank meanwhile */
            got += (size_t)r;
        }
    }
    hm_geometry g;
    rc = hmi_header_validate(ctx, &h, size, &g);
    if (rc < 0) return rc;
    rc = check_options(ctx, o, &h);
    if (rc < 0) return rc;
    rc = allocate_holes(ctx, fd, &st, g.file_bytes, o->read_only != 0);
    if (rc < 0) return rc;

    size_t plen = strlen(ctx->path);
    hm_store *s = calloc(1, sizeof *s + plen + 1);
    if (s == NULL) return OFAIL(ctx, HM_ENOMEM, "out of memory");
    memcpy(s->path, ctx->path, plen + 1);
    if (pthread_mutex_init(&s->err_mu, NULL) != 0) {
        free(s);
        return OFAIL(ctx, HM_ENOMEM, "cannot initialise mutex");
    }
    if (pthread_mutex_init(&s->giveup_mu, NULL) != 0) {
        pthread_mutex_destroy(&s->err_mu);
        free(s);
        return OFAIL(ctx, HM_ENOMEM, "cannot initialise mutex");
    }
    if (pthread_mutex_init(&s->map_mu, NULL) != 0) {
        pthread_mutex_destroy(&s->giveup_mu);
        pthread_mutex_destroy(&s->err_mu);
        free(s);
        return OFAIL(ctx, HM_ENOMEM, "cannot initialise mutex");
    }
    s->read_only = o->read_only != 0;
    /* §5 step 6: exactly file_bytes, from the descriptor that passed the checks */
    void *m = mmap(NULL, (size_t)g.file_bytes, s->read_only ? PROT_READ : PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED) {
        int e = errno;
        rc = OFAIL(ctx, e == ENOMEM ? HM_ENOMEM : HM_EIO, "cannot map %llu bytes (file_bytes): %s%s [check mmap]",
                   (unsigned long long)g.file_bytes, strerror(e),
                   e == ENOMEM ? " (address-space limit RLIMIT_AS, or vm.max_map_count mappings)" : "");
        pthread_mutex_destroy(&s->map_mu);
        pthread_mutex_destroy(&s->giveup_mu);
        pthread_mutex_destroy(&s->err_mu);
        free(s);
        return rc;
    }
#ifdef MADV_HUGEPAGE
    /* §5 step 6: huge pages where the kernel backs a shared file mapping with them (tmpfs/shmem
     * with shmem_enabled or huge= advise|within_size|always), so that a large store's index,
     * reference table and slots cost fewer TLB misses. Best effort, result ignored: the file's
     * bytes are the same either way, and where the kernel cannot (ext4, xfs, THP off) it either
     * refuses (EINVAL) or leaves the mapping on 4 KiB pages. */
    if (g.file_bytes >= (UINT64_C(2) << 20)) (void)madvise(m, (size_t)g.file_bytes, MADV_HUGEPAGE);
#endif
    s->base = m;
    s->map_bytes = (size_t)g.file_bytes;
    s->hdr = m;
    s->writers = (hm_writer_entry *)(void *)(s->base + g.writer_table_offset);
    s->index = (_Atomic uint64_t *)(void *)(s->base + g.index_offset);
    s->ref = (_Atomic uint8_t *)(void *)(s->base + g.ref_table_offset);
    s->slots = s->base + g.slots_offset;
    s->capacity = g.capacity;
    s->max_name_bytes = g.max_name_bytes;
    s->slot_bytes = g.slot_bytes;
    s->name_area_words = (g.slot_bytes - HM_SLOT_FIXED_BYTES) / 8;
    s->index_entries = g.index_entries;
    s->index_mask = g.index_entries - 1;
    s->max_probe = g.max_probe;
    s->writer_entries = g.writer_entries;
    s->hot_threshold_ns = reader_threshold(o, &h);
    s->created_epoch_ms = h.created_epoch_ms;
    s->flags = o->flags;
    s->fd = fd;
    s->dev = st.st_dev;
    s->ino = st.st_ino;
    s->lock_wait_limit_ns = HM_LOCK_WAIT_LIMIT_NS;
    s->giveup_recheck_ns = HM_CHECK_PERIOD_NS;
    atomic_init(&s->liveness_checks, 0);
    atomic_init(&s->self_map_known, 0);
    atomic_init(&s->giveup_count, 0);
    for (unsigned i = 0; i < HM_GIVEUP_MEMO; i++) atomic_init(&s->giveup[i].lock, 0);
    atomic_init(&s->closed, 0);
    atomic_init(&s->refs, 1);
    atomic_init(&s->fault_code, 0);
    if (hooks != NULL && hooks->after_map != NULL) hooks->after_map(hooks->arg, ctx->path);
    if (!s->read_only) {
        rc = hmi_guarded(s) ? claim_guarded(ctx, s) : hmi_writer_claim(ctx, s);
        if (rc < 0) {
            munmap(m, s->map_bytes);
            pthread_mutex_destroy(&s->map_mu);
            pthread_mutex_destroy(&s->giveup_mu);
            pthread_mutex_destroy(&s->err_mu);
            free(s);
            return rc;
        }
    }
    *out = s;
    return HM_OK;
}

int hmi_open_impl(const char *path, const hm_options *opts, hm_store **out, char *errbuf, size_t errlen,
                  const hm_test_create_hooks *hooks) {
    char local[HM_ERR_BYTES];
    hm_open_ctx ctx = {path, errbuf ? errbuf : local, errbuf ? errlen : sizeof local};
    if (errbuf && errlen) errbuf[0] = '\0';
    if (out) *out = NULL;
    if (path == NULL || out == NULL) return OFAIL(&ctx, HM_EINVAL, "path and out must not be NULL");
    hm_options o;
    if (opts) o = *opts;
    else hm_options_init(&o);
    if (!hmi_capacity_valid(o.capacity))
        return OFAIL(&ctx, HM_EINVAL, "option capacity %u is outside [0, %u]", o.capacity, HM_MAX_CAPACITY);
    if (!hmi_name_limit_valid(o.max_name_bytes))
        return OFAIL(&ctx, HM_EINVAL,
                     "option max_name_bytes %u is outside [%u, %u] (the minimum holds a stored name's '~' and 32 hex digits)",
                     o.max_name_bytes, HM_MIN_NAME_BYTES, HM_MAX_NAME_BYTES_LIMIT);
    if (o.hot_threshold_ns > HM_VALUE_MAX)
        return OFAIL(&ctx, HM_EINVAL, "option hot_threshold_ns %llu is outside [0, 2^63-1]", (unsigned long long)o.hot_threshold_ns);
    if (o.flags & ~HM_OPEN_KNOWN_FLAGS)
        return OFAIL(&ctx, HM_EINVAL, "option flags 0x%x has unknown bits (known: 0x%x)", o.flags, HM_OPEN_KNOWN_FLAGS);
    if ((o.flags & HM_OPEN_FAULT_GUARD) && hm_fault_guard_install() != HM_OK)
        return OFAIL(&ctx, HM_EIO, "cannot install the fault guard (HM_OPEN_FAULT_GUARD): sigaction(SIGBUS) failed "
                     "[check fault guard]");
    const int follow = (o.flags & HM_OPEN_FOLLOW_SYMLINKS) != 0;
    for (int attempt = 0; attempt < HM_OPEN_ATTEMPTS; attempt++) {
        /* §5 step 0: O_NOFOLLOW refuses a symlink at the final component, O_NONBLOCK keeps a FIFO
         * from blocking the open; everything after is checked on the descriptor */
        int fd = open(path, (o.read_only ? O_RDONLY : O_RDWR) | O_CLOEXEC | O_NONBLOCK | (follow ? 0 : O_NOFOLLOW));
        if (fd >= 0) {
            int rc = open_descriptor(&ctx, fd, &o, out, hooks);
            if (rc < 0) close(fd); /* on success the store keeps it until hm_close() */
            return rc;
        }
        int e = errno;
        struct stat lst;
        if (e == ELOOP && !follow && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode))
            return OFAIL(&ctx, HM_ESYMLINK,
                         "is a symbolic link: refused at the final path component (HM_OPEN_FOLLOW_SYMLINKS allows it) "
                         "[check symlink, expected a regular file]");
        if (e == EISDIR || e == ENXIO) /* a directory opened for writing; a socket */
            return OFAIL(&ctx, HM_ENOTHINT, "not a hint file: %s (%s) [check file type, expected a regular file]",
                         e == EISDIR ? "a directory" : "not a regular file", strerror(e));
        if (e == ENOENT && o.read_only) /* "no hints yet": Java's Problem.MISSING */
            return OFAIL(&ctx, HM_EMISSING, "no such hint file (opened read-only, so not created): %s [check open]",
                         strerror(e));
        if (e != ENOENT)
            return OFAIL(&ctx, HM_EIO, "cannot open%s: %s [check open]", o.read_only ? " read-only" : "", strerror(e));
        if (follow && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode))
            return OFAIL(&ctx, HM_EIO,
                         "is a dangling symbolic link: hintmap does not create a file through a link [check symlink]");
        int rc = create_file(&ctx, &o, hooks);
        if (rc < 0) return rc;
        /* created (or lost the race to another creator): open what is at the path now */
    }
    return OFAIL(&ctx, HM_EIO, "the file kept disappearing between creation and open");
}

int hm_open_ex(const char *path, const hm_options *opts, hm_store **out, char *errbuf, size_t errlen) {
    return hmi_open_impl(path, opts, out, errbuf, errlen, NULL);
}

int hm_open(const char *path, const hm_options *opts, hm_store **out) {
    return hm_open_ex(path, opts, out, NULL, 0);
}
