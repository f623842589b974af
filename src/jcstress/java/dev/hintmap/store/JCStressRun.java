package dev.hintmap.store;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.openjdk.jcstress.JCStress;
import org.openjdk.jcstress.Options;
import org.openjdk.jcstress.infra.Status;
import org.openjdk.jcstress.infra.collectors.DiskReadCollector;
import org.openjdk.jcstress.infra.collectors.InProcessCollector;
import org.openjdk.jcstress.infra.collectors.TestResult;
import org.openjdk.jcstress.infra.grading.GradingResult;
import org.openjdk.jcstress.infra.grading.TestGrading;

/**
 * Runs jcstress ({@code org.openjdk.jcstress.Main}'s options) and exits non-zero when any test
 * saw a FORBIDDEN or unknown outcome or did not run normally (jcstress 0.16's own {@code Main}
 * ends with an exception then, but also exits 0 for a run in which no test ran). Also prints one line per
 * test and outcome, summed over all JVM configurations, for docs/archive/RELIABILITY.md.
 *
 * <p>Run: {@code ./mvnw test-compile exec:exec@jcstress} (short), add {@code -Pstress-long} for the
 * release check; inside {@code ./mvnw verify} the short mode runs after the unit tests.
 */
public final class JCStressRun {
    private JCStressRun() {}

    public static void main(String[] args) throws Exception {
        long start = System.nanoTime();
        Options options = new Options(args);
        if (!options.parse()) {
            System.exit(2);
        }
        List<String> failures = new ArrayList<>();
        try {
            new JCStress(options).run();
        } catch (AssertionError e) { // jcstress's own verdict on failed tests; the details follow below
            failures.add("jcstress: " + e.getMessage().strip().lines().findFirst().orElse(""));
        }
        if (options.shouldList()) {
            return;
        }
        InProcessCollector collector = new InProcessCollector();
        DiskReadCollector reader = new DiskReadCollector(options.getResultFile(), collector);
        reader.dump();
        reader.close();

        // test name -> (expect + description) -> [count, states seen, outcome ids declared and not seen]
        Map<String, Map<String, Object[]>> outcomes = new TreeMap<>();
        for (TestResult result : collector.getTestResults()) {
            TestGrading grading = result.grading();
            if (result.status() != Status.NORMAL) {
                failures.add(result.getName() + " " + describe(result) + ": " + result.status() + " "
                        + result.getMessages());
            } else if (!grading.isPassed) {
                failures.add(result.getName() + " " + describe(result) + ": " + grading.failureMessages);
            }
            Map<String, Object[]> byOutcome = outcomes.computeIfAbsent(result.getName(), n -> new TreeMap<>());
            for (GradingResult g : grading.gradingResults.values()) {
                Object[] row = byOutcome.computeIfAbsent(g.expect + "  " + g.description,
                        k -> new Object[] {0L, new TreeSet<String>(), new TreeSet<String>()});
                row[0] = (Long) row[0] + g.count;
                ids(row, g.count > 0 ? 1 : 2).add(g.id); // states seen | outcomes declared but not seen
            }
        }
        System.out.println();
        System.out.println("hintmap jcstress summary (samples summed over all JVM configurations):");
        for (Map.Entry<String, Map<String, Object[]>> test : outcomes.entrySet()) {
            System.out.println("  " + test.getKey());
            for (Map.Entry<String, Object[]> o : test.getValue().entrySet()) {
                Set<String> ids = ids(o.getValue(), ids(o.getValue(), 1).isEmpty() ? 2 : 1);
                String shown = ids.size() <= 3 ? String.join(" | ", ids)
                        : String.join(" | ", ids.stream().limit(3).toList()) + " | ... (" + ids.size() + " states)";
                System.out.printf("    %12d  %s  [%s]%n", (Long) o.getValue()[0], o.getKey(), shown);
            }
        }
        System.out.printf("  %d results from %d tests, %d failed, %.0f s%n", collector.getTestResults().size(),
                outcomes.size(), failures.size(), (System.nanoTime() - start) / 1e9);
        if (collector.getTestResults().isEmpty()) {
            failures.add("no jcstress results: no test matched or the run did not start");
        }
        if (!failures.isEmpty()) {
            System.out.println("JCSTRESS FAILED:");
            failures.forEach(f -> System.out.println("  " + f));
            System.exit(1);
        }
    }

    private static String describe(TestResult result) {
        var config = result.getConfig();
        return config == null ? "" : config.jvmArgs + " compile mode " + config.getCompileMode();
    }

    @SuppressWarnings("unchecked")
    private static Set<String> ids(Object[] row, int column) {
        return (Set<String>) row[column];
    }
}
