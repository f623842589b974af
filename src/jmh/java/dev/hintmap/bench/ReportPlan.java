package dev.hintmap.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * The JMH plan of the report ({@link #jobs()}): every benchmark a row of the targets table uses
 * ("headline") with {@value #HEADLINE_FORKS} forks, the rest with one; the settings of a full and of
 * a quick run, and the estimate of how long a run takes.
 */
final class ReportPlan {
    static final int HEADLINE_FORKS = 2;
    static final int[] CHURN_CAPACITIES = {256, 65_536, 1_048_576};
    static final int[] OPEN_CAPACITIES = {256, 1_048_576};
    /**
     * Seconds a JMH fork costs beyond its iterations and its benchmark's setup (JVM start, JMH's own
     * work); for the estimate only. Calibrated on the 2-vCPU guest: an earlier report spent 81 s
     * beyond its iterations on 63 single-fork runs; a quick run under a load average of 6 took about
     * twice the estimate.
     */
    static final double FORK_OVERHEAD_S = 1.0;

    private final boolean quick;

    ReportPlan(boolean quick) {
        this.quick = quick;
    }

    boolean quick() {
        return quick;
    }

    /** JMH iteration settings of one class of benchmarks. */
    record Settings(int forks, int warmups, TimeValue warmupTime, int iterations, TimeValue measureTime) {
        String flags() {
            return String.format(Locale.ROOT, "-f %d -wi %d -w %s -i %d -r %s", forks, warmups, cli(warmupTime), iterations, cli(measureTime));
        }

        private static String cli(TimeValue t) {
            long ms = t.convertTo(TimeUnit.MILLISECONDS);
            return ms % 1000 == 0 ? ms / 1000 + "s" : ms + "ms";
        }

        double secondsPerRun(double setupS) {
            return forks * (warmups * seconds(warmupTime) + iterations * seconds(measureTime) + FORK_OVERHEAD_S + setupS);
        }

        private static double seconds(TimeValue t) {
            return t.convertTo(TimeUnit.MILLISECONDS) / 1000.0;
        }
    }

    static final Settings FULL_HEADLINE = new Settings(HEADLINE_FORKS, 2, TimeValue.seconds(1), 3, TimeValue.seconds(1));
    /**
     * Churn: an earlier report warmed up 4 × 1 s; a run with no warm-up at all (HINTMAP and
     * CONCURRENT at 2^16 and 2^20, 6 iterations) showed only the first 1 s iteration above the
     * rest at 2^16 (713 against 473-530 ns) and nothing distinguishable from the noise at 2^20, so 2 × 1 s.
     */
    static final Settings FULL_CHURN = new Settings(HEADLINE_FORKS, 2, TimeValue.seconds(1), 3, TimeValue.seconds(1));
    static final Settings FULL_OTHER = new Settings(1, 2, TimeValue.seconds(1), 2, TimeValue.seconds(1));
    static final Settings QUICK_HEADLINE = new Settings(HEADLINE_FORKS, 1, TimeValue.milliseconds(300), 2, TimeValue.milliseconds(100));
    static final Settings QUICK_OTHER = new Settings(1, 1, TimeValue.milliseconds(300), 1, TimeValue.milliseconds(100));

    /** One JMH invocation of the plan: the methods of one benchmark class over the cross product of params. */
    record Job(String group, Class<?> bench, List<String> methods, Map<String, String[]> params, boolean headline,
               boolean churn, String heap, double setupS) {
        int runs() {
            int n = methods.size();
            for (String[] values : params.values()) {
                n *= values.length;
            }
            return n;
        }
    }


    Settings settings(Job job) {
        if (quick) {
            return job.headline() ? QUICK_HEADLINE : QUICK_OTHER;
        }
        return job.headline() ? (job.churn() ? FULL_CHURN : FULL_HEADLINE) : FULL_OTHER;
    }

    private static String[] of(String... values) {
        return values;
    }

    private static Map<String, String[]> stores(String... stores) {
        return Map.of("store", stores);
    }

    private static String[] caps(int... capacities) {
        return Arrays.stream(capacities).mapToObj(Integer::toString).toArray(String[]::new);
    }

    /**
     * The JMH plan. Headline jobs are those a row of the targets table reads; the rest fill the
     * comparison tables and the step-by-step analysis, with one fork.
     */
    List<Job> jobs() {
        int[] churnCaps = quick ? new int[] {256, 65_536} : CHURN_CAPACITIES;
        int[] openCaps = quick ? new int[] {256} : OPEN_CAPACITIES;
        int[] agronaCaps = Arrays.stream(churnCaps).filter(c -> c <= AgronaStore.MAX_CAPACITY).toArray();
        List<Job> jobs = new ArrayList<>();
        // headline: targets 1, 2, 4
        jobs.add(new Job("record", RecordBench.class, List.of("existing_1t", "existing_2t"),
                stores("HINTMAP", "HINTMAP_REGION", "AGRONA"), true, false, "-Xmx1g", 0.5));
        // headline: target 3
        jobs.add(new Job("query", QueryBench.class,
                List.of("isHot_1t", "dispatchCount_1t", "meanKernelNs_1t", "recordFor_1t", "readInto_1t"),
                stores("HINTMAP", "AGRONA"), true, false, "-Xmx1g", 0.5));
        jobs.add(new Job("query-handle", QueryBench.class, List.of("handleReadInto_1t", "handleIsHot_1t", "handleDispatchCount_1t"),
                stores("HINTMAP"), true, false, "-Xmx1g", 0.5));
        // headline: target 6
        jobs.add(new Job("iterate", IterateBench.class, List.of("visit"), stores("HINTMAP", "CONCURRENT"), true, false, "-Xmx2g", 2));
        // headline: target 5
        jobs.add(new Job("churn", ChurnBench.class, List.of("churn"),
                Map.of("store", of("HINTMAP", "REFERENCE", "CONCURRENT", "CHRONICLE"), "capacity", caps(churnCaps)),
                true, true, "-Xmx6g", 3));
        // Agrona's int-indexed buffers cannot hold 2^20 regions of 4 counters (AgronaStore.MAX_CAPACITY).
        jobs.add(new Job("churn-agrona", ChurnBench.class, List.of("churn"),
                Map.of("store", of("AGRONA"), "capacity", caps(agronaCaps)), true, true, "-Xmx2g", 2));
        // headline: target 7
        jobs.add(new Job("open", OpenBench.class, List.of("open"),
                Map.of("store", of("HINTMAP", "CHRONICLE"), "capacity", caps(openCaps)), true, false, "-Xmx4g", 4));
        // comparison tables, one fork
        jobs.add(new Job("record-others", RecordBench.class, List.of("existing_1t", "existing_2t"),
                stores("CONCURRENT", "REFERENCE", "CHRONICLE"), false, false, "-Xmx1g", 0.5));
        jobs.add(new Job("query-others", QueryBench.class, List.of("isHot_1t", "readInto_1t"),
                stores("CONCURRENT", "REFERENCE", "CHRONICLE"), false, false, "-Xmx1g", 0.5));
        jobs.add(new Job("query-2t", QueryBench.class, List.of("readInto_2t"),
                stores("HINTMAP", "AGRONA"), false, false, "-Xmx1g", 0.5));
        // CONCURRENT's iterate is its visit, measured above
        jobs.add(new Job("iterate-others", IterateBench.class, List.of("iterate"),
                stores("HINTMAP", "REFERENCE", "CHRONICLE", "AGRONA"), false, false, "-Xmx2g", 2));
        jobs.add(new Job("iterate-agrona", IterateBench.class, List.of("visit"), stores("AGRONA"), false, false, "-Xmx2g", 2));
        // step-by-step analysis (What bounds it), one fork
        jobs.add(new Job("steps", NamePathBench.class, List.of("scratchLookup", "encodeAndHash", "encodeColdName"),
                Map.of(), false, false, "-Xmx2g", 3));
        jobs.add(new Job("floor", FloorBench.class, List.of("lock_1t"), Map.of(), false, false, "-Xmx1g", 0.5));
        jobs.add(new Job("open-map", OpenBench.class, List.of("mapOnly"),
                Map.of("store", of("HINTMAP"), "capacity", caps(openCaps)), false, false, "-Xmx4g", 3));
        return jobs;
    }

    double estimateSeconds(Job job) {
        return job.runs() * settings(job).secondsPerRun(job.setupS());
    }

    /** Native runs and the simulator (Maven's compile comes on top), for the estimate only. */
    static final double FIXED_SECONDS = 25;

    String text() {
        StringBuilder sb = new StringBuilder("mode " + (quick ? "quick" : "full") + "\n");
        double total = FIXED_SECONDS;
        for (Job j : jobs()) {
            double s = estimateSeconds(j);
            total += s;
            sb.append(String.format(Locale.ROOT, "%-15s %-13s %-9s %2d runs  %-38s ~%4.0f s  %s%n", j.group(),
                    j.bench().getSimpleName(), j.headline() ? "headline" : "", j.runs(), settings(j).flags(), s,
                    String.join(",", j.methods())));
        }
        sb.append(String.format(Locale.ROOT, "estimated total (report step, quiet machine: %.1f s per fork + the job's setup beyond its iterations, %.0f s native + simulator): ~%.0f s%n",
                FORK_OVERHEAD_S, FIXED_SECONDS, total));
        return sb.toString();
    }
}
