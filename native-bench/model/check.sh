#!/usr/bin/env bash
# check.sh - model-check the hintmap v2 protocol (hintmap.pml) with spin: every headline
# property exhaustively (no bitstate), the two spec findings, and the protocol mutants.
# Not part of ./mvnw verify (spin is a system package).  One core; a few GB at most.
# Usage: native-bench/model/check.sh [-q]     (-q: summary lines only)
set -u
here=$(cd "$(dirname "$0")" && pwd)
model="$here/hintmap.pml"
if ! command -v spin >/dev/null 2>&1; then
    echo "SKIP: spin not installed"
    exit 0
fi
CC=${CC:-gcc}
MEMLIM=${MEMLIM:-3000}          # MB per run
work=$(mktemp -d "${TMPDIR:-/tmp}/hintmap-spin.XXXXXX")
trap 'rm -rf "$work"' EXIT
failures=0

# run NAME EXPECT(pass|fail) EXPECTED_ASSERTION SPIN_FLAGS...
run() {
    local name=$1 expect=$2 want=$3; shift 3
    local d="$work/$name"; mkdir -p "$d"; cp "$model" "$d/hintmap.pml"
    if ! (cd "$d" && spin "$@" -a hintmap.pml >spin.out 2>&1); then
        echo "FAIL $name: spin -a failed: $(head -3 "$d/spin.out")"; failures=$((failures + 1)); return
    fi
    if ! (cd "$d" && "$CC" -O2 -w -DSAFETY -DCOLLAPSE -DMEMLIM="$MEMLIM" -o pan pan.c >cc.out 2>&1); then
        echo "FAIL $name: cc failed: $(head -3 "$d/cc.out")"; failures=$((failures + 1)); return
    fi
    local t0 t1
    t0=$(date +%s.%N)
    (cd "$d" && ./pan -m200000 -w24 >pan.out 2>&1)
    t1=$(date +%s.%N)
    local out="$d/pan.out"
    local states trans depth errors secs
    states=$(awk '/states, stored/ {print $1; exit}' "$out")
    trans=$(awk '/transitions \(= stored\+matched\)/ {print $1; exit}' "$out")
    depth=$(sed -n 's/.*depth reached \([0-9]*\).*/\1/p' "$out" | head -1)
    errors=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' "$out" | head -1)
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f", b - a}')
    local stats="states=$states transitions=$trans depth=$depth errors=${errors:-?} time=${secs}s flags=[$*]"
    if grep -qE "pan: out of memory|max search depth too small" "$out" ||
       { [ "$expect" = pass ] && grep -q "Search not completed" "$out"; }; then
        echo "FAIL $name: search incomplete ($stats)"; failures=$((failures + 1)); return
    fi
    if [ "$expect" = pass ]; then
        if [ "${errors:-1}" = 0 ]; then
            echo "PASS $name: $stats"
        else
            echo "FAIL $name: $(grep -m1 'violated\|invalid end state' "$out") ($stats)"
            failures=$((failures + 1))
        fi
        return
    fi
    # expected to fail: a mutant or a finding
    local assertion at
    assertion=$(sed -n 's/.*assertion violated (*\([a-z_]*\)||.*/\1/p' "$out" | head -1)
    at=$(sed -n 's/.*(at depth \([0-9]*\)).*/\1/p' "$out" | head -1)
    if [ "${errors:-0}" != 0 ] && [ -n "$assertion" ] && { [ -z "$want" ] || [[ $assertion =~ ^($want)$ ]]; }; then
        local verb=caught; case $name in finding*) verb=reproduced ;; esac
        echo "${name} ${verb}: $assertion (trail $at steps; $stats)"
    else
        echo "FAIL $name NOT caught as expected (wanted ${want:-any assertion}, got '${assertion:-none}': $stats)"
        failures=$((failures + 1))
    fi
}

echo "hintmap v2 protocol model (native-bench/model/hintmap.pml), spin $(spin -V | sed -n 's/Spin Version \([0-9.]*\).*/\1/p'), exhaustive (COLLAPSE, no bitstate)"

# Headline properties: the protocol exactly as FORMAT.md v2 states it
run record           pass "" -DCFG_RECORD
run record-crash     pass "" -DCFG_RECORD -DKILLS=1
run insert           pass "" -DCFG_INSERT
run evict            pass "" -DCFG_EVICT
# Crashes inside a structural change, with §8 step 1 as FORMAT.md now states it (free the
# journaled slot only while BUSY) ...
run insert-crash       pass "" -DCFG_INSERT -DKILLS=1 -DCLAIM_INFLIGHT
run evict-crash        pass "" -DCFG_EVICT -DKILLS=1 -DCLAIM_INFLIGHT
# The handle read of §7.2.1 (a reader that holds (k, g) reads without a name compare): records
# racing with it, and (evict) its slot taken for another name, its name inserted again, or the
# slot freed by §8 after a crash (one handle read there, a stale one answering absent: state space)
run record-handle      pass "" -DCFG_RECORD -DHANDLE_READ
run record-handle-crash pass "" -DCFG_RECORD -DHANDLE_READ -DKILLS=1
run evict-handle       pass "" -DCFG_EVICT -DHANDLE_READ
run evict-handle-crash pass "" -DCFG_EVICT -DHANDLE_READ -DKILLS=1 -DCLAIM_INFLIGHT -DHANDLE_NO_RESOLVE
# ... and the rule as first written for v2 (and in v1), which the model found wrong (F1, F2)
run "finding F1 (old §8 step 1 frees a LIVE journaled slot while index_seq is even)" \
                     fail count_is_live -DCFG_INSERT -DKILLS=1 -DOLD_JOURNAL_RULE
run "finding F2 (old §8 step 1: recovery drops a complete region after step 11's gen)" \
                     fail crash_loses_only_inflight -DCFG_INSERT -DKILLS=1 -DNO_COUNT -DCLAIM_INFLIGHT -DOLD_JOURNAL_RULE

# Mutants: each must be caught
run "mutant A (§7.1 publishes seq before writing the copy)"        fail "" -DCFG_RECORD -DMUTANT_A
run "mutant A+crash (§7.1 publish first, writer killed)"           fail "" -DCFG_RECORD -DKILLS=1 -DMUTANT_A
run "mutant B (§7.4 step 8 shift without m <= d)"                  fail "idx_dist_true|idx_reachable" -DCFG_EVICT -DMUTANT_B
run "mutant C (§7.2.1 reader skips the gen re-check)"              fail "" -DCFG_EVICT -DMUTANT_C
run "mutant D (§7.4 step 4 second-chance re-check removed)"        fail clock_second_chance -DCFG_EVICT -DMUTANT_D
run "mutant E (§7.1 no gen check under the slot lock)"             fail record_right_slot -DCFG_EVICT -DMUTANT_E
run "mutant F (§7.2.2 handle read without the generation check)"  fail "hit_right_name|no_torn_record" -DCFG_EVICT -DHANDLE_READ -DMUTANT_F
run "mutant G (§7.2.2 handle read checks g1 == g, not g2 == g)"    fail no_torn_record -DCFG_EVICT -DHANDLE_READ -DMUTANT_G -DWRONG_ANSWER_ONLY

if [ "$failures" -ne 0 ]; then
    echo "check.sh: $failures check(s) FAILED"
    exit 1
fi
echo "check.sh: all checks as expected"
