/*
 * hintmap.pml - a Promela model of the hintmap v2 concurrency protocol (docs/FORMAT.md §6.2,
 * §7.1-§7.5, §8), checked with spin by native-bench/model/check.sh.
 *
 * Memory is sequentially consistent: every load or store of a shared word is one atomic step,
 * interleaved with the other processes' steps (x86-64 TSO and AArch64 are multi-copy atomic;
 * the C11 fences that make the protocol correct on weaker orders are argued in FORMAT §1, not
 * checked here).  Where several accesses are folded into one step, a comment says why it is
 * safe (always: data that only the lock holder writes, or a slot hidden by an odd gen).
 *
 * Bounds: CAP = 2 slots, IDX = 4 index entries, MAXP = 4 (max_probe), 3 names whose hashes
 * are a fixed table (names 0 and 1 share home AND tag, so only the slot compare tells them
 * apart; name 2's home is the next entry, so dist > 0 and backward shifts occur).
 * A sample of name n is (count 1, kernel_ns K(n) = n+1, bytes 1), so every record of n has
 * total == count*K(n), max == K(n), bytes == count: a torn or foreign record breaks that.
 *
 * Processes: two writers (owner words 1, 2), one reader, a killer that may kill one writer at
 * any step (KILLS), and init, which after everything ended plays the next structural change:
 * it runs §8's recovery when its trigger holds, then checks the index and the exact counts.
 * The reader resolves a name (§7.3 with §7.2.1) and, with HANDLE_READ, then reads it twice
 * through the handle (k, g) the resolve gave (§7.2.2 "Reading through a handle": no name compare, gen
 * checked against g before and after; a stale handle resolves by name again).
 *
 * Every assertion is written  assert(NAME || (condition))  with NAME a hidden constant 0, so
 * that pan's "assertion violated (NAME||...)" names the FORMAT claim that failed.
 *
 * Compile-time switches (spin -D...):  CFG_RECORD, CFG_INSERT, CFG_EVICT (the scenario);
 * KILLS=0|1; MUTANT_A (publish seq before writing the copy), MUTANT_B (backward shift without
 * m <= d), MUTANT_C (reader without the gen re-check), MUTANT_D (no second-chance re-check in
 * §7.4 step 4), MUTANT_E (§7.1 without the gen check under the slot lock); HANDLE_READ (the
 * reader's handle reads); MUTANT_F (a handle read without the generation check: the slot number
 * is trusted), MUTANT_G (a handle read that checks g before but not after); WRONG_ANSWER_ONLY
 * (a handle read asserts only that an answer is one record of its name, not that the slot still
 * holds it: shows a mutant returns a wrong record, not just a stale claim); HANDLE_NO_RESOLVE
 * (a stale handle answers absent instead of resolving again: state space); CLAIM_INFLIGHT (also
 * assert that a recovery drops at most the one in-flight sample); NO_COUNT (the reader does not
 * count); OLD_JOURNAL_RULE (§8 step 1 as first written for v2, and as v1 has it: free the
 * journaled slot whatever its gen; findings F1 and F2 of docs/archive/RELIABILITY.md "Model checking the
 * v2 protocol", fixed in FORMAT.md since: free it only while its gen is odd).
 */

#define CAP   2
#define IDX   4
#define MAXP  4          /* = min(128, IDX), the derived max_probe of §2 */
#define NN    3
#define NONE  255
#define LTRIES 2          /* §7.3: 64 rounds; 2 here (a third would see the same states again) */
#define CTRIES 2          /* §7.5: spin-then-yield for 10 ms; 2 rounds here */
#define RETRIES 2         /* §7.1: re-resolve at most 1024 times; 2 here */

#ifndef KILLS
#define KILLS 0
#endif

/* hm64 as a table: home = hash & (IDX-1), tag = hash >> 34 */
#define HOME(n) ((n) == 2 -> 1 : 0)
#define TAG(n)  ((n) == 2 -> 2 : 1)
#define K(n)    ((n) + 1)

/* index entry (§3.8), one byte: tag << 4 | dist << 2 | slot+1 */
#define MKE(t,d,s) (((t) << 4) | ((d) << 2) | (s))
#define ETAG(e)   ((e) >> 4)
#define EDIST(e)  (((e) >> 2) & 3)
#define ESLOT(e)  ((e) & 3)

/* ---------------------------------------------------------------- the file */
byte struct_lock;            /* 0 free, else owner 1..3 */
byte journal;                /* journal_slot: k+1, 0 none */
byte index_seq;
byte clock_hand;
byte live_count;
byte high_water;
byte index[IDX];
byte lock[CAP];
byte seq[CAP];
byte gen[CAP];
byte sname[CAP];             /* hash, name_len, name: 0 = name_len 0, else name+1 */
bit  ref[CAP];               /* §3.9 reference table */
byte cnt[2*CAP];             /* copy c of slot k is [2*k + c] */
byte tot[2*CAP];
byte mx[2*CAP];
byte byt[2*CAP];

bit  dead[3];                /* owner o is dead iff dead[o-1] (§6.3 abstracted) */
bit  wdone[2];

/* ---------------------------------------------------------------- ghosts */
byte completed[NN];          /* samples of n published since n was last inserted */
byte lost[NN];               /* samples of n dropped by a recovery that freed a LIVE n */
byte jphase;                 /* how far the change that set journal got: 1 step 5, 2 step 7, 3 step 11 */
bit  rlook; byte rname; bit rabs;   /* reader's lookup: was rname absent at some moment? */
bit  rcounting; byte rc_seen;       /* reader's count: bitmask of LIVE counts seen meanwhile */

/* assertion names (hidden: not part of the state vector) */
hidden byte no_torn_record, read_is_current, hit_right_name;
hidden byte miss_is_real, count_is_live, record_right_slot, clock_second_chance;
hidden byte delete_finds_entry, idx_names_live_slot, idx_tag_matches, idx_within_max_probe;
hidden byte idx_dist_true, idx_reachable, idx_one_entry_per_live, live_count_exact;
hidden byte no_duplicate_names, exact_counts, locks_released, crash_loses_only_inflight;
hidden byte rebuild_keeps_sound;


#define LIVE(k)    ((gen[k] % 2 == 0) && sname[k] != 0)
#define NLIVE      (LIVE(0) + LIVE(1))
#define PRESENT(n) ((LIVE(0) && sname[0] == (n)+1) || (LIVE(1) && sname[1] == (n)+1))

/* called inside the atomic step of every store to a gen word (the only stores that change
 * which slots are LIVE, since names change only while gen is odd) */
#define GHOST_GEN \
    if :: rlook && !PRESENT(rname) -> rabs = 1 :: else fi; \
    if :: rcounting -> rc_seen = rc_seen | (1 << NLIVE) :: else fi

#define LOCALS \
    byte me, n, rk, rg, lt, v1, v2, j, p, e, k, att, g1, g2, s1, s2, nm, c, t, x, b, cexp; \
    byte tries, s, hole, i, d, m, vm, rechoice, steps, start, ci, c0, c1, cs, kept, kmask; \
    bit matched, fin, chosen, waslive, room, sound, jrnf

/* ---------------------------------------------------------------- §6.2 locks */
/* take lock l (CAS 0 -> me, or steal from a dead owner), then run AFTER in the same step:
 * only for reads of words that nobody but the holder of l can change */
#define ACQ(l, AFTER) \
    if \
    :: atomic { l == 0 -> l = me; AFTER } \
    :: atomic { l != 0 && dead[l - 1] -> l = me; AFTER } \
    fi

/* ---------------------------------------------------------------- §7.2.1 seqlock read */
/* reader: in k, n; out matched, g1.  Reads gen, seq, the four fields one by one, the name,
 * seq, gen; checks the record it returns */
inline slot_read_r() {
    do
    :: atomic { g1 = gen[k]; if :: g1 % 2 == 1 -> g1 = 0; break :: else fi }  /* BUSY: absent */
        atomic { s1 = seq[k]; cexp = completed[n] }
        c = cnt[2*k + s1 % 2];
        t = tot[2*k + s1 % 2];
        x = mx[2*k + s1 % 2];
        b = byt[2*k + s1 % 2];
        nm = sname[k];                          /* the name compare */
        s2 = seq[k];
        atomic {
            g2 = gen[k];
#ifdef MUTANT_C
            if :: s1 == s2 ->
#else
            if :: s1 == s2 && g1 == g2 ->
#endif
                if
                :: nm == n + 1 ->
                    matched = 1;
                    assert(hit_right_name || sname[k] == n + 1);
                    assert(no_torn_record || (c > 0 && t == c * K(n) && x == K(n) && b == c));
                    assert(read_is_current || c == cexp)
                :: else
                fi;
                s1 = 0; s2 = 0; g2 = 0; nm = 0; c = 0; t = 0; x = 0; b = 0; cexp = 0;
                break
            :: else                             /* torn: retry (bounded by the writers' steps) */
            fi
        }
    od
}

/* writer: a resolve needs (k, g1) only; gen, name, gen */
inline slot_read_w() {
    do
    :: atomic { g1 = gen[k]; if :: g1 % 2 == 1 -> g1 = 0; break :: else fi }
        nm = sname[k];
        atomic {
            g2 = gen[k];
#ifdef MUTANT_C
            if :: true ->
#else
            if :: g1 == g2 ->
#endif
                matched = (nm == n + 1); nm = 0; g2 = 0; break
            :: else
            fi
        }
    od
}

/* ---------------------------------------------------------------- §7.2.2 handle read */
/* reader holding the handle (rk, rg) of name n, rg the g1 of a §7.2.1 read that matched n (§7.2.2):
 * reads the record without a name compare, only count and total (what isHot needs), one per
 * step.  A stale handle (gen not rg before or after) is dropped: rk = NONE, and the caller
 * resolves n by name again.  MUTANT_F: no generation check at all (g1 even and s1 == s2,
 * g1 == g2: the slot number is trusted); MUTANT_G: only the pre-check g1 == rg, not g2 == rg */
#define HANDLE_STALE  rk = NONE; rg = 0; g1 = 0; g2 = 0; s1 = 0; s2 = 0; c = 0; t = 0; cexp = 0; break
inline slot_read_h() {
    do
    :: atomic {
            g1 = gen[rk];
#ifdef MUTANT_F
            if :: g1 % 2 == 1 -> HANDLE_STALE :: else fi
#else
            if :: g1 != rg -> HANDLE_STALE :: else fi
#endif
        }
        atomic { s1 = seq[rk]; cexp = completed[n] }
        c = cnt[2*rk + s1 % 2];
        t = tot[2*rk + s1 % 2];
        s2 = seq[rk];                           /* after fence(acquire) */
        atomic {
            g2 = gen[rk];
            if
#if defined(MUTANT_F)
            :: s1 == s2 && g1 == g2 ->
#elif defined(MUTANT_G)
            :: s1 == s2 ->
#else
            :: s1 == s2 && g2 == rg ->
#endif
#ifndef WRONG_ANSWER_ONLY
                assert(hit_right_name || sname[rk] == n + 1);
                assert(no_torn_record || (c > 0 && t == c * K(n)));
                assert(read_is_current || c == cexp);
#else
                /* only an answer that is wrong: the rule answers when c > 0, and then the
                 * fields must be one record of n (not just "the slot still holds n") */
                assert(no_torn_record || c == 0 || t == c * K(n));
#endif
                g1 = 0; g2 = 0; s1 = 0; s2 = 0; c = 0; t = 0; cexp = 0;
                break
#if !defined(MUTANT_F) && !defined(MUTANT_G)
            :: g2 != rg -> HANDLE_STALE
#endif
            :: else                             /* torn: retry */
            fi
        }
    od
}

/* one answer through the handle; a dropped or missing handle resolves n by name (§7.3),
 * which reads the record itself and gives the new handle, or none */
#ifndef HANDLE_NO_RESOLVE
inline handle_read() {
    if :: rk != NONE -> slot_read_h() :: else fi;
    if :: rk == NONE -> lookup(1, LTRIES) :: else fi
}
#else
inline handle_read() {          /* a stale handle answers absent (state space) */
    if :: rk != NONE -> slot_read_h() :: else fi
}
#endif

/* ---------------------------------------------------------------- §7.3 lookup */
/* in: n; out: rk (NONE = absent), rg.  REC = 1: the reader (reads the record, ghost-checks a
 * trusted miss, LTRIES rounds); REC = 0: a writer (one round, then the locked path). */
inline lookup(REC, ROUNDS) {
    rk = NONE; lt = 0;
    do
    :: atomic {
            v1 = index_seq; lt++; j = HOME(n); p = 0;
            if :: REC -> rlook = 1; rname = n; rabs = !PRESENT(n) :: else fi
        }
        do
        :: atomic {
                if :: p == MAXP -> break :: else fi;
                e = index[j];
                if :: e == 0 -> break :: else fi;
                matched = (ETAG(e) == TAG(n) && EDIST(e) == p);
                k = ESLOT(e) - 1; e = 0; j = (j + 1) % IDX; p++
            }
            if
            :: matched ->
                matched = 0;
                if :: REC -> slot_read_r() :: else -> slot_read_w() fi;
                if :: matched -> rk = k; rg = g1; break :: else fi
            :: else
            fi
        od;
        atomic {
            if
            :: rk != NONE -> break
            :: else
            fi;
            v2 = index_seq;
            if
            :: v1 % 2 == 0 && v2 == v1 ->               /* a definite miss */
                if :: REC -> assert(miss_is_real || rabs || !PRESENT(n)) :: else fi;
                break
            :: lt == ROUNDS -> break                     /* not trusted: absent anyway */
            :: else
            fi
        }
    od;
    atomic {
        if :: REC -> rlook = 0; rabs = 0; rname = 0 :: else fi;
        j = 0; p = 0; e = 0; v1 = 0; v2 = 0; g1 = 0; lt = 0; matched = 0; k = 0
    }
}

/* ---------------------------------------------------------------- §7.5 count */
inline count() {
    lt = 0;
    do
    :: atomic { v1 = index_seq; lt++; rcounting = 1; rc_seen = 1 << NLIVE }
        c = live_count;
        atomic {
            v2 = index_seq;
            if
            :: v1 % 2 == 0 && v2 == v1 ->
                assert(count_is_live || (rc_seen & (1 << c)) != 0);
                matched = 1
            :: else
            fi;
            rcounting = 0; rc_seen = 0;
            if :: matched || lt == CTRIES -> lt = 0; c = 0; v1 = 0; v2 = 0; matched = 0; break :: else fi
        }
    od
}

/* ---------------------------------------------------------------- §7.1 record */
/* in: n, rk, rg (the resolved handle).  Sets fin when the sample is counted or dropped.
 * gen and seq change only under the slot lock, so they are read in the acquiring step; a
 * mismatch releases the lock in that step too (nothing else happens in between). */
#ifdef MUTANT_E
#define GENCHECK matched = 1
#else
#define GENCHECK matched = (gen[k] == rg)
#endif
inline record() {
    k = rk;
    ACQ(lock[k], GENCHECK; if :: matched -> s = seq[k] :: else -> lock[k] = 0 fi);
    if
    :: !matched ->
        tries++;
        if :: tries == RETRIES -> fin = 1 :: else fi     /* dropped after the bound */
    :: else ->
        assert(record_right_slot || sname[k] == n + 1);
#ifdef MUTANT_A
        atomic { seq[k] = s + 1; completed[n]++ };        /* publish first: wrong */
#endif
        /* nxt.f = f(cur.f), one field per step (cur is stable: only the lock holder writes) */
        cnt[2*k + (s+1) % 2] = cnt[2*k + s % 2] + 1;
        tot[2*k + (s+1) % 2] = tot[2*k + s % 2] + K(n);
        mx[2*k + (s+1) % 2]  = (mx[2*k + s % 2] > K(n) -> mx[2*k + s % 2] : K(n));
        byt[2*k + (s+1) % 2] = byt[2*k + s % 2] + 1;
#ifndef MUTANT_A
        atomic { seq[k] = s + 1; completed[n]++ };        /* store_release(seq): publish */
#endif
        if :: ref[k] == 0 -> ref[k] = 1 :: else fi;       /* test, then set (§3.9) */
        atomic { lock[k] = 0; fin = 1; s = 0 }
    fi;
    matched = 0
}

/* ---------------------------------------------------------------- index checks (§3.8) */
/* inside atomic steps only: index_seq even, struct_lock held (or quiescent) */
inline check_index() {
    ci = 0; c0 = 0; c1 = 0;
    do
    :: ci == IDX -> break
    :: else ->
        e = index[ci];
        if
        :: e != 0 ->
            cs = ESLOT(e) - 1;
            assert(idx_names_live_slot || (cs < CAP && LIVE(cs)));
            assert(idx_tag_matches || ETAG(e) == TAG(sname[cs] - 1));
            assert(idx_within_max_probe || EDIST(e) < MAXP);
            assert(idx_dist_true || EDIST(e) == (ci + IDX - HOME(sname[cs] - 1)) % IDX);
            assert(idx_reachable || EDIST(e) < 1 || index[(ci + IDX - 1) % IDX] != 0);
            assert(idx_reachable || EDIST(e) < 2 || index[(ci + IDX - 2) % IDX] != 0);
            assert(idx_reachable || EDIST(e) < 3 || index[(ci + IDX - 3) % IDX] != 0);
            if :: cs == 0 -> c0++ :: else -> c1++ fi
        :: else
        fi;
        ci++
    od;
    assert(idx_one_entry_per_live || ((LIVE(0) -> c0 == 1 : c0 == 0) && (LIVE(1) -> c1 == 1 : c1 == 0)));
    assert(live_count_exact || live_count == NLIVE);
    assert(no_duplicate_names || !(LIVE(0) && LIVE(1) && sname[0] == sname[1]));
    ci = 0; c0 = 0; c1 = 0; cs = 0; e = 0
}

/* ---------------------------------------------------------------- §8 step 1 / 2c free */
/* frees slot k; JRN = 1: the journaled slot (step 1), 0: a slot the rebuild drops (2c).
 * gen changes only under the slot lock, so it is read (and made odd) in the acquiring step */
#define FREE_ODD \
    if \
    :: gen[k] % 2 == 0 -> \
        if \
        :: sname[k] != 0 -> \
            vm = sname[k] - 1; \
            if \
            :: jrnf && jphase < 3 -> completed[vm] = 0 \
            :: else -> lost[vm] = lost[vm] + completed[vm]; completed[vm] = 0 \
            fi; \
            vm = 0 \
        :: else \
        fi; \
        gen[k] = gen[k] | 1; \
        GHOST_GEN \
    :: else \
    fi
inline free_slot(JRN) {
    jrnf = JRN;
    ACQ(lock[k], FREE_ODD);
    atomic {                                   /* gen odd: hidden; one step */
        sname[k] = 0; ref[k] = 0;
        cnt[2*k] = 0; tot[2*k] = 0; mx[2*k] = 0; byt[2*k] = 0;
        cnt[2*k+1] = 0; tot[2*k+1] = 0; mx[2*k+1] = 0; byt[2*k+1] = 0
    }
    atomic { gen[k] = (gen[k] | 1) + 1; clock_hand = k; GHOST_GEN; lock[k] = 0; jrnf = 0 }
}

/* ---------------------------------------------------------------- §8 recovery */
inline recover() {
    if
#ifndef OLD_JOURNAL_RULE
    /* step 1: free the journaled slot only while it is BUSY; one whose gen is even is
     * untouched (crash in steps 5-6) or complete (crash after step 11's gen store), and
     * step 2c keeps or frees it like any other slot */
    :: journal != 0 && gen[journal - 1] % 2 == 1 -> k = journal - 1; free_slot(1)
#else
    :: journal != 0 -> k = journal - 1; free_slot(1)                 /* the old step 1 */
#endif
    :: else
    fi;
    index_seq = index_seq | 1;                                         /* 2a */
    atomic {                              /* index_seq odd: every entry to 0, one step */
        ci = 0;
        do
        :: ci == IDX -> break
        :: else -> index[ci] = 0; ci++
        od;
        ci = 0;
        /* 2b: nothing in the model is out of range */
        k = 0; kept = 0; kmask = 0
    }
    do                                                                 /* 2c */
    :: k == high_water -> break
    :: else ->
        /* names, gen and the index are the lock holder's; the current copy is stable while
         * its slot is LIVE (a recorder writes only the other copy): check, then insert */
        atomic {
            room = (gen[k] % 2 == 0 && sname[k] == 0);                 /* FREE: skipped */
            sound = (LIVE(k)
                && cnt[2*k + seq[k] % 2] > 0
                && mx[2*k + seq[k] % 2] <= tot[2*k + seq[k] % 2]
                && tot[2*k + seq[k] % 2] / cnt[2*k + seq[k] % 2] <= mx[2*k + seq[k] % 2]
                && !(k == 1 && (kmask & 1) != 0 && sname[0] == sname[1]));
            if
            :: sound ->
                n = sname[k] - 1; j = HOME(n); p = 0;
                do
                :: p == MAXP -> sound = 0; break
                :: p < MAXP && index[j] == 0 -> break
                :: else -> j = (j + 1) % IDX; p++
                od
            :: else
            fi;
            if
            :: sound -> index[j] = MKE(TAG(n), p, k + 1); kept++; kmask = kmask | (1 << k)
            :: else
            fi;
            j = 0; p = 0; n = 0
        }
        if
        :: room || sound -> skip
        :: else ->
            assert(rebuild_keeps_sound || !LIVE(k));
            free_slot(0)
        fi;
        atomic { room = 0; sound = 0; k++ }
    od;
    atomic { live_count = kept; index_seq++; check_index() };          /* 2d */
    atomic { journal = 0; jphase = 0; k = 0; kept = 0; kmask = 0 }     /* 3 */
}

/* ---------------------------------------------------------------- §7.4 structural change */
inline choose() {
    if
    :: atomic { high_water < CAP -> k = high_water; high_water++ }
    :: atomic { high_water >= CAP -> steps = 0; start = clock_hand }
        do
        :: atomic { steps == 2 * CAP -> k = start; clock_hand = (start + 1) % CAP; break }
        :: atomic { steps < 2 * CAP -> k = clock_hand; clock_hand = (clock_hand + 1) % CAP; steps++ }
            if
            :: ref[k] == 0 -> break                 /* (FREE slots have ref 0) */
            :: else -> ref[k] = 0
            fi
        od;
        steps = 0; start = 0
    fi
}

inline shift_delete() {            /* step 8, for name vm in slot k; hole found in step 7 */
    do
    :: atomic {
        if :: steps == IDX - 1 || index[i] == 0 -> break :: else fi;
        e = index[i]; d = EDIST(e); m = (i + IDX - hole) % IDX;
#ifdef MUTANT_B
        if :: true ->
#else
        if :: m <= d ->
#endif
            index[hole] = MKE(ETAG(e), (d + 4 - m) % 4, ESLOT(e)); hole = i
        :: else
        fi;
        i = (i + 1) % IDX; steps++; e = 0; d = 0; m = 0
       }
    od;
    atomic { index[hole] = 0; live_count--; hole = 0; i = 0; steps = 0 }
}

#ifdef MUTANT_D
#define RECHECK chosen = 1
#else
#define RECHECK chosen = !(sname[k] != 0 && ref[k] == 1 && rechoice < CAP)
#endif

inline structural() {
    /* struct_lock, then (same step: journal and index_seq are the holder's) the trigger */
    ACQ(struct_lock, room = (journal != 0 || index_seq % 2 == 1));
    if                                                                  /* 1 */
    :: room -> room = 0; recover()
    :: else
    fi;
    atomic {                                  /* 2: re-resolve; 3: room (holder's data) */
        k = NONE;
        if
        :: LIVE(0) && sname[0] == n + 1 -> k = 0
        :: LIVE(1) && sname[1] == n + 1 -> k = 1
        :: else
        fi;
        if :: k != NONE -> rk = k; rg = gen[k] :: else fi;
        room = 0; j = HOME(n); p = 0;
        do
        :: p == MAXP -> break
        :: p < MAXP && index[j] == 0 -> room = 1; break
        :: else -> j = (j + 1) % IDX; p++
        od;
        j = 0; p = 0
    }
    if
    :: k != NONE -> atomic { struct_lock = 0; room = 0 }; record()
    :: !room -> atomic { struct_lock = 0; fin = 1 }                      /* dropped */
    :: else ->
        rechoice = 0; chosen = 0;
        do
        :: chosen -> break
        :: else ->
            choose();
            /* 4: ref[k] is set only under lock[k]: read in the acquiring step */
            ACQ(lock[k], RECHECK);
            if
            :: !chosen -> atomic { ref[k] = 0; lock[k] = 0; rechoice++ }
            :: else
            fi
        od;
        atomic { journal = k + 1; jphase = 1 };                          /* 5 */
        index_seq++;                                                     /* 6 */
        atomic {                                                         /* 7 */
            waslive = LIVE(k);
            assert(clock_second_chance || !waslive || ref[k] == 0 || rechoice >= CAP);
            if :: waslive -> vm = sname[k] - 1; completed[vm] = 0 :: else fi;
            gen[k] = gen[k] | 1; jphase = 2;
            GHOST_GEN;
            if                                /* 8, find (reads the holder's index only) */
            :: waslive ->
                hole = NONE; j = HOME(vm); p = 0;
                do
                :: p == MAXP -> break
                :: p < MAXP && ETAG(index[j]) == TAG(vm) && ESLOT(index[j]) == k + 1 -> hole = j; break
                :: else -> j = (j + 1) % IDX; p++
                od;
                assert(delete_finds_entry || hole != NONE);
                i = (hole + 1) % IDX; steps = 0; j = 0; p = 0
            :: else
            fi;
            vm = 0
        }
        if                                                               /* 8 */
        :: waslive -> shift_delete()
        :: else
        fi;
        sname[k] = n + 1;                                                /* 9: hash, name */
        atomic {                             /* the copies, seq, ref: gen is odd, one step */
            cnt[2*k + (seq[k]+1) % 2] = 1; tot[2*k + (seq[k]+1) % 2] = K(n);
            mx[2*k + (seq[k]+1) % 2] = K(n); byt[2*k + (seq[k]+1) % 2] = 1;
            cnt[2*k + seq[k] % 2] = 0; tot[2*k + seq[k] % 2] = 0;
            mx[2*k + seq[k] % 2] = 0; byt[2*k + seq[k] % 2] = 0;
            seq[k]++; ref[k] = 0
        }
        atomic {                                                         /* 10 */
            room = 0; j = HOME(n); p = 0;
            do
            :: p == MAXP -> break
            :: p < MAXP && index[j] == 0 -> room = 1; break
            :: else -> j = (j + 1) % IDX; p++
            od;
            if
            :: room -> index[j] = MKE(TAG(n), p, k + 1); live_count++
            :: else -> sname[k] = 0; clock_hand = k      /* no room: cannot happen here */
            fi;
            j = 0; p = 0
        }
        atomic {                                                         /* 11 */
            gen[k] = gen[k] + 1; jphase = 3;
            if :: room -> completed[n]++ :: else fi;
            GHOST_GEN
        }
        atomic { index_seq++; check_index() };
        atomic { journal = 0; jphase = 0 };
        atomic { lock[k] = 0; struct_lock = 0;
                 fin = 1; room = 0; waslive = 0; rechoice = 0; chosen = 0 }
    fi
}

/* one sample of name nn: §7.3 resolve, then §7.1 record or §7.4 insert */
inline op(nn) {
    n = nn;
    do
    :: fin -> break
    :: else ->
        lookup(0, 1);
        if
        :: rk != NONE -> record()
        :: else -> structural()
        fi
    od;
    atomic { n = 0; rk = 0; rg = 0; k = 0; tries = 0; fin = 0 }
}

/* ---------------------------------------------------------------- scenarios */
#ifdef NO_COUNT
#define COUNT skip
#else
#define COUNT count()
#endif

#ifdef CFG_RECORD
/* names 0 (slot 0, entry 0, dist 0) and 1 (slot 1, entry 1, dist 1) are LIVE, count 1 each */
#define PREFILL \
    sname[0] = 1; gen[0] = 2; seq[0] = 1; cnt[1] = 1; tot[1] = 1; mx[1] = 1; byt[1] = 1; \
    sname[1] = 2; gen[1] = 2; seq[1] = 1; cnt[3] = 1; tot[3] = 2; mx[3] = 2; byt[3] = 1; \
    index[0] = MKE(1, 0, 1); index[1] = MKE(1, 1, 2); \
    live_count = 2; high_water = 2; index_seq = 2; \
    completed[0] = 1; completed[1] = 1
#define W1_OPS op(0)
#define W2_OPS op(0); op(1)
#ifdef HANDLE_READ
#define R_OPS  n = 0; lookup(1, LTRIES); handle_read(); handle_read()
#else
#define R_OPS  n = 0; lookup(1, LTRIES)
#endif
#endif

#ifdef CFG_INSERT
/* empty store: both writers insert, one name in common (step 2's re-resolve under the lock) */
#define PREFILL skip
#define W1_OPS op(0); op(1)
#define W2_OPS op(0)
#define R_OPS  n = 0; lookup(1, LTRIES); COUNT
#endif

#ifdef CFG_EVICT
/* full store: slot 0 = name 1 (entry 0, dist 0), slot 1 = name 2 (entry 1, dist 0), count 1
 * each, reference bits 0, hand at 0.  Writer 1 inserts name 0 (an eviction, a backward shift,
 * a tag collision with name 1); writer 2 records name 1 (races with the hand) and then name 2
 * (perhaps evicted meanwhile: a second eviction, or the re-resolve of step 2) */
#define PREFILL \
    sname[0] = 2; gen[0] = 2; seq[0] = 1; cnt[1] = 1; tot[1] = 2; mx[1] = 2; byt[1] = 1; \
    sname[1] = 3; gen[1] = 2; seq[1] = 1; cnt[3] = 1; tot[3] = 3; mx[3] = 3; byt[3] = 1; \
    index[0] = MKE(1, 0, 1); index[1] = MKE(2, 0, 2); \
    live_count = 2; high_water = 2; index_seq = 2; \
    completed[1] = 1; completed[2] = 1
#define W1_OPS op(0)
#if KILLS > 0
#define W2_OPS op(1)            /* with a crash: one op each (state space) */
#else
#define W2_OPS op(1); op(2)
#endif
#ifdef HANDLE_READ
/* name 1, whose slot 0 writer 1's insertion of name 0 may take (its handle goes stale) and
 * writer 2 may insert again, in either slot */
#if KILLS > 0
#define R_OPS  n = 1; lookup(1, LTRIES); handle_read()     /* with a crash: one (state space) */
#else
#define R_OPS  n = 1; lookup(1, LTRIES); handle_read(); handle_read()
#endif
#else
#define R_OPS  n = 0; lookup(1, LTRIES); COUNT
#endif
#endif

proctype writer(byte id) {
    LOCALS;
    me = id;
    {
        if
        :: me == 1 -> W1_OPS
        :: else -> W2_OPS
        fi
    } unless { dead[me - 1] };
    wdone[me - 1] = 1
}

proctype reader() {
    LOCALS;
    R_OPS
}

proctype killer() {
#if KILLS > 0
    if
    :: atomic { !wdone[0] -> dead[0] = 1 }
    :: atomic { !wdone[1] -> dead[1] = 1 }
    :: skip
    fi
#else
    skip
#endif
}

init {
    LOCALS;
    atomic {
        PREFILL;
        run writer(1); run writer(2); run reader(); run killer()
    }
    _nr_pr == 1;
    /* quiescent: every lock is free or held by a dead owner */
    d_step {
        assert(locks_released || struct_lock == 0 || dead[struct_lock - 1]);
        assert(locks_released || lock[0] == 0 || dead[lock[0] - 1]);
        assert(locks_released || lock[1] == 0 || dead[lock[1] - 1])
    }
    /* the next structural change (§7.4 step 1) */
    me = 3;
    ACQ(struct_lock, skip);
    if
    :: journal != 0 || index_seq % 2 == 1 -> recover()
    :: else
    fi;
    d_step {
        check_index();
        /* exact counts (§7.2, §10 Durability): every published sample of a LIVE name is in
         * its current copy; a name not LIVE has none pending */
        n = 0;
        do
        :: n == NN -> break
        :: else ->
            if
            :: LIVE(0) && sname[0] == n + 1 -> assert(exact_counts || cnt[seq[0] % 2] == completed[n])
            :: LIVE(1) && sname[1] == n + 1 -> assert(exact_counts || cnt[2 + seq[1] % 2] == completed[n])
            :: else -> assert(exact_counts || completed[n] == 0)
            fi;
#ifdef CLAIM_INFLIGHT
            assert(crash_loses_only_inflight || lost[n] <= 1);
#endif
            n++
        od;
        n = 0
    }
}
