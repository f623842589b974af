/*
 * mapped_file_sighting.c - the last rule of FORMAT §6.3: whether a process maps this file, from
 * /proc/<pid>/maps.
 * Twin of the Java class dev.hintmap.os.MappedFileSighting.
 *
 * Section references (§n) are to docs/FORMAT.md. Every atomic access to the mapping names its
 * memory order; the one-line comment next to it says why. Decisions that FORMAT.md leaves open
 * are marked "DECISION:". The library's internal interface is src/hm_internal.h.
 */
#define _GNU_SOURCE 1
#define HM_LIBRARY_SOURCE 1 /* this file is part of the library: hm_internal.h declares its internals */

#include "hm_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#define HM_MAPS_LINE         256     /* bytes kept of a /proc/<pid>/maps line: its fields before the path */

/* One number of a maps line, in base 16 or 10; advances *pp. Returns 0 when there is none or it
 * overflows 64 bits. */
static int maps_number(const char **pp, unsigned base, uint64_t *out) {
    const char *p = *pp;
    uint64_t v = 0;
    for (; ; p++) {
        unsigned d;
        if (*p >= '0' && *p <= '9') d = (unsigned)(*p - '0');
        else if (base == 16 && *p >= 'a' && *p <= 'f') d = (unsigned)(*p - 'a') + 10;
        else break;
        if (v > (UINT64_MAX - d) / base) return 0;
        v = v * base + d;
    }
    if (p == *pp) return 0;
    *pp = p;
    *out = v;
    return 1;
}

/* "start-end perms offset MAJ:MIN inode [path]" (proc(5)). Returns 1 parsed, 0 malformed. */
static int maps_line_parse(const char *p, uint64_t *start, uint64_t *end, hm_map_id *id) {
    uint64_t offset;
    if (!maps_number(&p, 16, start) || *p != '-') return 0;
    p++;
    if (!maps_number(&p, 16, end) || *p != ' ') return 0;
    p++;
    while (*p != ' ' && *p != '\0') p++; /* perms */
    if (*p != ' ') return 0;
    p++;
    if (!maps_number(&p, 16, &offset) || *p != ' ') return 0;
    p++;
    if (!maps_number(&p, 16, &id->major) || *p != ':') return 0;
    p++;
    if (!maps_number(&p, 16, &id->minor) || *p != ' ') return 0;
    p++;
    if (!maps_number(&p, 10, &id->ino)) return 0;
    return *p == ' ' || *p == '\0';
}

/* Streams a maps file with bounded memory (one read buffer, the first HM_MAPS_LINE bytes of each
 * line: the maps of a big process are megabytes). With want == NULL, finds the line whose range
 * contains addr and stores its id in *found; otherwise looks for a line naming *want. Returns 1
 * found, 0 not found, -1 cannot tell (cannot open or read it, e.g. EACCES for another user's
 * process or ENOENT when it just exited, or a line that does not parse). */
static int maps_scan(const char *path, uintptr_t addr, const hm_map_id *want, hm_map_id *found) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    char buf[4096], line[HM_MAPS_LINE];
    size_t len = 0;
    int result = 0;
    for (;;) {
        ssize_t r = read(fd, buf, sizeof buf);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            result = -1;
            break;
        }
        const size_t n = (size_t)r;
        const int eof = r == 0;
        for (size_t i = 0; i < n || (eof && len > 0); i++) {
            char c = i < n ? buf[i] : '\n'; /* a last line without its newline */
            if (c != '\n') {
                if (len < sizeof line - 1) line[len++] = c;
                continue;
            }
            line[len] = '\0';
            len = 0;
            uint64_t a, b;
            hm_map_id id;
            if (!maps_line_parse(line, &a, &b, &id)) {
                result = -1;
                goto done;
            }
            if (want == NULL ? (addr >= a && addr < b)
                             : (id.ino == want->ino && id.major == want->major && id.minor == want->minor)) {
                if (found) *found = id;
                result = 1;
                goto done;
            }
        }
        if (eof) break;
    }
done:
    close(fd);
    return result;
}

/* How /proc/self/maps names this store's mapping (the line holding its base address: right on
 * overlayfs too, where fstat's st_dev/st_ino differ from what maps prints). Learnt once, on the
 * first liveness check that needs it; 0 when it cannot be learnt now. */
static int self_map_id(hm_store *s, hm_map_id *out) {
    if (!atomic_load_explicit(&s->self_map_known, ACQ)) { /* acquire: pairs with the release below */
        hm_map_id id;
        if (maps_scan("/proc/self/maps", (uintptr_t)s->base, NULL, &id) != 1 || id.ino == 0) return 0;
        pthread_mutex_lock(&s->map_mu);
        if (!atomic_load_explicit(&s->self_map_known, RLX)) { /* relaxed: under the mutex */
            s->self_map = id;
            atomic_store_explicit(&s->self_map_known, 1, REL); /* release: self_map is written */
        }
        pthread_mutex_unlock(&s->map_mu);
    }
    *out = s->self_map;
    return 1;
}

/* §6.3 last rule: whether process pid maps this file. 1 when it does, and when that cannot be
 * told (our own line not found, its maps unreadable or unparsable: the rule without maps). */
int hmi_pid_maps_this_file(hm_store *s, uint64_t pid) {
    hm_map_id self;
    if (!self_map_id(s, &self)) return 1;
    char path[48];
    snprintf(path, sizeof path, "/proc/%llu/maps", (unsigned long long)pid);
    return maps_scan(path, 0, &self, NULL) != 0;
}
