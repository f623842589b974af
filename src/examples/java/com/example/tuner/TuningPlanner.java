package com.example.tuner;

import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.RegionOrder;
import dev.hintmap.RegionRecord;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Decides where tuning time goes (docs/PGO.md), for any tuner: the regions of a hint file, in an
 * order, mapped to tuner runs by the tuner's {@link Tunables}, cut where the budget ends. The one
 * path every arm of the measurement takes; only the order differs:
 * <ul>
 * <li>{@link #planHot}: the hot set by coverage ({@link HintStore#hotSet}) of the tuner runs, hottest first
 *     (arm C): the regions one run serves count as one, their time and dispatches summed;
 * <li>{@link #planAll}: every region the file lists, no budget (arm B);
 * <li>{@link #planLargest} and {@link #planRandom}: what an engineer does without a profile, with the
 *     same budget as C (arm D): largest problems first, or a random choice. They use the file only as
 *     the list of problems the workload has (what a reader of the code would know), never its times.
 * </ul>
 * A region outside the set, too thin, absent, not this tuner's, or over the tuner's bound keeps the
 * defaults; a file that cannot be read (missing, damaged, another version, another owner) gives an
 * empty plan, never an error: hints decide where effort goes, never whether the result is right.
 *
 * <p>Shares are of the file's kernel time summed exactly (arbitrary precision), not with the format's
 * saturating sum: regions at {@code 2^63-1} ns each are a third of three, never 100 % each (nor a
 * negative share from a wrapped {@code long}). Every run is counted at its cap's timeout (the worst
 * case), so a plan never exceeds its budget whatever the tuners do.
 *
 * <p>Uses only the exported API: the file is opened read-only, so the planner claims nothing in it
 * and never waits for a writer; it may be read while the runtime records into it.
 *
 * @param <T> the kind of tuner run
 */
public final class TuningPlanner<T extends PlanTask> {
    private final Tunables<T> tunables;
    private final Duration perRun;

    /**
     * @param tunables which run tunes which region
     * @param perRun the cap of one run: its planned cost (a run past it is stopped)
     */
    public TuningPlanner(Tunables<T> tunables, Duration perRun) {
        if (perRun.isNegative() || perRun.isZero()) {
            throw new IllegalArgumentException("the cap of a run must be positive: " + perRun);
        }
        this.tunables = tunables;
        this.perRun = perRun;
    }

    /**
     * The hint-guided plan: the hot set, hottest first, within the budget. The set is of tuner runs, not of
     * regions: the regions one run serves (one CLBlast kernel recorded under several names by the OpenCL layer,
     * another layout of one GEMM shape) are one candidate, with their time and dispatches summed, since tuning one
     * tunes them all; a kernel split over many thin regions is not lost below the cut or the minimum. Where each
     * region has a run of its own, this is the hot set of the regions.
     *
     * @param hintFile the file the runtime recorded
     * @param coverage the share of kernel time to cover, in [0, 1]
     * @param minDispatches fewer dispatches than this (a run's regions summed) are too thin to act on
     * @param budget the tuning-time budget: runs are added hottest first while their caps fit
     * @return the plan; {@link TuningPlan#noHintsReason()} set when the file gave no usable hints
     */
    public TuningPlan<T> planHot(Path hintFile, double coverage, long minDispatches, Duration budget) {
        List<RegionRecord> all;
        try (HintStore store = open(hintFile)) {
            all = store.snapshot().regions();
        } catch (IOException | UncheckedIOException | IllegalStateException e) {
            return TuningPlan.defaults(e.getMessage()); // no hints: every kernel keeps its defaults
        }
        return plan(new Recorded(hotRuns(all, coverage, minDispatches), all), budget, null);
    }

    /** A region no run serves: a hot-set candidate of its own. */
    private record Alone(String region) {}

    /**
     * The regions of the hot set of tuner runs, in its order: the regions one run serves combined into one
     * record ({@link RegionRecord#merge}: dispatches and time summed) under the name of its hottest region, every
     * other region as it is; the library's hot set by coverage over these ({@link HintStore#hotSet}, computed in an
     * in-memory store: the one definition of the rule, docs/GUIDE.md); then each chosen record's regions,
     * hottest first. Where no two regions share a run, this is the hot set of the regions.
     */
    private List<RegionRecord> hotRuns(List<RegionRecord> all, double coverage, long minDispatches) {
        Map<Object, List<RegionRecord>> byRun = new LinkedHashMap<>();
        for (RegionRecord r : sortedHottestFirst(all)) {
            T task = tunables.of(r.name()).task();
            byRun.computeIfAbsent(task != null ? task : new Alone(r.name()), k -> new ArrayList<>()).add(r);
        }
        Map<String, List<RegionRecord>> byHottest = new LinkedHashMap<>();
        List<RegionRecord> units = new ArrayList<>();
        int maxNameBytes = HintStoreOptions.MIN_NAME_BYTES;
        for (List<RegionRecord> regions : byRun.values()) {
            RegionRecord hottest = regions.getFirst();
            RegionRecord unit = hottest;
            for (RegionRecord r : regions.subList(1, regions.size())) {
                unit = unit.merge(new RegionRecord(hottest.name(), r.dispatchCount(), r.kernelNsTotal(), r.kernelNsMax(),
                        r.bytesTotal()));
            }
            if (unit.dispatchCount() > 0) { // a region without a sample holds no time and can never be hot
                units.add(unit);
                byHottest.put(hottest.name(), regions);
                maxNameBytes = Math.max(maxNameBytes, utf8Length(hottest.name()));
            }
        }
        HintStoreOptions options = HintStoreOptions.defaults().capacity(units.size())
                .maxNameBytes(Math.min(maxNameBytes, HintStoreOptions.MAX_NAME_BYTES_LIMIT));
        try (HintStore runs = HintStore.inMemory(options)) {
            units.forEach(runs::add);
            return runs.hotSet(coverage, minDispatches).regions().stream()
                    .flatMap(hot -> byHottest.get(hot.name()).stream()).toList();
        }
    }

    private static int utf8Length(String name) {
        return name.getBytes(StandardCharsets.UTF_8).length;
    }

    /**
     * Everything (arm B): every region of the file is tuned, whatever its share or count; the file
     * serves only as the list of problems the workload has. Regions are ordered hottest first only so
     * that logs and the output read in a useful order.
     *
     * @param hintFile the file the runtime recorded
     * @return the plan, with no budget
     */
    public TuningPlan<T> planAll(Path hintFile) {
        Recorded recorded;
        try (HintStore store = open(hintFile)) {
            List<RegionRecord> all = store.snapshot().regions();
            recorded = new Recorded(sortedHottestFirst(all), all);
        } catch (IOException | UncheckedIOException | IllegalStateException e) {
            return TuningPlan.defaults(e.getMessage());
        }
        return plan(recorded, null, null);
    }

    /**
     * Without hints, the engineer's guess (arm D): the largest problems first ({@link PlanTask#size()};
     * equal sizes by label), within the budget.
     *
     * @param hintFile the file the runtime recorded, read only for the list of its problems
     * @param budget the tuning-time budget
     * @return the plan
     */
    public TuningPlan<T> planLargest(Path hintFile, Duration budget) {
        return planWithoutHints(hintFile, budget,
                tasks -> tasks.sort(Comparator.comparingLong(PlanTask::size).reversed().thenComparing(PlanTask::label)));
    }

    /**
     * Without hints, a random choice (arm D, one draw): the problems in an order shuffled by
     * {@code seed} ({@link Random}, whose sequence Java specifies: the same draw on every machine),
     * within the budget.
     *
     * @param hintFile the file the runtime recorded, read only for the list of its problems
     * @param budget the tuning-time budget
     * @param seed the draw
     * @return the plan
     */
    public TuningPlan<T> planRandom(Path hintFile, Duration budget, long seed) {
        return planWithoutHints(hintFile, budget, tasks -> {
            tasks.sort(Comparator.comparing(PlanTask::label)); // the same start whatever the file's slot order
            Collections.shuffle(tasks, new Random(seed));
        });
    }

    private interface TaskOrder<T> {
        void reorder(List<T> tasks);
    }

    private TuningPlan<T> planWithoutHints(Path hintFile, Duration budget, TaskOrder<T> order) {
        Recorded recorded;
        try (HintStore store = open(hintFile)) {
            List<RegionRecord> all = store.snapshot().regions();
            List<RegionRecord> byName = new ArrayList<>(all);
            byName.sort(Comparator.comparing(RegionRecord::name, RegionOrder::compareNames)); // the library's order of names
            recorded = new Recorded(byName, all);
        } catch (IOException | UncheckedIOException | IllegalStateException e) {
            return TuningPlan.defaults(e.getMessage());
        }
        return plan(recorded, budget, order);
    }

    private static HintStore open(Path hintFile) throws IOException {
        return HintStore.open(hintFile, HintStoreOptions.defaults().readOnly(true));
    }

    private static List<RegionRecord> sortedHottestFirst(List<RegionRecord> regions) {
        List<RegionRecord> sorted = new ArrayList<>(regions);
        sorted.sort(RegionOrder.TOTAL_NS.comparator()); // equal totals by name, as HintStore.hotSet orders them
        return sorted;
    }

    /**
     * What the file gave: the regions to consider, in order, and the exact kernel time of every region read
     * (thin and foreign ones included), the denominator of every share.
     */
    private record Recorded(List<RegionRecord> candidates, BigInteger total) {
        Recorded(List<RegionRecord> candidates, List<RegionRecord> all) {
            this(candidates, exactSum(all));
        }
    }

    private static BigInteger exactSum(List<RegionRecord> regions) {
        BigInteger sum = BigInteger.ZERO;
        for (RegionRecord r : regions) {
            sum = sum.add(BigInteger.valueOf(r.kernelNsTotal()));
        }
        return sum;
    }

    /** Candidates in order → runs (regions of one run grouped), ordered, cut where the budget ends. */
    private TuningPlan<T> plan(Recorded recorded, Duration budget, TaskOrder<T> order) {
        Map<T, List<RegionRecord>> byTask = new LinkedHashMap<>();
        List<TuningPlan.Skipped> skipped = new ArrayList<>();
        for (RegionRecord r : recorded.candidates()) {
            Tunable<T> tunable = tunables.of(r.name());
            if (tunable.task() == null) {
                skipped.add(new TuningPlan.Skipped(r.name(), share(r.kernelNsTotal(), recorded.total()), tunable.reason()));
            } else {
                byTask.computeIfAbsent(tunable.task(), t -> new ArrayList<>()).add(r);
            }
        }
        List<T> tasks = new ArrayList<>(byTask.keySet());
        if (order != null) {
            order.reorder(tasks);
        }
        long budgetRuns = budget == null ? Long.MAX_VALUE : budget.dividedBy(perRun);
        List<TuningPlan.Planned<T>> planned = new ArrayList<>();
        BigInteger covered = BigInteger.ZERO;
        for (T task : tasks) {
            List<RegionRecord> regions = byTask.get(task);
            BigInteger time = exactSum(regions);
            if (planned.size() < budgetRuns) {
                planned.add(new TuningPlan.Planned<>(task, regions.stream().map(RegionRecord::name).toList(),
                        share(time, recorded.total())));
                covered = covered.add(time);
            } else {
                for (RegionRecord r : regions) {
                    skipped.add(new TuningPlan.Skipped(r.name(), share(r.kernelNsTotal(), recorded.total()),
                            "over the budget"));
                }
            }
        }
        return new TuningPlan<>(planned, skipped, budget, null, share(covered, recorded.total()));
    }

    private static double share(long part, BigInteger total) {
        return share(BigInteger.valueOf(part), total);
    }

    /** part / total in binary64, 0 for an empty file, never above 1 (a live file's totals may move between reads). */
    private static double share(BigInteger part, BigInteger total) {
        return total.signum() == 0 ? 0 : Math.min(1.0, part.doubleValue() / total.doubleValue());
    }
}
