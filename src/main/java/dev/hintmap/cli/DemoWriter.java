package dev.hintmap.cli;

import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.Region;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.locks.LockSupport;

/**
 * The demo's Java writer process: a "runtime" whose dispatch threads record kernel samples into the
 * shared file at a paced rate, half of them through {@link Region} handles, half by name.
 * Arguments: FILE SECONDS THREADS RATE_PER_THREAD [PREFIX REGIONS MEAN_NS]: the kernels of a
 * transformer step, or, with the last three (a stand-in for a native writer where there is none),
 * REGIONS kernels named PREFIX00000, PREFIX00001, ... whose mean kernel times spread around MEAN_NS.
 * Prints one summary line when done.
 */
public final class DemoWriter {
    /** Kernel generators of a transformer inference step and their typical kernel times. */
    static final String[] KERNELS = {
        "attention_softmax_f32", "flash_attn_fwd_bf16", "layernorm_fused", "rotary_embed_bf16",
        "embedding_gather", "kv_cache_append", "sampling_topk", "elementwise_gelu",
    };
    static final long[] MEAN_NS = {180_000, 420_000, 60_000, 25_000, 35_000, 12_000, 140_000, 3_000};

    private DemoWriter() {}

    public static void main(String[] args) throws Exception {
        Path file = Path.of(args[0]);
        double seconds = Double.parseDouble(args[1]);
        int threads = Integer.parseInt(args[2]);
        double rate = Double.parseDouble(args[3]);
        String[] kernels = KERNELS;
        long[] meanNs = MEAN_NS;
        if (args.length == 7) {
            int regions = Integer.parseInt(args[5]);
            long mean = Long.parseLong(args[6]);
            kernels = new String[regions];
            meanNs = new long[regions];
            for (int i = 0; i < regions; i++) {
                kernels[i] = String.format("%s%05d", args[4], i);
                meanNs[i] = mean * (1 + i % 5) / 3; // a fifth of them at 5/3 of the mean, a fifth at 1/3, ...
            }
        }
        String[] names = kernels;
        long[] means = meanNs;
        long[] counts = new long[threads];
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults())) {
            Thread[] workers = new Thread[threads];
            long end = System.nanoTime() + (long) (seconds * 1e9);
            for (int t = 0; t < threads; t++) {
                int id = t;
                workers[t] = Thread.ofPlatform().name("dispatch-" + t)
                        .start(() -> counts[id] = dispatch(store, names, means, id, end, rate));
            }
            for (Thread w : workers) {
                w.join();
            }
        }
        long total = 0;
        for (long c : counts) {
            total += c;
        }
        System.out.printf("java writer  pid %d: %,d dispatches from %d threads in %.0f s%n",
                ProcessHandle.current().pid(), total, threads, seconds);
    }

    private static long dispatch(HintStore store, String[] kernels, long[] meanNs, long seed, long end, double rate) {
        SplittableRandom random = new SplittableRandom(seed);
        Region[] regions = new Region[kernels.length];
        for (int i = 0; i < kernels.length; i++) {
            regions[i] = store.region(kernels[i]);
        }
        long start = System.nanoTime();
        long n = 0;
        while (true) {
            long due = start + (long) (n * 1e9 / rate);
            long now = System.nanoTime();
            if (due >= end || now >= end) {
                return n;
            }
            if (now < due) {
                LockSupport.parkNanos(due - now);
            }
            int i = random.nextInt(kernels.length);
            long ns = meanNs[i] / 2 + random.nextLong(meanNs[i]); // uniform around the mean
            long bytes = 4096L * (1 + random.nextInt(256));
            if ((n & 1) == 0) {
                regions[i].record(ns, bytes);
            } else {
                store.record(kernels[i], ns, bytes);
            }
            n++;
        }
    }
}
