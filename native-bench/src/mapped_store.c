/*
 * mapped_store.c - the lifetime of an open store: its last error, close and the reference count of
 * its handles, the change detection of FORMAT §5.1 (hm_check), flush.
 * Twin of the Java class dev.hintmap.store.MappedStore.
 *
 * Section references (§n) are to docs/FORMAT.md. Every atomic access to the mapping names its
 * memory order; the one-line comment next to it says why. Decisions that FORMAT.md leaves open
 * are marked "DECISION:". The library's internal interface is src/hm_internal.h.
 */
#define _GNU_SOURCE 1
#define HM_LIBRARY_SOURCE 1 /* this file is part of the library: hm_internal.h declares its internals */

#include "hm_internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static void msg_vset(char *buf, size_t len, const char *path, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));
static void msg_vset(char *buf, size_t len, const char *path, const char *fmt, va_list ap) {
    if (buf == NULL || len == 0) return;
    int n = snprintf(buf, len, "hintmap: %s: ", path ? path : "(null)");
    if (n < 0) n = 0;
    if ((size_t)n < len) vsnprintf(buf + n, len - (size_t)n, fmt, ap);
}

void hmi_msg_set(char *buf, size_t len, const char *path, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    msg_vset(buf, len, path, fmt, ap);
    va_end(ap);
}

int hmi_fail(hm_store *s, int code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    pthread_mutex_lock(&s->err_mu);
    msg_vset(s->err, sizeof s->err, s->path, fmt, ap);
    pthread_mutex_unlock(&s->err_mu);
    va_end(ap);
    return code;
}

void hmi_store_unref(hm_store *s) {
    if (atomic_fetch_sub_explicit(&s->refs, 1, memory_order_acq_rel) == 1) { /* acq_rel: last one frees */
        pthread_mutex_destroy(&s->map_mu);
        pthread_mutex_destroy(&s->giveup_mu);
        pthread_mutex_destroy(&s->err_mu);
        free(s);
    }
}

/* hm_close's release of the writer entry (guarded for HM_OPEN_FAULT_GUARD). */
static int writer_release(void *arg) {
    hm_store *s = arg;
    /* §5.1: a file truncated below our writer entry has lost that page, and the store below
     * would raise SIGBUS; the entry is then left for reclaim as dead (§6.1). */
    uint64_t entry_end = (uint64_t)((unsigned char *)&s->writers[s->writer_index] - s->base) + sizeof(hm_writer_entry);
    struct stat st;
    if (fstat(s->fd, &st) != 0 || (uint64_t)st.st_size >= entry_end) {
        /* release: everything this process wrote happens before the entry looks free (§6.1).
         * Callers guarantee no other call on this store is running (documented). */
        atomic_store_explicit(&s->writers[s->writer_index].token, 0, REL);
        return HM_OK;
    }
    return hmi_fail(s, HM_ECHANGED,
                    "truncated under the mapping to %lld bytes: writer entry %u not released (reclaimed as dead later) "
                    "[check size, expected file_bytes %zu]",
                    (long long)st.st_size, s->writer_index, s->map_bytes);
}

int hm_close(hm_store *s) {
    if (s == NULL) return HM_OK;
    if (atomic_load_explicit(&s->closed, RLX)) return HM_ECLOSED;
    /* A store that faulted touches the mapping no more: its entry is left for reclaim as dead. */
    int rc = atomic_load_explicit(&s->fault_code, RLX);
    if (rc == 0 && !s->read_only) rc = hmi_guarded(s) ? hmi_guard_run(s, writer_release, s) : writer_release(s);
    if (munmap(s->base, s->map_bytes) != 0) rc = hmi_fail(s, HM_EIO, "munmap failed: %s", strerror(errno));
    close(s->fd);
    s->fd = -1;
    s->base = NULL;
    s->hdr = NULL;
    atomic_store_explicit(&s->closed, 1, RLX); /* relaxed: close is not concurrent with other calls */
    hmi_store_unref(s);
    return rc;
}

static int header_check(void *arg);

int hm_check(hm_store *s) {
    CHECK_STORE(s);
    struct stat st;
    if (fstat(s->fd, &st) != 0) return hmi_fail(s, HM_EIO, "cannot fstat the mapped file: %s [check fstat]", strerror(errno));
    if ((uint64_t)st.st_size != (uint64_t)s->map_bytes) {
        if ((uint64_t)st.st_size < (uint64_t)s->map_bytes)
            return hmi_fail(s, HM_ECHANGED,
                            "truncated under the mapping: the file is %lld bytes [check size, expected file_bytes %zu]; "
                            "touching the lost pages raises SIGBUS%s: close this store without using it and reopen",
                            (long long)st.st_size, s->map_bytes,
                            hmi_guarded(s) ? " (HM_ECHANGED in this guarded store)" : "");
        return hmi_fail(s, HM_ECHANGED,
                        "resized under the mapping: the file grew to %lld bytes [check size, expected file_bytes %zu]",
                        (long long)st.st_size, s->map_bytes);
    }
    struct stat now;
    int r = (s->flags & HM_OPEN_FOLLOW_SYMLINKS) ? stat(s->path, &now) : lstat(s->path, &now);
    if (r != 0) {
        int e = errno;
        if (e == ENOENT || e == ENOTDIR)
            return hmi_fail(s, HM_ECHANGED,
                            "removed: no file at the path any more; this store still maps the unlinked file "
                            "[check path, expected device/inode %llu/%llu]",
                            (unsigned long long)s->dev, (unsigned long long)s->ino);
        return hmi_fail(s, HM_EIO, "cannot %s the path: %s [check path]", (s->flags & HM_OPEN_FOLLOW_SYMLINKS) ? "stat" : "lstat",
                        strerror(e));
    }
    if (now.st_dev != s->dev || now.st_ino != s->ino)
        return hmi_fail(s, HM_ECHANGED,
                        "replaced: the path now names device/inode %llu/%llu%s [check inode, expected %llu/%llu, the mapped file]",
                        (unsigned long long)now.st_dev, (unsigned long long)now.st_ino,
                        S_ISLNK(now.st_mode) ? " (a symbolic link)" : "", (unsigned long long)s->dev,
                        (unsigned long long)s->ino);
    /* The header in the mapping: only now, after fstat found every page still there (a load from
     * a truncated part would raise SIGBUS: a truncation from here on is guarded, or fatal). */
    return hmi_guarded(s) ? hmi_guard_run(s, header_check, s) : header_check(s);
}

/* hm_check's loads from the header in the mapping. */
static int header_check(void *arg) {
    hm_store *s = arg;
    uint64_t magic = atomic_load_explicit(&s->hdr->magic, ACQ); /* acquire: as every reader of magic (§5) */
    if (magic == 0)
        return hmi_fail(s, HM_EUNFINISHED,
                        "the header in the mapping changed under the store: magic is now 0 (e.g. a hole punched into "
                        "the file, or the file overwritten in place) [check magic]; close this store and reopen");
    if (magic != HM_MAGIC)
        return hmi_fail(s, HM_ENOTHINT,
                        "the header in the mapping changed under the store: magic is now 0x%016llx, expected 0x%016llx "
                        "(e.g. the file overwritten in place) [check magic]; close this store and reopen",
                        (unsigned long long)magic, (unsigned long long)HM_MAGIC);
    /* volatile: another program may change this immutable word under the mapping; read it now */
    uint64_t fp = *(const volatile uint64_t *)&s->hdr->layout_fingerprint;
    if (fp != hm_layout_fingerprint())
        return hmi_fail(s, HM_ELAYOUT,
                        "the header in the mapping changed under the store: layout_fingerprint is now 0x%016llx, this "
                        "build's is 0x%016llx (e.g. the file overwritten in place) [check layout_fingerprint]; close this "
                        "store and reopen",
                        (unsigned long long)fp, (unsigned long long)hm_layout_fingerprint());
    return HM_OK;
}

int hm_flush(hm_store *s) {
    CHECK_STORE(s);
    if (msync(s->base, s->map_bytes, MS_SYNC) != 0) return hmi_fail(s, HM_EIO, "msync failed: %s", strerror(errno));
    return HM_OK;
}

const char *hm_last_error(const hm_store *s) { return s ? s->err : "invalid store"; }

size_t hm_last_error_copy(const hm_store *s, char *buf, size_t len) {
    if (s == NULL) {
        if (buf && len) snprintf(buf, len, "invalid store");
        return 13;
    }
    hm_store *m = (hm_store *)(uintptr_t)s; /* the mutex is not part of the logical state */
    pthread_mutex_lock(&m->err_mu);
    size_t n = strlen(m->err);
    if (buf && len) snprintf(buf, len, "%s", m->err);
    pthread_mutex_unlock(&m->err_mu);
    return n;
}

int hm_is_read_only(const hm_store *s) { return s ? s->read_only : 0; }

