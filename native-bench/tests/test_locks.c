/*
 * test_locks.c - locks: owners, liveness, stealing from the dead, giving up on the living (FORMAT
 * §6; Java: LockGiveUpTest, OwnerRuleTest).
 * Registered by the runner, test_unit.c; run under ASan+UBSan (build/test_unit_asan).
 *
 * Processes that must die or hit a limit are forked children; they report through their
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

typedef struct leader_exit_arg {
    const char *path;
    int fd;
} leader_exit_arg;

/* State (field 3) of this process in /proc/self/stat: the leader thread's state. */
static char own_process_state(void) {
    char buf[512];
    FILE *f = fopen("/proc/self/stat", "r");
    if (f == NULL) return '?';
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    return p && p[1] == ' ' ? p[2] : '?';
}

static void *hold_from_thread(void *p) {
    leader_exit_arg *a = p;
    while (own_process_state() != 'Z') usleep(1000); /* until the leader has really exited */
    child_hold_and_wait(a->path, a->fd, 0, "r"); /* never returns */
    return NULL;
}

typedef struct rec_arg {
    hm_store *s;
    const char *name;
    _Atomic int done;
    int rc;
} rec_arg;

static void *rec_thread(void *p) {
    rec_arg *a = p;
    a->rc = t_rec(a->s, a->name, 5, 5);
    atomic_store(&a->done, 1);
    return NULL;
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

static int writers_attached(hm_store *s) {
    hm_writer_entry *w = (hm_writer_entry *)((unsigned char *)hm_test_mapping(s) + HM_HEADER_BYTES);
    int n = 0;
    for (unsigned i = 0; i < HM_WRITER_ENTRIES; i++) n += atomic_load(&w[i].token) != 0;
    return n;
}

static void test_dead_owners_slot_lock_is_stolen_live_owners_is_waited_for(void) {
    const char *p = tpath("dead.hm");
    hm_options o = opts_cap(16);
    hm_store *s;
    OPEN_OK(s, p, &o);
    CHECK_EQ(t_rec(s, "r", 1, 1), HM_OK);
    for (int reap_first = 0; reap_first < 2; reap_first++) {
        int fds[2];
        CHECK(pipe(fds) == 0);
        fflush(NULL);
        pid_t pid = fork();
        CHECK(pid >= 0);
        if (pid == 0) {
            close(fds[0]);
            child_hold_and_wait(p, fds[1], 0, "r");
        }
        close(fds[1]);
        char c;
        CHECK(read(fds[0], &c, 1) == 1);
        close(fds[0]);
        /* the holder is alive: a writer must wait (found it alive 10 times), not steal */
        hm_test_set_lock_wait_limit_ns(s, T_NO_GIVEUP_NS); /* the give-up (§6.2) is tested below */
        uint64_t checks = hm_test_liveness_checks(s);
        rec_arg a = {s, "r", 0, 0};
        pthread_t t;
        CHECK(pthread_create(&t, NULL, rec_thread, &a) == 0);
        int reached = t_await_liveness_checks(s, checks + 10, &a.done);
        int still_waiting = !atomic_load(&a.done);
        double t0 = t_now_ms();
        kill(pid, SIGKILL);
        if (reap_first) waitpid(pid, NULL, 0); /* else: a zombie (state Z) until reaped */
        pthread_join(t, NULL);
        double waited = t_now_ms() - t0;
        if (!reap_first) waitpid(pid, NULL, 0);
        CHECK_EQ(reached, 0);
        CHECK(still_waiting);
        CHECK_EQ(a.rc, HM_OK);
        fprintf(stderr, "  info: record completed %.2f ms after kill -9 of the lock holder (%s)\n", waited,
                reap_first ? "reaped" : "zombie");
    }
    hm_region_record r;
    CHECK_EQ(t_look(s, "r", &r), HM_OK);
    CHECK_EQ(r.dispatch_count, 3);
    hm_stats st;
    CHECK_EQ(hm_stats_get(s, &st), HM_OK);
    CHECK_EQ(st.stolen_locks, 2);
    CHECK_EQ(st.recoveries, 0);
    /* the dead child's writer entry is reclaimed by the next open */
    hm_store *s2;
    OPEN_OK(s2, p, NULL);
    hm_file_header *h = hm_test_mapping(s);
    hm_writer_entry *w = (hm_writer_entry *)((unsigned char *)h + 4096);
    int held = 0;
    for (int i = 0; i < 1024; i++) held += atomic_load(&w[i].token) != 0;
    CHECK_EQ(held, 2); /* s and s2 only */
    CHECK_EQ(hm_close(s2), HM_OK);
    CHECK_EQ(hm_close(s), HM_OK);
}

/* A process whose main thread called pthread_exit() shows as a zombie (state Z) in
 * /proc/<pid>/stat while its other threads run: it is alive, and its locks must not be taken. */
static void test_zombie_leader_with_live_threads_keeps_its_locks(void) {
    const char *p = tpath("leader.hm");
    hm_options o = opts_cap(16);
    hm_store *s;
    OPEN_OK(s, p, &o);
    CHECK_EQ(t_rec(s, "r", 1, 1), HM_OK);
    int fds[2];
    CHECK(pipe(fds) == 0);
    fflush(NULL);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        static leader_exit_arg a;
        a.path = p;
        a.fd = fds[1];
        pthread_t t;
        if (pthread_create(&t, NULL, hold_from_thread, &a) != 0) _exit(7);
        alarm(300); /* never outlive a failed test (its pipe would keep the runner's output open) */
        pthread_exit(NULL); /* the leader exits, the holding thread lives on */
    }
    close(fds[1]);
    char c;
    CHECK(read(fds[0], &c, 1) == 1);
    close(fds[0]);
    hm_test_set_lock_wait_limit_ns(s, T_NO_GIVEUP_NS); /* the give-up (§6.2) is tested below */
    uint64_t checks = hm_test_liveness_checks(s);
    rec_arg a = {s, "r", 0, 0};
    pthread_t t;
    CHECK(pthread_create(&t, NULL, rec_thread, &a) == 0);
    /* not "not done after a while": the writer found the holder's process alive 10 times */
    int reached = t_await_liveness_checks(s, checks + 10, &a.done);
    int waited = !atomic_load(&a.done);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    pthread_join(t, NULL);
    CHECK_EQ(reached, 0);
    CHECK(waited); /* waited: the holder's process is alive */
    CHECK_EQ(a.rc, HM_OK);
    hm_region_record r;
    CHECK_EQ(t_look(s, "r", &r), HM_OK);
    CHECK_EQ(r.dispatch_count, 2);
    CHECK_EQ(hm_close(s), HM_OK);
}

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

const hm_test_case *hm_t_locks_cases(size_t *n) {
    static const hm_test_case cases[] = {
        {"dead_owners_slot_lock_is_stolen_live_owners_is_waited_for",
         test_dead_owners_slot_lock_is_stolen_live_owners_is_waited_for},
        {"zombie_leader_with_live_threads_keeps_its_locks", test_zombie_leader_with_live_threads_keeps_its_locks},
        {"live_owner_slot_lock_gives_up", test_live_owner_slot_lock_gives_up},
        {"live_owner_struct_lock_gives_up", test_live_owner_struct_lock_gives_up},
        {"live_owner_victim_and_recovery_give_up", test_live_owner_victim_and_recovery_give_up},
        {"stat_parse_empty_or_short_means_alive", test_stat_parse_empty_or_short_means_alive},
        {"copied_file_lock_of_live_holder_is_stolen", test_copied_file_lock_of_live_holder_is_stolen},
        {"copied_file_writer_entries_kept_until_their_processes_exit",
         test_copied_file_writer_entries_kept_until_their_processes_exit},
        {"giveup_remembered_without_liveness_check", test_giveup_remembered_without_liveness_check},
    };
    *n = sizeof cases / sizeof cases[0];
    return cases;
}
