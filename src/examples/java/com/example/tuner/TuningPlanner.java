package com.example.tuner;

import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.HotRegion;
import dev.hintmap.HotSet;
import dev.hintmap.RegionRecord;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Decides where tuning time goes (docs/PGO.md): the hot set of the hint file by coverage
 * ({@link HintStore#hotSet}), hottest first, as tuner runs, cut to a budget. A region outside the
 * hot set, too thin, absent, or not a CLBlast region keeps CLBlast's defaults; a file that cannot
 * be read (missing, damaged, another version, another owner) gives an empty plan, never an error:
 * hints decide where effort goes, never whether the result is right.
 *
 * <p>Uses only the exported API: the file is opened read-only, so the planner claims nothing in it
 * and never waits for a writer.
 */
public final class TuningPlanner {
    private final TunerCap cap;

    /**
     * @param cap the cap of every run: the planned cost of a run is its timeout (the worst case)
     */
    public TuningPlanner(TunerCap cap) {
        this.cap = cap;
    }

    /**
     * The hint-guided plan: the hot set, within the budget.
     *
     * @param hintFile the file the runtime recorded
     * @param coverage the share of kernel time to cover, in [0, 1]
     * @param minDispatches fewer dispatches than this are too thin to act on
     * @param budget the tuning-time budget: runs are added hottest first while the sum of their
     *     timeouts fits
     * @return the plan; {@link TuningPlan#noHintsReason()} set when the file gave no usable hints
     */
    public TuningPlan planHot(Path hintFile, double coverage, long minDispatches, Duration budget) {
        HotSet hot;
        try (HintStore store = HintStore.open(hintFile, HintStoreOptions.defaults().readOnly(true))) {
            hot = store.hotSet(coverage, minDispatches);
        } catch (IOException | UncheckedIOException | IllegalStateException e) {
            return TuningPlan.defaults(e.getMessage()); // no hints: every kernel keeps its defaults
        }
        List<Candidate> candidates = new ArrayList<>();
        for (HotRegion r : hot.regions()) {
            candidates.add(new Candidate(r.name(), r.share()));
        }
        return plan(candidates, budget);
    }

    /**
     * The plan without hints' guidance (arm B of docs/PGO.md): every region of the file is tuned,
     * whatever its share or count; the file serves only as the list of kernels and shapes the
     * workload uses. Regions are ordered by total kernel time only so that each kernel's first entry
     * in the parameters file is its hottest shape.
     *
     * @param hintFile the file the runtime recorded
     * @return the plan, with no budget
     */
    public TuningPlan planAll(Path hintFile) {
        List<RegionRecord> regions;
        long total = 0;
        try (HintStore store = HintStore.open(hintFile, HintStoreOptions.defaults().readOnly(true))) {
            regions = new ArrayList<>(store.snapshot().regions());
        } catch (IOException | UncheckedIOException | IllegalStateException e) {
            return TuningPlan.defaults(e.getMessage());
        }
        for (RegionRecord r : regions) {
            total += r.kernelNsTotal();
        }
        regions.sort(Comparator.comparingLong(RegionRecord::kernelNsTotal).reversed().thenComparing(RegionRecord::name));
        List<Candidate> candidates = new ArrayList<>();
        for (RegionRecord r : regions) {
            candidates.add(new Candidate(r.name(), total == 0 ? 0 : (double) r.kernelNsTotal() / total));
        }
        return plan(candidates, null);
    }

    private record Candidate(String name, double share) {}

    /** Candidates hottest first → tasks (one per kernel and sizes), cut where the budget ends. */
    private TuningPlan plan(List<Candidate> candidates, Duration budget) {
        Map<TuningTask, List<String>> regions = new LinkedHashMap<>();
        Map<TuningTask, Double> shares = new LinkedHashMap<>();
        List<TuningPlan.Skipped> skipped = new ArrayList<>();
        long budgetRuns = budget == null ? Long.MAX_VALUE : budget.dividedBy(cap.timeout());
        for (Candidate c : candidates) {
            Optional<ClblastRegion> region = ClblastRegion.parse(c.name());
            if (region.isEmpty()) {
                skipped.add(new TuningPlan.Skipped(c.name(), c.share(), "not a CLBlast region"));
                continue;
            }
            TuningTask.Tunable tunable = TuningTask.of(region.get());
            if (tunable.task() == null) {
                skipped.add(new TuningPlan.Skipped(c.name(), c.share(), tunable.reason()));
                continue;
            }
            TuningTask task = tunable.task();
            if (!regions.containsKey(task) && regions.size() >= budgetRuns) {
                skipped.add(new TuningPlan.Skipped(c.name(), c.share(), "over the budget"));
                continue;
            }
            regions.computeIfAbsent(task, t -> new ArrayList<>()).add(c.name());
            shares.merge(task, c.share(), Double::sum);
        }
        List<TuningPlan.Planned> tasks = new ArrayList<>();
        double covered = 0;
        for (Map.Entry<TuningTask, List<String>> e : regions.entrySet()) {
            tasks.add(new TuningPlan.Planned(e.getKey(), e.getValue(), shares.get(e.getKey())));
            covered += shares.get(e.getKey());
        }
        return new TuningPlan(tasks, skipped, budget, null, covered);
    }
}
