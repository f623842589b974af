package dev.hintmap;

import dev.hintmap.format.Layouts;
import dev.hintmap.store.EncodedNames;
import dev.hintmap.store.HintFileOpener;
import dev.hintmap.store.MappedStore;
import dev.hintmap.store.Snapshot;
import dev.hintmap.store.StoreEngine;
import dev.hintmap.store.StoreSettings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.function.Consumer;

/**
 * A bounded store of per-region performance hints, kept off-heap in one memory-mapped file that
 * several threads and processes (Java and C) record into and query at the same time.
 *
 * <p>Each region accumulates its dispatch count, total and maximum kernel time, and total bytes
 * touched; sums saturate at {@link Long#MAX_VALUE}. A region is <em>hot</em> when its mean
 * kernel time is at least the store's threshold. The store never holds more than
 * {@link #capacity()} regions: a new region at capacity evicts one chosen by CLOCK (second
 * chance). Hints are a prioritisation signal: an unknown region reads as zero/absent.
 *
 * <p>Thread-safe. Recording into an existing region takes only that region's slot lock (one
 * CAS) and allocates nothing; queries never wait for a lock. For the hottest path, resolve a
 * {@link Region} handle once and record through it. The file layout and protocol are specified
 * in {@code docs/FORMAT.md}.
 *
 * <p><b>A file that changes under the mapping</b> (FORMAT.md §5.1). No hintmap process resizes,
 * renames or deletes a published file, but another program may. When the file is truncated
 * while mapped, the next method that touches a missing page throws an
 * {@link UncheckedIOException} whose cause is a {@link HintFileException} with problem
 * {@code TRUNCATED}, and from then on every method but {@link #close()} throws the same (when
 * the JIT compiler inlined the faulting access, the JVM's {@link InternalError} may surface
 * instead; the JVM never crashes). A file grown, replaced or removed at its path is reported by
 * {@link #checkFile()}, which {@link #forEach} runs first.
 *
 * <p>Native access: opening a file makes a few POSIX calls through the FFM linker, so the JVM
 * needs {@code --enable-native-access=ALL-UNNAMED} (or {@code =dev.hintmap} on the module path).
 *
 * <pre>{@code
 * try (HintStore store = HintStore.open(Path.of("/tmp/app.hints"), HintStoreOptions.defaults())) {
 *     store.record("gemm_bf16_128x128", 250_000, 1 << 20);
 *     boolean hot = store.isHot("gemm_bf16_128x128");
 * }
 * }</pre>
 */
public final class HintStore implements AutoCloseable {
    private final MappedStore mapped;
    private final StoreEngine engine;
    private final long hotThresholdNs;
    private final int capacity;

    private HintStore(MappedStore mapped) {
        this.mapped = mapped;
        this.engine = mapped.engine();
        this.hotThresholdNs = mapped.header().hotThresholdNs();
        this.capacity = engine.capacity();
    }

    /**
     * Opens the hint file at {@code file}, creating it when it does not exist (unless read-only):
     * mode 0600, or 0660 with {@link HintStoreOptions#groupShared(boolean)}, exactly, whatever the
     * umask. The file is created complete under a temporary name and then linked into place, so
     * processes racing to create one path all open the same file, and none sees it half-written.
     * An existing file's layout wins over {@code options}; options set explicitly that contradict
     * it are an error. A symbolic link at the final path component and a file owned by another
     * user are refused unless the options allow them (see {@code docs/SECURITY.md}). Every check
     * is made before any slot is touched, and a file that fails one is not modified.
     *
     * @throws HintFileException when the file is not a valid hint file of this version and
     *     layout, contradicts explicit options, is refused (symbolic link, foreign owner, not a
     *     regular file), or cannot be created (no space), read or mapped; its
     *     {@link HintFileException#problem()} says which (a file missing when opened read-only is
     *     {@link HintFileException.Problem#MISSING})
     * @throws IOException for other I/O failures
     */
    public static HintStore open(Path file, HintStoreOptions options) throws IOException {
        return open(file, options, StoreSettings.DEFAULT);
    }

    /** {@link #open(Path, HintStoreOptions)} with per-store settings that only tests change. */
    static HintStore open(Path file, HintStoreOptions options, StoreSettings settings) throws IOException {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(options, "options");
        return new HintStore(HintFileOpener.open(file, options, settings));
    }

    /** An anonymous store, private to this process, with the same semantics as a file. */
    public static HintStore inMemory(HintStoreOptions options) {
        return inMemory(options, StoreSettings.DEFAULT);
    }

    /** {@link #inMemory(HintStoreOptions)} with per-store settings that only tests change. */
    static HintStore inMemory(HintStoreOptions options, StoreSettings settings) {
        Objects.requireNonNull(options, "options");
        if (options.readOnly()) {
            throw new IllegalArgumentException("an in-memory store cannot be read-only");
        }
        return new HintStore(MappedStore.inMemory(options, settings));
    }

    /**
     * Records one dispatch of the region {@code name}.
     *
     * @param name the region's name: non-empty, at most the store's maximum UTF-8
     *     length, encodable as UTF-8
     * @param kernelNs the dispatch's kernel time, {@code >= 0}
     * @param bytesTouched bytes the dispatch touched, {@code >= 0}
     * @throws IllegalArgumentException for a bad name or a negative value; nothing is recorded
     * @throws IllegalStateException if the store is closed or read-only (checked first)
     */
    public void record(String name, long kernelNs, long bytesTouched) {
        mapped.requireOpen();
        requireWritable();
        requireNonNegative(kernelNs, bytesTouched);
        EncodedNames.Scratch scratch = EncodedNames.scratch();
        EncodedNames.CachedName cached = EncodedNames.cached(scratch, name, engine.maxNameBytes());
        if (capacity == 0) {
            return;
        }
        try {
            EncodedNames.record(engine, cached, scratch.snapshot, kernelNs, bytesTouched);
        } catch (InternalError fault) {
            throw mapped.onFault(fault);
        } catch (IllegalStateException e) {
            throw mapped.onClosedRace(e); // closed by another thread meanwhile
        }
    }

    /**
     * A handle that records into the region {@code name} without hashing or looking it up
     * on each call. It follows the region through eviction and re-insertion.
     *
     * @throws IllegalArgumentException for a bad name
     * @throws IllegalStateException if the store is closed
     */
    public Region region(String name) {
        mapped.requireOpen();
        return new Region(this, EncodedNames.encodeCopy(name, engine.maxNameBytes()), name);
    }

    /** Whether the region's mean kernel time is at least {@link #hotThresholdNs()}; false when absent. */
    public boolean isHot(String name) {
        Snapshot s = find(name);
        return s != null && s.meanKernelNs() >= hotThresholdNs;
    }

    /** Dispatches recorded for the region; 0 when absent. */
    public long dispatchCount(String name) {
        Snapshot s = find(name);
        return s == null ? 0 : s.dispatchCount();
    }

    /** Mean kernel time of the region in ns, rounded down; 0 when absent. */
    public long meanKernelNs(String name) {
        Snapshot s = find(name);
        return s == null ? 0 : s.meanKernelNs();
    }

    /** A consistent copy of the region's record, or empty when the region is absent. */
    public Optional<RegionRecord> recordFor(String name) {
        Snapshot s = find(name);
        if (s == null) {
            return Optional.empty();
        }
        return Optional.of(new RegionRecord(name, s.dispatchCount(), s.kernelNsTotal(),
                s.kernelNsMax(), s.bytesTotal()));
    }

    /** Number of regions held, at most {@link #capacity()}. */
    public int size() {
        mapped.requireOpen();
        try {
            return engine.size();
        } catch (InternalError fault) {
            throw mapped.onFault(fault);
        } catch (IllegalStateException e) {
            throw mapped.onClosedRace(e); // closed by another thread meanwhile
        }
    }

    public boolean isEmpty() {
        return size() == 0;
    }

    /** Maximum number of regions; 0 when recording is disabled. */
    public int capacity() {
        mapped.requireOpen();
        return capacity;
    }

    /** Mean kernel time at or above which a region is hot. */
    public long hotThresholdNs() {
        mapped.requireOpen();
        return hotThresholdNs;
    }

    /** Longest region name accepted, in UTF-8 bytes. */
    public int maxNameBytes() {
        mapped.requireOpen();
        return engine.maxNameBytes();
    }

    /** Regions evicted from this store (file) since it was created. */
    public long evictions() {
        mapped.requireOpen();
        try {
            return engine.counter(Layouts.HDR_EVICTIONS);
        } catch (InternalError fault) {
            throw mapped.onFault(fault);
        } catch (IllegalStateException e) {
            throw mapped.onClosedRace(e); // closed by another thread meanwhile
        }
    }

    /**
     * Calls {@code action} with a consistent record of every region present, in slot order.
     * Regions inserted or evicted concurrently may or may not be seen. Runs {@link #checkFile()}
     * first.
     *
     * @throws UncheckedIOException with the {@link HintFileException} of {@link #checkFile()}
     *     when the file changed under the mapping
     */
    public void forEach(Consumer<RegionRecord> action) {
        Objects.requireNonNull(action, "action");
        requireSameFile();
        Snapshot s = new Snapshot();
        byte[] name = new byte[engine.maxNameBytes()];
        try {
            int slots = engine.highWater();
            for (int k = 0; k < slots; k++) {
                int length = engine.slotRead(k, name, s);
                if (length > 0) {
                    action.accept(record(name, length, s));
                }
            }
        } catch (InternalError fault) {
            throw mapped.onFault(fault);
        } catch (IllegalStateException e) {
            throw mapped.onClosedRace(e); // closed by another thread meanwhile
        }
    }

    /**
     * The {@code k} hottest regions by {@code order}, hottest first (equal keys by name): what an
     * optimizer asks before deciding where to spend its compile time. Reads the records in place
     * and copies only the candidates, so a small {@code k} over a large store allocates little.
     * Each record is consistent; regions inserted or evicted meanwhile may or may not be seen.
     *
     * @throws IllegalArgumentException if {@code k} is negative
     */
    public List<RegionRecord> hottest(int k, RegionOrder order) {
        requireCount(k);
        Objects.requireNonNull(order, "order");
        mapped.requireOpen();
        if (k == 0) {
            return List.of();
        }
        requireSameFile();
        Comparator<RegionRecord> hotter = order.comparator();
        PriorityQueue<RegionRecord> top = new PriorityQueue<>(Math.min(k, 1024), hotter.reversed()); // head: coldest kept
        Snapshot s = new Snapshot();
        byte[] name = new byte[engine.maxNameBytes()];
        try {
            int slots = engine.highWater();
            for (int slot = 0; slot < slots; slot++) {
                if (engine.slotRead(slot, null, s) == 0) {
                    continue;
                }
                if (top.size() == k
                        && order.key(s.dispatchCount(), s.kernelNsTotal(), s.kernelNsMax()) < order.key(top.peek())) {
                    continue; // colder than everything kept: its name is never decoded
                }
                int length = engine.slotRead(slot, name, s);
                if (length == 0) {
                    continue; // evicted since the first read
                }
                RegionRecord r = record(name, length, s);
                if (top.size() < k) {
                    top.add(r);
                } else if (hotter.compare(r, top.peek()) < 0) {
                    top.poll();
                    top.add(r);
                }
            }
        } catch (InternalError fault) {
            throw mapped.onFault(fault);
        } catch (IllegalStateException e) {
            throw mapped.onClosedRace(e); // closed by another thread meanwhile
        }
        List<RegionRecord> result = new ArrayList<>(top);
        result.sort(hotter);
        return List.copyOf(result);
    }

    /**
     * A copy of every region, for offline use after this store is closed (see {@link HintSnapshot}
     * for what "consistent" means there).
     */
    public HintSnapshot snapshot() {
        mapped.requireOpen();
        List<RegionRecord> regions = new ArrayList<>();
        forEach(regions::add);
        return new HintSnapshot(mapped.file(), Instant.now(), capacity, hotThresholdNs, regions);
    }

    /**
     * Adds a whole record to its region, as if its {@code dispatchCount} samples had been recorded
     * one by one: count, kernel total and bytes add with saturation, the maximum is the larger of
     * the two; an absent region is inserted with exactly this record (evicting one at capacity).
     * This is how profiles of several runs or machines are merged.
     *
     * @throws IllegalArgumentException for a bad name, or a record no sequence of samples can
     *     produce ({@code dispatchCount < 1}, {@code kernelNsMax > kernelNsTotal}, or a mean above
     *     the maximum); nothing is recorded
     * @throws IllegalStateException if the store is closed or read-only
     */
    public void add(RegionRecord record) {
        Objects.requireNonNull(record, "record");
        mapped.requireOpen();
        requireWritable();
        EncodedNames.Scratch scratch = EncodedNames.scratch();
        scratch.name.encodeChecked(record.name(), engine.maxNameBytes());
        if (record.dispatchCount() < 1 || record.kernelNsMax() > record.kernelNsTotal()
                || record.meanKernelNs() > record.kernelNsMax()) {
            throw new IllegalArgumentException("record " + record + " cannot come from any sequence of samples:"
                    + " it needs dispatchCount >= 1 and kernelNsTotal / dispatchCount <= kernelNsMax <= kernelNsTotal");
        }
        if (capacity == 0) {
            return;
        }
        try {
            engine.add(scratch.name, record.dispatchCount(), record.kernelNsTotal(), record.kernelNsMax(),
                    record.bytesTotal(), scratch.snapshot);
        } catch (InternalError fault) {
            throw mapped.onFault(fault);
        } catch (IllegalStateException e) {
            throw mapped.onClosedRace(e); // closed by another thread meanwhile
        }
    }

    /**
     * Ages the profile between runs: every region's dispatch count becomes
     * {@code max(1, round(count * factor))} and its kernel and byte totals shrink by the same ratio
     * (rounded down), so means are kept exactly while old data weighs less against new samples;
     * a maximum above the new kernel total is lowered to it. Each region is rewritten under its slot
     * lock while writers keep recording: readers see its old or its new record, never a mix.
     *
     * <p>A region whose slot lock a live process holds past the lock wait limit (FORMAT.md §6.2:
     * a writer stopped or stuck while recording) is not aged: it is named in
     * {@link DecayResult#skipped()} (its name read without the lock) and keeps its record, and the
     * other regions are aged as usual. A slot whose lock is held while it holds no region is not
     * reported.
     *
     * @param factor in {@code (0, 1]}
     * @return how many regions were aged and which LIVE regions were skipped
     * @throws IllegalArgumentException if {@code factor} is not in {@code (0, 1]}
     * @throws IllegalStateException if the store is closed or read-only
     */
    public DecayResult decay(double factor) {
        if (!(factor > 0 && factor <= 1)) {
            throw new IllegalArgumentException("decay factor " + factor + " is outside (0, 1]");
        }
        mapped.requireOpen();
        requireWritable();
        requireSameFile();
        int aged = 0;
        List<String> skipped = new ArrayList<>();
        Snapshot s = new Snapshot();
        byte[] name = new byte[engine.maxNameBytes()];
        try {
            int slots = engine.highWater();
            for (int slot = 0; slot < slots; slot++) {
                switch (engine.decaySlot(slot, factor)) {
                    case AGED -> aged++;
                    case NOT_LIVE -> { }
                    case LOCK_HELD -> {
                        int length = engine.slotRead(slot, name, s); // lock-free: the holder may never let go
                        if (length > 0) {
                            skipped.add(new String(name, 0, length, StandardCharsets.UTF_8));
                        }
                    }
                }
            }
        } catch (InternalError fault) {
            throw mapped.onFault(fault);
        } catch (IllegalStateException e) {
            throw mapped.onClosedRace(e); // closed by another thread meanwhile
        }
        return new DecayResult(aged, skipped);
    }

    /**
     * What the file's header and coordination words say: layout, version, creation time,
     * counters and the writer processes attached. For tools ({@code hintmap stat}).
     */
    public HintFileInfo info() {
        mapped.requireOpen();
        try {
            return mapped.info();
        } catch (InternalError fault) {
            throw mapped.onFault(fault);
        } catch (IllegalStateException e) {
            throw mapped.onClosedRace(e); // closed by another thread meanwhile
        }
    }

    /**
     * Whether the file is still the one this store mapped, at its size (FORMAT.md §5.1): two
     * system calls, {@code fstat} of the descriptor kept open since open and {@code lstat} of
     * the path. Does nothing for an in-memory store.
     *
     * @throws HintFileException {@code TRUNCATED} when the file shrank (the store is then
     *     unusable), {@code RESIZED} when it grew, {@code REPLACED} when another file or none is
     *     at the path now (this store still works, but on a file other processes no longer open),
     *     {@code IO} when the check itself failed
     * @throws IllegalStateException if the store is closed
     */
    public void checkFile() throws HintFileException {
        mapped.checkFile();
    }

    /**
     * Flushes recorded data to the file (msync), a checkpoint for the profile. Closing does not
     * require it: the mapping is shared, and the operating system writes it back in any case.
     */
    public void flush() {
        try {
            mapped.flush();
        } catch (InternalError fault) {
            throw mapped.onFault(fault);
        } catch (IllegalStateException e) {
            throw mapped.onClosedRace(e); // closed by another thread meanwhile
        }
    }

    /** The backing file, or empty for an in-memory store. */
    public Optional<Path> file() {
        mapped.requireOpen();
        return Optional.ofNullable(mapped.file());
    }

    /** Whether this store was opened read-only. */
    public boolean isReadOnly() {
        mapped.requireOpen();
        return mapped.readOnly();
    }

    /**
     * Unmaps the store and releases this process's writer entry. Idempotent; afterwards every
     * method but close throws {@link IllegalStateException}, including in threads that were
     * recording at the moment of the close.
     */
    @Override
    public void close() {
        mapped.close();
    }

    @Override
    public String toString() {
        return "HintStore[" + (mapped.file() == null ? "in memory" : mapped.file()) + ", capacity=" + capacity + "]";
    }

    // ------------------------------------------------------------------ internals

    private Snapshot find(String name) {
        mapped.requireOpen();
        EncodedNames.Scratch scratch = EncodedNames.scratch();
        EncodedNames.CachedName cached = EncodedNames.cached(scratch, name, engine.maxNameBytes());
        try {
            return EncodedNames.resolve(engine, cached, scratch.snapshot) ? scratch.snapshot : null;
        } catch (InternalError fault) {
            throw mapped.onFault(fault);
        } catch (IllegalStateException e) {
            throw mapped.onClosedRace(e); // closed by another thread meanwhile
        }
    }

    private static RegionRecord record(byte[] name, int length, Snapshot s) {
        return new RegionRecord(new String(name, 0, length, StandardCharsets.UTF_8),
                s.dispatchCount(), s.kernelNsTotal(), s.kernelNsMax(), s.bytesTotal());
    }

    /**
     * Bulk operations first check that the file is still the one mapped (FORMAT.md §5.1): two
     * system calls, nothing next to a scan of the slots.
     */
    private void requireSameFile() {
        mapped.requireOpen();
        try {
            mapped.checkFile();
        } catch (HintFileException e) {
            throw new UncheckedIOException(e.getMessage(), e);
        }
    }

    static void requireCount(int k) {
        if (k < 0) {
            throw new IllegalArgumentException("k " + k + " is negative");
        }
    }

    static void requireNonNegative(long kernelNs, long bytesTouched) {
        if (kernelNs < 0) {
            throw new IllegalArgumentException("kernelNs " + kernelNs + " is negative");
        }
        if (bytesTouched < 0) {
            throw new IllegalArgumentException("bytesTouched " + bytesTouched + " is negative");
        }
    }

    void requireWritable() {
        if (mapped.readOnly()) {
            throw new IllegalStateException("hint store " + mapped.file() + " was opened read-only");
        }
    }

    MappedStore mapped() {
        return mapped;
    }

    StoreEngine engine() {
        return engine;
    }
}
