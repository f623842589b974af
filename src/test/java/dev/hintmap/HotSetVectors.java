package dev.hintmap;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The cases of {@code vectors/hot-set.txt} (docs/GUIDE.md, "The hot set by coverage"), which the
 * C unit tests read too; the file's header describes its lines.
 */
final class HotSetVectors {
    record Region(long count, long totalNs, String name) {
        /** The record of COUNT samples: COUNT-1 of floor(TOTAL/COUNT) ns, then the rest (as C records them). */
        RegionRecord record() {
            long each = totalNs / count;
            long last = totalNs - (count - 1) * each;
            return new RegionRecord(name, count, totalNs, last, 0);
        }
    }

    record Hot(long totalNs, double share, double cumulativeShare, String name) {}

    /** A question and its answer; the sums exact (they may pass 2^63-1: the file's header says how the APIs report them). */
    record Ask(String coverageText, long minDispatches, BigInteger totalNs, BigInteger neededNs, BigInteger coveredNs,
            int count, int read, int thin, BigInteger thinNs, boolean reached, List<Hot> hot) {
        double coverage() {
            return Double.parseDouble(coverageText);
        }
    }

    /** A sum as the APIs report it in a {@code long}: clamped to 2^63-1. */
    static long clamped(BigInteger sum) {
        return sum.min(BigInteger.valueOf(Long.MAX_VALUE)).longValueExact();
    }

    /**
     * {@code part / whole} as the rule computes a share: each exact integer rounded to the nearest
     * double ({@link BigInteger#doubleValue()}: an oracle independent of the library's own two-word
     * conversion), then divided; 0 when {@code whole} is 0.
     */
    static double share(BigInteger part, BigInteger whole) {
        return whole.signum() == 0 ? 0 : part.doubleValue() / whole.doubleValue();
    }

    record Refusal(String coverageText, long minDispatches) {}

    record Case(String name, int capacity, int maxNameBytes, List<Region> regions, List<Ask> asks,
            List<Refusal> refusals) {}

    private HotSetVectors() {}

    static List<Case> load() {
        String text;
        try (InputStream in = HotSetVectors.class.getResourceAsStream("/vectors/hot-set.txt")) {
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<Case> cases = new ArrayList<>();
        String caseName = null;
        int capacity = 0;
        int maxNameBytes = 0;
        List<Region> regions = null;
        List<Ask> asks = null;
        List<Refusal> refusals = null;
        String[] ask = null;
        String[] expect = null;
        List<Hot> hot = null;
        for (String line : (text + "\ncase\tend\t0\t1").split("\n")) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String[] f = line.split("\t", -1);
            boolean closesAsk = f[0].equals("ask") || f[0].equals("case") || f[0].equals("refuse");
            if (closesAsk && ask != null) {
                asks.add(ask(ask, expect, hot));
                ask = null;
            }
            switch (f[0]) {
                case "case" -> {
                    if (caseName != null) {
                        cases.add(new Case(caseName, capacity, maxNameBytes, regions, asks, refusals));
                    }
                    caseName = f[1];
                    capacity = Integer.parseInt(f[2]);
                    maxNameBytes = Integer.parseInt(f[3]);
                    regions = new ArrayList<>();
                    asks = new ArrayList<>();
                    refusals = new ArrayList<>();
                }
                case "region" -> regions.add(new Region(Long.parseLong(f[1]), Long.parseLong(f[2]), f[3]));
                case "ask" -> {
                    ask = f;
                    expect = null;
                    hot = new ArrayList<>();
                }
                case "expect" -> expect = f;
                case "hot" -> hot.add(new Hot(Long.parseLong(f[1]), Double.parseDouble(f[2]), Double.parseDouble(f[3]), f[4]));
                case "refuse" -> refusals.add(new Refusal(f[1], Long.parseLong(f[2])));
                default -> throw new IllegalStateException("unknown line in hot-set.txt: " + line);
            }
        }
        return cases;
    }

    private static Ask ask(String[] a, String[] e, List<Hot> hot) {
        if (e == null || e.length != 9) {
            throw new IllegalStateException("ask " + String.join(" ", a) + " has no full expect line");
        }
        return new Ask(a[1], Long.parseLong(a[2]), new BigInteger(e[1]), new BigInteger(e[2]), new BigInteger(e[3]),
                Integer.parseInt(e[4]), Integer.parseInt(e[5]), Integer.parseInt(e[6]), new BigInteger(e[7]),
                e[8].equals("reached"), List.copyOf(hot));
    }
}
