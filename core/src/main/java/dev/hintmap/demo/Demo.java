package dev.hintmap.demo;

import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.Region;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * The README's demo: several dispatch threads record synthetic kernel dispatches into a hint
 * file, then a second JVM ({@link DemoReader}) opens the same file read-only and prints the hot
 * regions it reads in place, while this process still has the file mapped.
 */
public final class Demo {
    private static final int THREADS = 4;
    private static final int DISPATCHES_PER_THREAD = 5_000;
    private static final String[] KERNELS = {
        "gemm_bf16_128x128x64", "conv2d_fwd_nhwc_3x3", "attention_softmax_f32", "layernorm_fused",
        "embedding_gather", "reduce_sum_f32", "transpose_021", "elementwise_gelu",
    };
    /** Typical kernel time per generator: the first three are hot with the default 100 µs threshold. */
    private static final long[] MEAN_NS = {420_000, 180_000, 125_000, 60_000, 35_000, 20_000, 8_000, 3_000};

    private Demo() {}

    public static void main(String[] args) throws Exception {
        Path file = Path.of(args.length > 0 ? args[0] : "demo.hints").toAbsolutePath();
        Files.createDirectories(file.getParent());
        Files.deleteIfExists(file);
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults())) {
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                long seed = t;
                threads.add(Thread.ofPlatform().name("dispatch-" + t).start(() -> dispatch(store, seed)));
            }
            for (Thread thread : threads) {
                thread.join();
            }
            System.out.printf("writer  pid %d recorded %,d dispatches from %d threads into %s (%d regions)%n",
                    ProcessHandle.current().pid(), (long) THREADS * DISPATCHES_PER_THREAD, THREADS, file, store.size());
            System.out.flush();
            int exit = runReader(file);
            if (exit != 0) {
                throw new IllegalStateException("reader process exited with " + exit);
            }
        }
    }

    private static void dispatch(HintStore store, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        Region[] regions = new Region[KERNELS.length];
        for (int i = 0; i < KERNELS.length; i++) {
            regions[i] = store.region(KERNELS[i]);
        }
        for (int n = 0; n < DISPATCHES_PER_THREAD; n++) {
            int i = random.nextInt(KERNELS.length);
            long ns = MEAN_NS[i] / 2 + random.nextLong(MEAN_NS[i]); // uniform around the mean
            long bytes = 4096L * (1 + random.nextInt(256));
            if (n % 2 == 0) {
                regions[i].record(ns, bytes);
            } else {
                store.record(KERNELS[i], ns, bytes);
            }
        }
    }

    private static int runReader(Path file) throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        Process reader = new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"), DemoReader.class.getName(), file.toString())
                .inheritIO().start();
        if (!reader.waitFor(60, TimeUnit.SECONDS)) {
            reader.destroyForcibly();
            throw new IllegalStateException("reader process did not finish within 60 s");
        }
        return reader.exitValue();
    }
}
