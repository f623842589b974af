package dev.hintmap.fuzz;

import dev.hintmap.HintFileException;
import dev.hintmap.HintFileException.Problem;
import dev.hintmap.HintFileInfo;
import dev.hintmap.HintFiles;
import dev.hintmap.HintSnapshot;
import dev.hintmap.HintStore;
import dev.hintmap.TestStores;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.RegionOrder;
import dev.hintmap.RegionRecord;
import dev.hintmap.VerifyReport;
import dev.hintmap.format.FileGeometry;
import dev.hintmap.format.Hm64;
import dev.hintmap.format.Layouts;
import dev.hintmap.store.TestHooks;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The harness shared by the jqwik properties ({@link MutatedFileProperties}) and the Jazzer fuzz
 * test ({@link MutatedFileFuzzTest}): valid hint files of several shapes, structured mutations of
 * them, and {@link #exercise} which opens the result read-only and read-write and runs every
 * query, asserting only documented outcomes (docs/FORMAT.md §5, §7.2.1, §9).
 *
 * <p>A mutation names an area of the file (immutable header, coordination words, writer table,
 * index, slots) and a boundary value (0, 1, -1, capacity, capacity ± 1, max_name_bytes + 1,
 * 2^63 - 1, -2^63, owner- and index-entry-shaped words, random), or sets only the low 32 bits
 * of an 8-byte word to such a value (an index entry keeps its hash tag but names another slot,
 * an owner word keeps its generation but names another entry), or flips a bit anywhere, or
 * truncates or extends the file. With {@code fixChecksum} the header checksum is recomputed
 * afterwards, so that mutations of the immutable header reach the range checks behind it.
 */
public final class FileFuzzing {
    private FileFuzzing() {}

    /** Per-try limit: far above any real run (milliseconds), so only a hang trips it. */
    static final long TRY_TIMEOUT_SECONDS = 60;
    /** Lock waits for live holders are shortened in the harness (FORMAT.md §6.2 give up). */
    static final long LOCK_WAIT_NANOS = 20_000_000L;

    /** The valid files mutations start from. */
    public enum Shape {
        /** Capacity 16, no region. */
        EMPTY(16, 64),
        /** Capacity 16, ten regions (ASCII and multi-byte names), several samples each. */
        POPULATED(16, 64),
        /** Capacity 0: a valid file in which nothing is recorded. */
        CAPACITY_0(0, 64),
        /** Capacity 1 after evictions. */
        CAPACITY_1(1, 64),
        /** Capacity 4, the smallest name limit (33: the same slot size as 8 before format version 3), 20 names recorded: CLOCK evictions. */
        EVICTING(4, 33),
        /** Capacity 8 with a structural change left half done by a dead writer (§8). */
        CRASHED(8, 64),
        /** Capacity 8 with a slot lock held by a live process (pid 1): writers give up (§6.2). */
        LIVE_LOCK(8, 64),
        /** Capacity 4, names up to 1024 bytes. */
        LONG_NAMES(4, 1024);

        final int capacity;
        final int maxNameBytes;

        Shape(int capacity, int maxNameBytes) {
            this.capacity = capacity;
            this.maxNameBytes = maxNameBytes;
        }

        FileGeometry geometry() {
            return new FileGeometry(capacity, maxNameBytes);
        }
    }

    /** What a mutation does. */
    public enum Kind { FLIP_BIT, SET_FIELD, TRUNCATE, EXTEND, SET_LOW_HALF }

    /**
     * One mutation. {@code target} picks the area and the element in it, {@code value} the
     * boundary value (or the truncation length, or for a bit flip whether to stay in the first
     * pages), {@code random} supplies the rest.
     */
    public record Mutation(Kind kind, int target, int value, long random) {}

    // ------------------------------------------------------------------ valid files

    private static final Map<Shape, byte[]> FILES = new EnumMap<>(Shape.class);

    /** Names each shape records (the harness also queries the names it finds). */
    static List<String> names(Shape shape) {
        return switch (shape) {
            case EMPTY, CAPACITY_0 -> List.of("gemm", "conv");
            case POPULATED, CRASHED, LIVE_LOCK -> List.of("gemm_bf16", "conv2d", "attn", "ß-löss", "日本語", "a",
                    "softmax", "layernorm", "x".repeat(40), "🙂");
            case CAPACITY_1 -> List.of("first", "second", "third");
            case EVICTING -> {
                List<String> n = new ArrayList<>();
                for (int i = 0; i < 20; i++) {
                    n.add("k" + i);
                }
                yield n;
            }
            case LONG_NAMES -> List.of("L".repeat(1024), "é".repeat(512), "short", "M".repeat(1000));
        };
    }

    /** The valid file of {@code shape} (built once per JVM). */
    static synchronized byte[] validFile(Shape shape) throws IOException {
        byte[] content = FILES.get(shape);
        if (content == null) {
            content = build(shape);
            FILES.put(shape, content);
        }
        return content;
    }

    private static byte[] build(Shape shape) throws IOException {
        Path dir = Files.createTempDirectory("hintmap-fuzz-shape");
        Path file = dir.resolve("shape.hints");
        try {
            try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().capacity(shape.capacity)
                    .maxNameBytes(shape.maxNameBytes))) {
                List<String> names = names(shape);
                for (int round = 0; round < 3; round++) {
                    for (int i = 0; i < names.size(); i++) {
                        store.record(names.get(i), 1_000L * (i + 1) + round, 64L * i);
                    }
                }
                if (shape == Shape.EVICTING || shape == Shape.CAPACITY_1) {
                    store.record(names.get(0), 5, 5); // a referenced survivor among evictions
                }
            }
            byte[] content = Files.readAllBytes(file);
            FileGeometry g = shape.geometry();
            ByteBuffer b = ByteBuffer.wrap(content).order(ByteOrder.LITTLE_ENDIAN);
            if (shape == Shape.CRASHED) {
                long deadToken = ((1L << 22) - 1) << 42 | 12_345; // pid 4194303: not running here
                plantWriter(b, g, 5, deadToken, 1);
                long owner = TestHooks.ownerWord(5, 1);
                b.putLong((int) Layouts.HDR_STRUCT_LOCK, owner);
                b.putLong((int) Layouts.HDR_JOURNAL_SLOT, 2);
                b.putLong((int) Layouts.HDR_INDEX_SEQ, b.getLong((int) Layouts.HDR_INDEX_SEQ) | 1);
                int slot1 = (int) (g.slotsOffset() + g.slotBytes());
                b.putLong(slot1 + (int) Layouts.SLOT_GEN, b.getLong(slot1 + (int) Layouts.SLOT_GEN) | 1);
                b.putLong(slot1 + (int) Layouts.SLOT_LOCK, owner);
                b.putLong((int) g.slotsOffset() + (int) Layouts.SLOT_LOCK, owner);
            } else if (shape == Shape.LIVE_LOCK) {
                plantWriter(b, g, 6, TestHooks.currentToken(), 1); // this JVM: alive wherever the harness runs
                int slot2 = (int) (g.slotsOffset() + 2L * g.slotBytes());
                b.putLong(slot2 + (int) Layouts.SLOT_LOCK, TestHooks.ownerWord(6, 1));
            }
            return content;
        } finally {
            Files.deleteIfExists(file);
            Files.deleteIfExists(dir);
        }
    }

    private static void plantWriter(ByteBuffer b, FileGeometry g, int index, long token, long generation) {
        int entry = (int) (g.writerTableOffset() + Layouts.WRITER_ENTRY.byteSize() * index);
        b.putLong(entry + (int) Layouts.WRITER_TOKEN, token);
        b.putLong(entry + (int) Layouts.WRITER_GENERATION, generation);
    }

    // ------------------------------------------------------------------ mutations

    private static final long[] HEADER_FIELDS_8 = {
        Layouts.HDR_MAGIC, Layouts.HDR_LAYOUT_FINGERPRINT, Layouts.HDR_HOT_THRESHOLD_NS, Layouts.HDR_CREATED_EPOCH_MS,
        Layouts.HDR_WRITER_TABLE_OFFSET, Layouts.HDR_INDEX_OFFSET, Layouts.HDR_SLOTS_OFFSET, Layouts.HDR_FILE_BYTES, Layouts.HDR_HEADER_CHECKSUM,
    };
    private static final long[] HEADER_FIELDS_4 = {
        Layouts.HDR_FORMAT_VERSION, Layouts.HDR_HEADER_BYTES, Layouts.HDR_CAPACITY, Layouts.HDR_MAX_NAME_BYTES, Layouts.HDR_SLOT_BYTES,
        Layouts.HDR_INDEX_ENTRIES, Layouts.HDR_MAX_PROBE, Layouts.HDR_WRITER_ENTRIES,
    };
    private static final long[] COORDINATION = {
        Layouts.HDR_STRUCT_LOCK, Layouts.HDR_JOURNAL_SLOT, Layouts.HDR_INDEX_SEQ, Layouts.HDR_CLOCK_HAND, Layouts.HDR_LIVE_COUNT,
        Layouts.HDR_HIGH_WATER, Layouts.HDR_EVICTIONS, Layouts.HDR_RECOVERIES, Layouts.HDR_DROPPED_INSERTS, Layouts.HDR_STOLEN_LOCKS,
    };
    private static final long[] SLOT_FIELDS_8 = {
        Layouts.SLOT_LOCK, Layouts.SLOT_SEQ, Layouts.SLOT_GEN, Layouts.SLOT_HASH,
        Layouts.SLOT_COPIES + Layouts.REC_DISPATCH_COUNT, Layouts.SLOT_COPIES + Layouts.REC_KERNEL_NS_TOTAL,
        Layouts.SLOT_COPIES + Layouts.REC_KERNEL_NS_MAX, Layouts.SLOT_COPIES + Layouts.REC_BYTES_TOTAL,
        Layouts.SLOT_COPIES + Layouts.RECORD_COPY_BYTES + Layouts.REC_DISPATCH_COUNT,
        Layouts.SLOT_COPIES + Layouts.RECORD_COPY_BYTES + Layouts.REC_KERNEL_NS_MAX,
        Layouts.SLOT_NAME, Layouts.SLOT_NAME + 8,
    };
    private static final long[] SLOT_FIELDS_4 = {Layouts.SLOT_NAME_LEN};

    /** Applies {@code mutations} to a copy of {@code valid}, a file of geometry {@code g}. */
    static byte[] mutate(byte[] valid, FileGeometry g, List<Mutation> mutations, boolean fixChecksum) {
        byte[] content = valid.clone();
        for (Mutation m : mutations) {
            content = apply(content, g, m);
        }
        if (fixChecksum && content.length >= Layouts.HDR_HEADER_CHECKSUM + 8) {
            int from = (int) Layouts.HDR_FORMAT_VERSION;
            int length = (int) (Layouts.HDR_HEADER_CHECKSUM - from);
            long sum = Hm64.ofBytes(Arrays.copyOfRange(content, from, from + length), length);
            ByteBuffer.wrap(content).order(ByteOrder.LITTLE_ENDIAN).putLong((int) Layouts.HDR_HEADER_CHECKSUM, sum);
        }
        return content;
    }

    private static byte[] apply(byte[] content, FileGeometry g, Mutation m) {
        int length = content.length;
        switch (m.kind()) {
            case FLIP_BIT -> {
                if (length == 0) {
                    return content;
                }
                // half of the flips land in the header, writer table and index pages
                int span = (m.value() & 1) == 0 ? Math.min(length, (int) g.slotsOffset()) : length;
                long bit = Math.floorMod(m.random(), 8L * span);
                content[(int) (bit >>> 3)] ^= (byte) (1 << (bit & 7));
                return content;
            }
            case TRUNCATE -> {
                int newLength = switch (Math.floorMod(m.value(), 7)) {
                    case 0 -> 0;
                    case 1 -> 4095;
                    case 2 -> 4096;
                    case 3 -> (int) Math.min(length, g.slotsOffset());
                    case 4 -> Math.max(0, length - 4096);
                    case 5 -> Math.max(0, length - 1);
                    default -> (int) Math.floorMod(m.random(), (long) Math.max(1, length));
                };
                return Arrays.copyOf(content, Math.min(length, newLength));
            }
            case EXTEND -> {
                return Arrays.copyOf(content, length + ((m.value() & 1) == 0 ? 1 : 4096));
            }
            case SET_FIELD, SET_LOW_HALF -> {
                int target = m.target();
                int element = target >>> 3 & 0x0FFF_FFFF;
                long offset;
                boolean wide;
                switch (Math.floorMod(target, 5)) {
                    case 0 -> {
                        int i = element % (HEADER_FIELDS_8.length + HEADER_FIELDS_4.length);
                        wide = i < HEADER_FIELDS_8.length;
                        offset = wide ? HEADER_FIELDS_8[i] : HEADER_FIELDS_4[i - HEADER_FIELDS_8.length];
                    }
                    case 1 -> {
                        wide = true;
                        offset = COORDINATION[element % COORDINATION.length];
                    }
                    case 2 -> {
                        wide = true;
                        int entry = element % 8; // the first entries are the ones writers use
                        offset = g.writerTableOffset() + Layouts.WRITER_ENTRY.byteSize() * (entry >>> 1)
                                + ((entry & 1) == 0 ? Layouts.WRITER_TOKEN : Layouts.WRITER_GENERATION);
                    }
                    case 3 -> {
                        wide = true;
                        offset = g.indexOffset() + 8L * (element % g.indexEntries());
                    }
                    default -> {
                        if (g.capacity() == 0) {
                            return content;
                        }
                        int fields = SLOT_FIELDS_8.length + SLOT_FIELDS_4.length;
                        int k = (element / fields) % g.capacity();
                        int f = element % fields;
                        wide = f < SLOT_FIELDS_8.length;
                        offset = g.slotsOffset() + (long) k * g.slotBytes()
                                + (wide ? SLOT_FIELDS_8[f] : SLOT_FIELDS_4[f - SLOT_FIELDS_8.length]);
                    }
                }
                if (offset + (wide ? 8 : 4) > length) {
                    return content;
                }
                long v = value(g, m);
                ByteBuffer b = ByteBuffer.wrap(content).order(ByteOrder.LITTLE_ENDIAN);
                if (m.kind() == Kind.SET_LOW_HALF) {
                    b.putInt((int) offset, (int) v); // little-endian: the low half comes first
                } else if (wide) {
                    b.putLong((int) offset, v);
                } else {
                    b.putInt((int) offset, (int) v);
                }
                return content;
            }
            default -> throw new AssertionError(m);
        }
    }

    private static long value(FileGeometry g, Mutation m) {
        long r = m.random();
        return switch (Math.floorMod(m.value(), 16)) {
            case 0 -> 0;
            case 1 -> 1;
            case 2 -> -1;
            case 3 -> g.capacity();
            case 4 -> g.capacity() + 1L;
            case 5 -> g.capacity() - 1L;
            case 6 -> g.maxNameBytes() + 1L;
            case 7 -> g.maxNameBytes();
            case 8 -> Long.MAX_VALUE;
            case 9 -> Long.MIN_VALUE;
            case 10 -> TestHooks.ownerWord((int) (r & 3), (r >>> 2) & 3); // owner words of the first entries
            case 11 -> (r >>> 32) << 32 | ((r & 0xFFFF) % (g.capacity() + 2L)); // index-entry shaped
            case 12 -> 0x8000_0000L;
            case 13 -> r & 0xFFFF_FFFFL;
            case 14 -> 2L * g.capacity();
            default -> r;
        };
    }

    // ------------------------------------------------------------------ the harness

    /** The problems a damaged file may be reported with on open (§9). */
    static final Set<Problem> VALIDATION_PROBLEMS = EnumSet.of(Problem.TRUNCATED, Problem.UNFINISHED,
            Problem.NOT_A_HINT_FILE, Problem.UNSUPPORTED_VERSION, Problem.CORRUPT_HEADER, Problem.LAYOUT_MISMATCH,
            Problem.INCONSISTENT);

    private static ExecutorService executor = newExecutor();

    private static ExecutorService newExecutor() {
        return Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "fuzz-harness");
            t.setDaemon(true);
            return t;
        });
    }

    /** What one try did, for statistics. */
    public record Outcome(Problem readOnlyOpen, Problem readWriteOpen) {
        boolean opened() {
            return readWriteOpen == null;
        }
    }

    /** Mutates the file of {@code shape} and exercises it (see the class comment); fails on any undocumented outcome. */
    public static Outcome run(Shape shape, List<Mutation> mutations, boolean fixChecksum) throws Exception {
        byte[] content = mutate(validFile(shape), shape.geometry(), mutations, fixChecksum);
        Path dir = Files.createTempDirectory("hintmap-fuzz");
        try {
            return exerciseWithTimeout(dir.resolve("fuzz.hints"), content, names(shape));
        } finally {
            try (var files = Files.list(dir)) {
                for (Path p : files.toList()) {
                    Files.deleteIfExists(p);
                }
            }
            Files.deleteIfExists(dir);
        }
    }

    private static synchronized Outcome exerciseWithTimeout(Path file, byte[] content, List<String> names) throws Exception {
        Future<Outcome> future = executor.submit(() -> exercise(file, content, names));
        try {
            return future.get(TRY_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            future.cancel(true);
            executor = newExecutor(); // the hung thread is abandoned
            throw new AssertionError("hang: a try took more than " + TRY_TIMEOUT_SECONDS + " s on " + file, e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception ex) {
                throw ex;
            }
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw e;
        }
    }

    static Outcome exercise(Path file, byte[] content, List<String> names) throws IOException {
        Files.write(file, content);
        VerifyReport before = verify(file, content);
        Problem readOnly = openAndQuery(file, HintStoreOptions.defaults().readOnly(true), names);
        check(headerOnly(before) == (readOnly != null),
                "verify reports just the header problem exactly when open refuses the file: " + before.findings());
        check(Arrays.equals(content, Files.readAllBytes(file)), "a read-only open never changes the file");
        Problem readWrite = openAndQuery(file, HintStoreOptions.defaults(), names);
        check((readOnly == null) == (readWrite == null),
                "read-only and read-write opens agree: " + readOnly + " vs " + readWrite);
        if (readWrite == null) {
            // what the writer left (recovered, recorded) is a valid file again
            check(openAndQuery(file, HintStoreOptions.defaults().readOnly(true), names) == null, "reopens after writing");
            VerifyReport after = verify(file, Files.readAllBytes(file));
            check(!before.ok() || after.ok(), "a sound file stays sound under writers: " + after.findings());
        } else {
            check(Arrays.equals(content, Files.readAllBytes(file)), "a file that fails to open is not modified");
        }
        return new Outcome(readOnly, readWrite);
    }

    /**
     * Runs the file verifier on whatever the file holds: it must return a report (never throw,
     * never hang: the harness's timeout covers it) and never change a byte.
     */
    static VerifyReport verify(Path file, byte[] content) throws IOException {
        VerifyReport report = HintFiles.verify(file, HintStoreOptions.defaults());
        check(Arrays.equals(content, Files.readAllBytes(file)), "verify never changes the file");
        check(report.ok() == report.errors().isEmpty(), "ok means no error");
        return report;
    }

    /** A report whose one problem is that of a file that cannot be opened (FORMAT.md §9); notes (§9.1) are not problems. */
    private static boolean headerOnly(VerifyReport report) {
        List<VerifyReport.Finding> errors = report.errors();
        return errors.size() == 1 && errors.get(0).area().equals("header")
                && errors.get(0).slot() == -1 && errors.get(0).field() != null
                && errors.get(0).message().contains(": ");
    }

    /** Opens {@code file} and runs every query; returns the open's problem, or null when it opened. */
    private static Problem openAndQuery(Path file, HintStoreOptions options, List<String> names) throws IOException {
        HintStore store;
        try {
            store = TestStores.open(file, options, LOCK_WAIT_NANOS);
        } catch (HintFileException e) {
            check(VALIDATION_PROBLEMS.contains(e.problem()), "open fails only with a validation problem: " + e);
            check(file.equals(e.file()) && e.getMessage().startsWith(file.toString()), "the message names the file: " + e);
            return e.problem();
        }
        try (store) {
            int capacity = store.capacity();
            int maxNameBytes = store.maxNameBytes();
            check(capacity >= 0 && capacity <= HintStoreOptions.MAX_CAPACITY, "capacity in range");
            Set<String> queried = new LinkedHashSet<>(names);
            queried.add("absent-" + capacity);
            List<RegionRecord> all = new ArrayList<>();
            store.snapshot().regions().forEach(all::add);
            check(all.size() <= capacity, "a snapshot lists at most capacity regions: " + all.size());
            for (RegionRecord r : all) {
                checkRecord(r);
                if (r.name().getBytes(StandardCharsets.UTF_8).length <= maxNameBytes && !r.name().isEmpty()) {
                    queried.add(r.name());
                }
            }
            query(store, queried, maxNameBytes);
            queryInBulk(store, all);
            if (!store.isReadOnly()) {
                int i = 0;
                for (String name : queried) {
                    if (fits(name, maxNameBytes)) {
                        store.record(name, 100 + i, i);
                        store.region(name).record(200 + i, i);
                    }
                    if (++i == 4) {
                        break;
                    }
                }
                String fresh = "new-" + capacity;
                if (fits(fresh, maxNameBytes)) {
                    store.record(fresh, 1, 1);
                }
                query(store, queried, maxNameBytes);
                store.snapshot().regions().forEach(FileFuzzing::checkRecord);
                for (RegionRecord r : store.hottest(3, RegionOrder.COUNT)) {
                    store.add(r); // merging a record the store itself returned is always valid
                }
                store.decay(0.5);
                store.snapshot().regions().forEach(FileFuzzing::checkRecord);
                store.flush();
            }
            try {
                store.checkFile();
            } catch (HintFileException e) {
                throw new AssertionError("checkFile on an unchanged file", e);
            }
        } catch (UncheckedIOException e) {
            throw new AssertionError("no query throws on a file that stays in place", e);
        }
        return null;
    }

    private static boolean fits(String name, int maxNameBytes) {
        return name.getBytes(StandardCharsets.UTF_8).length <= maxNameBytes;
    }

    private static void query(HintStore store, Set<String> names, int maxNameBytes) {
        int size = store.size();
        check(size >= 0 && size <= store.capacity(), "size in [0, capacity]: " + size);
        check(store.info().evictions() >= 0, "evictions >= 0");
        for (String name : names) {
            if (!fits(name, maxNameBytes)) {
                continue;
            }
            long count = store.dispatchCount(name);
            long mean = store.meanKernelNs(name);
            boolean hot = store.isHot(name);
            check(count >= 0 && mean >= 0, "count and mean >= 0");
            store.recordFor(name).ifPresent(r -> {
                checkRecord(r);
                check(r.name().equals(name), "recordFor returns the name asked for");
            });
            check(!hot || store.recordFor(name).isPresent() || store.dispatchCount(name) == 0, "hot only when present");
        }
    }

    /** The optimizer's bulk queries agree with iteration (as far as a file nobody else writes allows). */
    private static void queryInBulk(HintStore store, List<RegionRecord> all) {
        HintSnapshot snapshot = store.snapshot();
        check(snapshot.regions().equals(all), "snapshot holds what forEach saw");
        for (RegionOrder order : RegionOrder.values()) {
            List<RegionRecord> top = store.hottest(5, order);
            check(top.size() == Math.min(5, all.size()), "hottest returns min(k, regions)");
            top.forEach(FileFuzzing::checkRecord);
            check(top.equals(snapshot.hottest(5, order)) || hasDuplicateNames(all),
                    "hottest in place agrees with the snapshot's: " + top);
        }
        HintFileInfo info = store.info();
        check(info.regions() >= 0 && info.regions() <= info.capacity() && info.highWater() <= info.capacity(),
                "info counts in range: " + info);
        check(info.evictions() >= 0 && info.recoveries() >= 0 && info.droppedInserts() >= 0 && info.stolenLocks() >= 0,
                "info counters >= 0: " + info);
    }

    private static boolean hasDuplicateNames(List<RegionRecord> records) {
        return records.stream().map(RegionRecord::name).distinct().count() != records.size();
    }

    /** §7.2.1: the invariants of every record a reader returns. */
    static void checkRecord(RegionRecord r) {
        check(r.dispatchCount() > 0, "dispatch_count > 0: " + r);
        check(r.kernelNsTotal() >= 0 && r.kernelNsMax() >= 0 && r.bytesTotal() >= 0, "fields <= 2^63-1: " + r);
        check(r.kernelNsMax() <= r.kernelNsTotal(), "max <= total: " + r);
        check(r.kernelNsTotal() / r.dispatchCount() <= r.kernelNsMax(), "mean <= max: " + r);
    }

    private static void check(boolean condition, String what) {
        if (!condition) {
            throw new AssertionError(what);
        }
    }
}
