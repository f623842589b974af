package dev.hintmap.bench;

import java.util.SplittableRandom;

/** Precomputed inputs shared by the benchmarks and the simulator: names, Zipf and uniform key streams, kernel times. */
final class Workload {
    private Workload() {}

    /** A realistic generated kernel name of 23 bytes. */
    static String name(int i) {
        return String.format("gemm_bf16_128x64_%06d", i);
    }

    /**
     * A kernel name of exactly {@code bytes} bytes (at least 40), as templated C++ kernels have them:
     * a CUTLASS-like head, the region number, then template arguments with spaces and punctuation.
     */
    static String longName(int i, int bytes) {
        StringBuilder b = new StringBuilder(String.format("void cutlass::Kernel2<gemm_%06d, cute::tuple<int, int>, ", i));
        String more = "cutlass::epilogue::collective::DefaultEpilogue<float, 8>, ";
        for (int n = 0; b.length() < bytes - 1; n++) {
            b.append(more.charAt(n % more.length()));
        }
        return b.append('>').toString();
    }

    static String[] names(int count) {
        String[] names = new String[count];
        for (int i = 0; i < count; i++) {
            names[i] = name(i);
        }
        return names;
    }

    /** Cumulative distribution of Zipf(s) over {@code n} ranks (rank 0 most popular). */
    static double[] zipfCdf(int n, double s) {
        double[] cdf = new double[n];
        double sum = 0;
        for (int i = 0; i < n; i++) {
            sum += 1.0 / Math.pow(i + 1, s);
            cdf[i] = sum;
        }
        for (int i = 0; i < n; i++) {
            cdf[i] /= sum;
        }
        return cdf;
    }

    static int sample(double[] cdf, SplittableRandom random) {
        double u = random.nextDouble();
        int lo = 0;
        int hi = cdf.length - 1;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (cdf[mid] < u) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** {@code length} Zipf(s)-distributed keys in [0, n); ranks are shuffled onto keys so key 0 is not special. */
    static int[] zipfKeys(int length, int n, double s, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        double[] cdf = zipfCdf(n, s);
        int[] permutation = permutation(n, new SplittableRandom(0x5eed));
        int[] keys = new int[length];
        for (int i = 0; i < length; i++) {
            keys[i] = permutation[sample(cdf, random)];
        }
        return keys;
    }

    static int[] uniformKeys(int length, int n, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        int[] keys = new int[length];
        for (int i = 0; i < length; i++) {
            keys[i] = random.nextInt(n);
        }
        return keys;
    }

    static int[] permutation(int n, SplittableRandom random) {
        int[] p = new int[n];
        for (int i = 0; i < n; i++) {
            p[i] = i;
        }
        for (int i = n - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = p[i];
            p[i] = p[j];
            p[j] = t;
        }
        return p;
    }

    /** Log-normal kernel times, median {@code medianNs}, sigma 1 (hm-bench's default distribution). */
    static long[] kernelNs(int length, long medianNs, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        long[] ns = new long[length];
        for (int i = 0; i < length; i++) {
            double g = gaussian(random);
            ns[i] = Math.max(1, (long) (medianNs * Math.exp(g)));
        }
        return ns;
    }

    private static double gaussian(SplittableRandom random) {
        double u1 = 1.0 - random.nextDouble();
        double u2 = random.nextDouble();
        return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
    }
}
