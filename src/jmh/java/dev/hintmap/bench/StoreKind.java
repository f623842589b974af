package dev.hintmap.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

/** The stores of the suite; the benchmarks' {@code @Param store} ranges over (subsets of) these. */
public enum StoreKind {
    /** hintmap on a mapped file, recording by name (hash, index probe, name compare, slot lock). */
    HINTMAP("hintmap, by name"),
    /** hintmap on a mapped file, recording through pre-resolved {@code Region} handles. */
    HINTMAP_REGION("hintmap, Region handle"),
    /** The design hintmap replaces: one mutex, HashMap, ArrayDeque recency list with a linear-scan bump. */
    REFERENCE("reference design (mutex + HashMap + LRU deque)"),
    /** ConcurrentHashMap with LongAdder/AtomicLong fields: on-heap, not shared, not persisted. */
    CONCURRENT("ConcurrentHashMap + LongAdder (on-heap)"),
    /** Chronicle Map persisted to a file. */
    CHRONICLE("Chronicle Map (persisted)"),
    /** Agrona CountersManager on a mapped file (Aeron-style counters). */
    AGRONA("Agrona counters (mapped)");

    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    public final String label;

    StoreKind(String label) {
        this.label = label;
    }

    /** Whether the store is one of hintmap's two access paths (the baseline of every ratio). */
    public boolean isHintmap() {
        return this == HINTMAP || this == HINTMAP_REGION;
    }

    /** Where benchmark files go: {@code -Dhintmap.bench.dir}, else /dev/shm, else target/bench-files. */
    static Path directory() {
        String configured = System.getProperty("hintmap.bench.dir");
        Path dir;
        if (configured != null) {
            dir = Path.of(configured);
        } else if (Files.isDirectory(Path.of("/dev/shm"))) {
            dir = Path.of("/dev/shm/hintmap-bench");
        } else {
            dir = Path.of("target/bench-files");
        }
        try {
            return Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A fresh, empty store of this kind holding at most {@code capacity} regions; files are deleted on close. */
    BenchStore create(int capacity) {
        String stem = "bench-" + ProcessHandle.current().pid() + "-" + SEQUENCE.incrementAndGet() + "-" + name().toLowerCase();
        Path dir = directory();
        return switch (this) {
            case HINTMAP -> new HintmapStore(dir.resolve(stem + ".hints"), capacity, false);
            case HINTMAP_REGION -> new HintmapStore(dir.resolve(stem + ".hints"), capacity, true);
            case REFERENCE -> new ReferenceStore(capacity);
            case CONCURRENT -> new ConcurrentStore(capacity);
            case CHRONICLE -> new ChronicleStore(dir.resolve(stem + ".cmap"), capacity);
            case AGRONA -> new AgronaStore(dir, stem, capacity);
        };
    }
}
