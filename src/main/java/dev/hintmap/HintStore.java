package dev.hintmap;

import dev.hintmap.format.StoredName;
import dev.hintmap.store.Answer;
import dev.hintmap.store.EncodedNames;
import dev.hintmap.store.HintFileOpener;
import dev.hintmap.store.HintStoreAccess;
import dev.hintmap.store.MappedStore;
import dev.hintmap.store.SlotRecord;
import dev.hintmap.store.StoreEngine;
import dev.hintmap.store.StoreSettings;
import java.io.IOException;
import java.io.UncheckedIOException;
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
 * CAS) and allocates nothing (a name's encoding goes into per-thread buffers); queries never wait
 * for a lock. For the hottest path, resolve a {@link Region} handle once and record (and query)
 * through it. The file layout and protocol are specified in {@code docs/FORMAT.md}.
 *
 * <p><b>Allocation-free</b>, here and in {@link Region}, {@link RegionView} and
 * {@link MutableRecord}, means allocation-free once compiled (the steady state): a record or query
 * that the JIT's optimizing compiler (C2) has compiled allocates nothing per call, as JMH's
 * {@code -prof gc} measures it. Its first calls, interpreted or compiled by C1, may allocate a
 * short-lived object that C2's escape analysis removes (a read's view of the slot, 40 bytes).
 *
 * <p><b>Which read for which need.</b> Each way of reading is here for a reason no other one
 * serves; this table is the one place that says which (docs/DESIGN.md §5 records the decision).
 * Every read never waits for a lock, never inserts a region, gives each record from one consistent
 * read of its slot (one update, never a mix of two), and finds a name longer than
 * {@link #maxNameBytes()} by its {@linkplain #storedName(String) stored form} (unless the store
 * was opened with {@link HintStoreOptions#rejectLongNames(boolean)}). With capacity 0 every read
 * answers "absent" (or empty, or 0); a read-only store answers every read.
 * <table class="striped">
 * <caption>Reads of a store, by need</caption>
 * <thead><tr><th scope="col">need</th><th scope="col">read</th><th scope="col">why this one</th></tr></thead>
 * <tbody>
 * <tr><th scope="row">is one region hot</th><td>{@link #isHot(String)}; by a threshold of the
 *     caller's own, {@link #isHot(String, long)}</td>
 *     <td>the optimizer's question: one bit, allocation-free</td></tr>
 * <tr><th scope="row">one figure of one region</th><td>{@link #dispatchCount(String)},
 *     {@link #meanKernelNs(String)}</td>
 *     <td>the reference design's questions, allocation-free; each reads the whole record, as
 *     {@code readInto} does (FORMAT.md §7.2.2)</td></tr>
 * <tr><th scope="row">one region's record, to keep</th><td>{@link #recordFor(String)}</td>
 *     <td>an immutable value named as asked (an {@code Optional}), usable after close</td></tr>
 * <tr><th scope="row">one region's record, on a hot path</th>
 *     <td>{@link #readInto(String, MutableRecord)}</td>
 *     <td>allocation-free by construction: fills a holder the caller reuses</td></tr>
 * <tr><th scope="row">one region, asked again and again</th><td>{@link #region(String)}, then
 *     {@link Region#isHot()}, {@link Region#readInto(MutableRecord)}, {@link Region#dispatchCount()},
 *     {@link Region#meanKernelNs()}</td>
 *     <td>no name encoding or hashing per call, and no name compare while the region stays in
 *     its slot (FORMAT.md §7.2.2)</td></tr>
 * <tr><th scope="row">every region, scanned</th><td>{@link #forEachView(RecordVisitor)}</td>
 *     <td>allocation-free: one reusable view, no record or {@code String} per region</td></tr>
 * <tr><th scope="row">every region, as records</th><td>{@link #forEach(Consumer)}</td>
 *     <td>a record per region that the caller may keep; {@code forEachView} plus
 *     {@link RegionView#toRecord()}</td></tr>
 * <tr><th scope="row">every region, kept</th><td>{@link #snapshot()}</td>
 *     <td>a copy with the file's capacity and threshold, for use after close</td></tr>
 * <tr><th scope="row">the {@code k} hottest by some order</th><td>{@link #hottest(int, RegionOrder)}</td>
 *     <td>reads in place and copies only the candidates</td></tr>
 * <tr><th scope="row">the regions that make up a share of the kernel time</th>
 *     <td>{@link #hotSet(double, long)}</td>
 *     <td>read in one cut of the file: no region counted twice or missed (FORMAT.md §7.5)</td></tr>
 * <tr><th scope="row">how many regions</th><td>{@link #size()}, {@link #isEmpty()}</td>
 *     <td>header words only (FORMAT.md §7.5), no system call; for a monitor's loop</td></tr>
 * <tr><th scope="row">the layout</th><td>{@link #capacity()}, {@link #hotThresholdNs()},
 *     {@link #maxNameBytes()}</td><td>fixed at open: no read of the file</td></tr>
 * <tr><th scope="row">how many regions were evicted</th><td>{@link #evictions()}</td>
 *     <td>one header word, no system call: what a monitor watches for thrashing</td></tr>
 * <tr><th scope="row">the file's statistics and writers</th><td>{@link #info()}</td>
 *     <td>every counter and the writer table at once, what {@code hintmap stat} prints; reads
 *     {@code /proc} for each attached writer</td></tr>
 * </tbody>
 * </table>
 *
 * <p><b>The reference design's questions</b> — {@link #isHot(String)}, {@link #dispatchCount(String)},
 * {@link #meanKernelNs(String)}, {@link #recordFor(String)}, {@link #size()}, {@link #isEmpty()} — are
 * the API's first questions, and C ({@code hm_is_hot}, {@code hm_dispatch_count},
 * {@code hm_mean_kernel_ns}, {@code hm_lookup}, {@code hm_size}, {@code hm_is_empty}) and Python
 * ({@code is_hot}, {@code dispatch_count}, {@code mean_kernel_ns}, {@code record_for}, {@code len},
 * {@code is_empty}) ask them with the same answers (the shared vectors {@code vectors/seed.txt}).
 * Each cheaper form stands beside its question and does not replace it: {@code readInto} beside
 * {@code recordFor}, a {@link Region} handle beside every question by name, {@code forEachView}
 * beside {@code forEach} (docs/DESIGN.md §5).
 *
 * <p><b>Whose threshold.</b> "Hot" compares a region's mean kernel time with a threshold: by
 * default the file's, fixed at its creation, which every reader shares ({@code hintmap top}
 * marks regions by it). A reader that asks by its own threshold either passes it per question
 * ({@link #isHot(String, long)}, {@link Region#isHot(long)}) or opens the file read-only with
 * {@link HintStoreOptions#hotThresholdNs(long)}, which then answers every question of that store
 * ({@link #hotThresholdNs()}); the file keeps its own ({@link HintFileInfo#hotThresholdNs()}).
 *
 * <p><b>A file that changes under the mapping</b> (FORMAT.md §5.1). No hintmap process resizes,
 * renames or deletes a published file, but another program may. When the file is truncated
 * while mapped, the next method that touches a missing page throws an
 * {@link UncheckedIOException} whose cause is a {@link HintFileException} with problem
 * {@code TRUNCATED}, and from then on every method but {@link #close()} throws the same (when
 * the JIT compiler inlined the faulting access, the JVM's {@link InternalError} "a fault occurred
 * in an unsafe memory access operation" may surface instead, raised at the caller's next safepoint
 * poll, possibly outside this library: {@link #checkFile()} then reports {@code TRUNCATED} and
 * every later call throws the clear exception; the JVM never crashes). A file that grew makes the bulk reads ({@link #forEach},
 * {@link #forEachView}, {@link #hottest}, {@link #snapshot}) throw {@code RESIZED}.
 *
 * <p><b>A file replaced or removed at its path</b> ({@code hintmap copy SRC FILE --force},
 * {@code merge -o FILE}, a restored backup, {@code rm}): a store works on the file it opened, not on
 * the path. Every method — point queries, bulk reads, {@link #info()}, recording — goes on answering
 * from and writing into that file as if nothing happened, although no process that opens the path
 * from then on sees it. {@link #checkFile()} says so ({@code REPLACED}), and
 * {@link #reopenIfReplaced()} follows the path: a reader that should see what is at the path now
 * calls it before it reads (two system calls), as {@code hintmap top --watch} does each refresh.
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
    /** The engine's (the file's), for the views this store makes. */
    private final long hotThresholdNs;
    private final int capacity;
    /** The options it was opened with, for {@link #reopenIfReplaced()}; null for an in-memory store. */
    private final HintStoreOptions options;

    static {
        HintStoreAccess.register(HintStore::createNew); // for the hintmap tool's CommandFiles, not API
    }

    private HintStore(MappedStore mapped, HintStoreOptions options) {
        this.mapped = mapped;
        this.options = options;
        this.engine = mapped.engine();
        this.hotThresholdNs = engine.hotThresholdNs();
        this.capacity = engine.capacity();
    }

    /**
     * Opens the hint file at {@code file}, creating it when it does not exist (unless read-only):
     * mode 0600, or 0660 with {@link HintStoreOptions#groupShared(boolean)}, exactly, whatever the
     * umask. The file is created complete under a temporary name and then linked into place, so
     * processes racing to create one path all open the same file, and none sees it half-written.
     * An existing file's layout wins over {@code options}; options set explicitly that contradict
     * it are an error, except the hot threshold of a read-only store, which is the reader's own
     * ({@link HintStoreOptions#hotThresholdNs(long)}). A symbolic link at the final path component
     * and a file owned by another user are refused unless the options allow them (see
     * {@code docs/SECURITY.md}). Every check is made before any slot is touched, and a file that
     * fails one is not modified.
     *
     * @param file the hint file's path; its parent directory must exist
     * @param options the layout for a file this call creates, the options that an existing file
     *     must match (only those set explicitly), and the access mode and security checks
     * @return the open store, which the caller closes; its {@link #capacity()},
     *     {@link #hotThresholdNs()} and {@link #maxNameBytes()} are the file's
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
        return new HintStore(HintFileOpener.open(file, options, settings), options);
    }

    /**
     * {@link HintFiles#createNew(Path, HintStoreOptions)}, the new file taking the owner, group and
     * permission bits of {@code like} when it is not null: what the {@code hintmap} tool's in-place
     * conversion keeps of the file it replaces (reached through {@link HintStoreAccess}).
     */
    static HintStore createNew(Path file, HintStoreOptions options, Path like) throws IOException {
        return new HintStore(HintFileOpener.createNew(file, options, StoreSettings.DEFAULT, like), options);
    }

    /**
     * An anonymous store, private to this process, with the same semantics as a file: for tests,
     * and for a process that wants the hints only while it runs. Its memory is allocated at once
     * (the size a file of these options would have) and released by {@link #close()}.
     *
     * @param options the store's capacity, hot threshold and longest name; the file options
     *     ({@code groupShared}, {@code followSymlinks}, {@code allowForeignOwner}) have no effect
     * @return the new, empty store, which the caller closes
     * @throws IllegalArgumentException if {@code options} are read-only: an empty store that
     *     cannot be written would serve nothing
     */
    public static HintStore inMemory(HintStoreOptions options) {
        return inMemory(options, StoreSettings.DEFAULT);
    }

    /** {@link #inMemory(HintStoreOptions)} with per-store settings that only tests change. */
    static HintStore inMemory(HintStoreOptions options, StoreSettings settings) {
        Objects.requireNonNull(options, "options");
        if (options.readOnly()) {
            throw new IllegalArgumentException("an in-memory store cannot be read-only");
        }
        return new HintStore(MappedStore.inMemory(options, settings), null);
    }

    /**
     * Records one dispatch of the region {@code name}.
     *
     * @param name the region's name: non-empty, encodable as UTF-8, any length. A name longer than
     *     {@link #maxNameBytes()} is recorded under its {@linkplain #storedName(String) stored form},
     *     and every query finds it by the same long name (unless the store was opened with
     *     {@link HintStoreOptions#rejectLongNames(boolean)}, which makes it an error)
     * @param kernelNs the dispatch's kernel time, {@code >= 0}
     * @param bytesTouched bytes the dispatch touched, {@code >= 0}
     * @throws IllegalArgumentException for a bad name (null, empty, an unpaired surrogate; longer
     *     than the limit with {@code rejectLongNames}) or a negative value; nothing is recorded.
     *     With capacity 0 the arguments are checked the same way and the sample is dropped
     * @throws IllegalStateException if the store is closed or read-only (checked first)
     * @throws UncheckedIOException with a {@link HintFileException} ({@code TRUNCATED}) when the
     *     file was truncated under the mapping, as the class notes describe
     */
    public void record(String name, long kernelNs, long bytesTouched) {
        checkWritable();
        requireNonNegative(kernelNs, bytesTouched);
        EncodedNames.Scratch scratch = EncodedNames.scratch();
        EncodedNames.CachedName cached = EncodedNames.cached(scratch, name, engine);
        if (capacity == 0) {
            return;
        }
        try {
            EncodedNames.record(engine, cached, scratch.snapshot, kernelNs, bytesTouched);
        } catch (InternalError | IllegalStateException e) {
            throw mapped.accessFailed(e);
        }
    }

    /**
     * A handle that records into, and queries, the region {@code name} without encoding,
     * hashing or looking the name up on each call. It follows the region through eviction and
     * re-insertion. Resolving does not insert the region: the handle's first
     * {@link Region#record record} does. A name longer than {@link #maxNameBytes()} is resolved
     * once, here, to its {@linkplain #storedName(String) stored form}. Works on a read-only store
     * (its queries answer; its {@code record} throws) and with capacity 0 (its queries answer
     * absent; its records are dropped).
     *
     * @param name the region's name, as for {@link #record(String, long, long)}: any length
     * @return a handle of this store, valid until the store is closed; safe to share between
     *     threads
     * @throws IllegalArgumentException for a bad name (null, empty, an unpaired surrogate; longer
     *     than {@link #maxNameBytes()} in UTF-8 only with {@link HintStoreOptions#rejectLongNames(boolean)})
     * @throws IllegalStateException if the store is closed
     */
    public Region region(String name) {
        mapped.requireOpen();
        return new Region(this, EncodedNames.encodeCopy(name, engine), name);
    }

    /**
     * Whether the region is hot: its mean kernel time is at least {@link #hotThresholdNs()}
     * (FORMAT.md §7.2.1, the one rule). Never waits for a lock; allocates nothing: the name's
     * encoding and the record read go into per-thread buffers.
     *
     * @param name the region's name, as for {@link #record(String, long, long)}
     * @return true when the region is present and its mean kernel time (ns, rounded down) is at
     *     least the threshold; false when it is absent (never recorded, evicted, or the capacity
     *     is 0)
     * @throws IllegalArgumentException for a bad name
     * @throws IllegalStateException if the store is closed
     */
    public boolean isHot(String name) {
        return query(name, Answer.HOT, null) == 1;
    }

    /**
     * Whether the region is hot by the caller's threshold rather than the store's: its mean kernel
     * time is at least {@code thresholdNs} (the rule of FORMAT.md §7.2.1, with another bound). The
     * same read as {@link #isHot(String)}, at the same cost; allocates nothing. For a region asked
     * again and again, {@link Region#isHot(long)}.
     *
     * @param name the region's name, as for {@link #record(String, long, long)}
     * @param thresholdNs the mean kernel time in ns at or above which the caller calls a region
     *     hot, {@code >= 0} (0: every present region is hot)
     * @return true when the region is present and its mean kernel time (ns, rounded down) is at
     *     least {@code thresholdNs}; false when it is absent
     * @throws IllegalArgumentException for a bad name or a negative threshold
     * @throws IllegalStateException if the store is closed
     */
    public boolean isHot(String name, long thresholdNs) {
        requireThreshold(thresholdNs);
        SlotRecord s = find(name);
        return s != null && s.isHot(thresholdNs);
    }

    /**
     * Dispatches recorded for the region since it was (last) inserted. Allocates nothing and never
     * waits for a lock. It costs what {@link #readInto(String, MutableRecord)} costs: every answer
     * reads the whole record, so that all questions agree on whether the region is present
     * (FORMAT.md §7.2.2). Several figures of one region: one {@code readInto} (or
     * {@link #recordFor(String)}); a name asked again and again: a {@link Region} handle's
     * {@link Region#dispatchCount()}, which skips the name's encoding and lookup.
     *
     * @param name the region's name, as for {@link #record(String, long, long)}
     * @return the number of dispatches, {@code >= 1} when present (saturating at
     *     {@link Long#MAX_VALUE}); 0 when absent (never recorded, evicted, or the capacity is 0)
     * @throws IllegalArgumentException for a bad name
     * @throws IllegalStateException if the store is closed
     */
    public long dispatchCount(String name) {
        return query(name, Answer.COUNT, null);
    }

    /**
     * Mean kernel time of the region per dispatch. Allocates nothing and never waits for a lock;
     * costs what {@link #dispatchCount(String)} costs (one read of the whole record), and has the
     * same cheaper forms beside it ({@link #readInto(String, MutableRecord)} for several figures,
     * {@link Region#meanKernelNs()} for a name asked again and again).
     *
     * @param name the region's name, as for {@link #record(String, long, long)}
     * @return the total kernel time divided by the dispatch count, in ns, rounded down; 0 when
     *     absent
     * @throws IllegalArgumentException for a bad name
     * @throws IllegalStateException if the store is closed
     */
    public long meanKernelNs(String name) {
        return query(name, Answer.MEAN, null);
    }

    /**
     * Reads the region's record into a reusable holder: {@link #recordFor(String)} without the
     * {@code Optional} and the {@code RegionRecord}, so a query allocates nothing by construction
     * (not by the JIT's escape analysis). The same consistent read as {@code recordFor}: one update,
     * never a mix of two. Never waits for a lock, never inserts. For a name queried again and again,
     * a {@link Region} handle's {@link Region#readInto(MutableRecord)} skips the name's encoding.
     *
     * @param name the region's name, as for {@link #record(String, long, long)}
     * @param into the holder to fill: the region's record when present; {@linkplain
     *     MutableRecord#clear() cleared} (all zero) when absent
     * @return true when the region is present, false when it is absent (never recorded, evicted,
     *     or the capacity is 0)
     * @throws IllegalArgumentException for a bad name; {@code into} is then left as it was
     * @throws NullPointerException if {@code into} is null
     * @throws IllegalStateException if the store is closed
     * @throws java.io.UncheckedIOException with a {@link HintFileException} ({@code TRUNCATED})
     *     when the file was truncated under the mapping, as the class notes describe
     */
    public boolean readInto(String name, MutableRecord into) {
        Objects.requireNonNull(into, "into");
        if (query(name, Answer.RECORD, into.values) == 1) {
            return true;
        }
        into.clear();
        return false;
    }

    /**
     * A copy of the region's record, consistent in itself (one update, never a mix of two).
     * Allocates the {@code Optional} and the record (unless the JIT scalar-replaces them); for a
     * query that allocates nothing, use {@link #readInto(String, MutableRecord)}.
     *
     * @param name the region's name, as for {@link #record(String, long, long)}
     * @return the region's record, named {@code name} as given (not its stored form); empty when
     *     the region is absent (never recorded, evicted, or the capacity is 0)
     * @throws IllegalArgumentException for a bad name
     * @throws IllegalStateException if the store is closed
     */
    public Optional<RegionRecord> recordFor(String name) {
        SlotRecord s = find(name);
        if (s == null) {
            return Optional.empty();
        }
        return Optional.of(new RegionRecord(name, s.dispatchCount(), s.kernelNsTotal(),
                s.kernelNsMax(), s.bytesTotal()));
    }

    /**
     * Number of regions held now, by every process that records into the file.
     *
     * @return the number of regions, in {@code [0, capacity()]}; a value that other threads and
     *     processes may change at any moment
     * @throws IllegalStateException if the store is closed
     */
    public int size() {
        mapped.requireOpen();
        try {
            return engine.size();
        } catch (InternalError | IllegalStateException e) {
            throw mapped.accessFailed(e);
        }
    }

    /**
     * Whether the store holds no region: {@code size() == 0}, the same header words read
     * (FORMAT.md §7.5), as JDK collections keep {@code isEmpty()} beside {@code size()}.
     *
     * @return true when no region is held now (always, for capacity 0); a value that other
     *     threads and processes may change at any moment
     * @throws IllegalStateException if the store is closed
     */
    public boolean isEmpty() {
        return size() == 0;
    }

    /**
     * Maximum number of regions, fixed when the file was created: a new region beyond it evicts
     * one.
     *
     * @return the capacity, in {@code [0, HintStoreOptions.MAX_CAPACITY]}; 0 when recording is
     *     disabled (records are then checked and dropped, and every query answers absent)
     * @throws IllegalStateException if the store is closed
     */
    public int capacity() {
        mapped.requireOpen();
        return capacity;
    }

    /**
     * Mean kernel time at or above which this store calls a region hot ({@link #isHot(String)},
     * {@link Region#isHot()}, {@link RegionView#isHot()}, {@link #snapshot()}): the file's, fixed
     * when it was created, unless the store was opened read-only with
     * {@link HintStoreOptions#hotThresholdNs(long)}, which then sets this reader's own (the file
     * keeps its threshold: {@link HintFileInfo#hotThresholdNs()}).
     *
     * @return the threshold in ns, {@code >= 0} (0: every present region is hot)
     * @throws IllegalStateException if the store is closed
     */
    public long hotThresholdNs() {
        mapped.requireOpen();
        return hotThresholdNs;
    }

    /**
     * Longest region name the file stores as it is, fixed when the file was created; a longer one
     * is stored in its {@linkplain #storedName(String) shortened form}.
     *
     * @return the limit in UTF-8 bytes, in {@code [HintStoreOptions.MIN_NAME_BYTES, HintStoreOptions.MAX_NAME_BYTES_LIMIT]}
     *     ({@code [33, 1024]})
     * @throws IllegalStateException if the store is closed
     */
    public int maxNameBytes() {
        mapped.requireOpen();
        return engine.maxNameBytes();
    }

    /**
     * The name under which this file stores the region {@code name} (FORMAT.md §1.1): {@code name}
     * itself when its UTF-8 form fits {@link #maxNameBytes()}; otherwise its longest prefix of at
     * most {@code maxNameBytes() - 33} bytes cut on a character boundary, {@code '~'} and the 32
     * lowercase hex digits of the first 16 bytes of SHA-256 over the whole name. Every method that
     * takes a name applies this rule, as the C library ({@code hm_name_canonical}) and the CUPTI
     * collector do, so a long kernel name recorded by any of them is found by the same long name.
     * {@link #forEachView}, {@link #snapshot()}, {@link #hottest} and the command-line tool show stored
     * names; {@link #recordFor(String)} names its record as asked.
     *
     * <p>Two different names share a region only when their stored forms are equal: for long
     * names, a 128-bit SHA-256 collision with equal kept prefixes (about 2^64 SHA-256 evaluations
     * to search for; by accident, about 1.5 × 10^-27 among a million long names), or a name recorded
     * that is another name's stored form (docs/SECURITY.md). A shared region misleads an
     * optimizer's priorities, never its correctness: hints are a prioritisation signal.
     *
     * @param name a region name: non-empty, encodable as UTF-8, any length
     * @return its stored form; the stored form of a stored form is itself
     * @throws IllegalArgumentException for a null, empty or unencodable name
     * @throws IllegalStateException if the store is closed
     */
    public String storedName(String name) {
        mapped.requireOpen();
        return StoredName.of(name, engine.maxNameBytes());
    }

    /**
     * Regions evicted from this store since it was created, by every process that records into
     * the file (a counter in the file's header). One relaxed load and no system call, so a monitor
     * can poll it to see the store thrash (capacity too small for the working set);
     * {@link #info()} reads it too, with every other counter and the writer table, at the cost
     * of reading {@code /proc} for each attached writer.
     *
     * @return the number of evictions, {@code >= 0} (a damaged counter with the top bit set reads
     *     as 0, FORMAT.md §5 step 5)
     * @throws IllegalStateException if the store is closed
     */
    public long evictions() {
        mapped.requireOpen();
        try {
            return engine.counters().evictions();
        } catch (InternalError | IllegalStateException e) {
            throw mapped.accessFailed(e);
        }
    }

    /**
     * Calls {@code action} with a consistent record of every region present, in slot order: a
     * record and its name's {@code String} per region, which the caller may keep. A scan that
     * keeps nothing allocates nothing with {@link #forEachView(RecordVisitor)} (this method is
     * {@code forEachView} with {@link RegionView#toRecord()}); a copy of every region with the
     * store's capacity and threshold is {@link #snapshot()}.
     * Regions inserted or evicted concurrently may or may not be seen. Checks first that the
     * mapped file kept its size and header (see "A file that changes under the mapping" above).
     *
     * @param action called once per region, on the calling thread, with a record it may keep; an
     *     exception it throws ends the scan and propagates
     * @throws UncheckedIOException with a {@link HintFileException} {@code TRUNCATED} or
     *     {@code RESIZED} when the mapped file changed size, or whose header changed under the
     *     mapping (not when another file is at the path: see the class description)
     * @throws IllegalStateException if the store is closed
     */
    public void forEach(Consumer<RegionRecord> action) {
        Objects.requireNonNull(action, "action");
        forEachView(v -> action.accept(v.toRecord()));
    }

    /**
     * Calls {@code visitor} with every region present, in slot order, through one reusable
     * {@link RegionView}, so a scan allocates nothing per region (one view per call; a visitor that
     * needs a record to keep calls {@link RegionView#toRecord()}). Each view's name (the stored
     * form) and record come from one consistent read of the slot. Regions inserted or evicted
     * concurrently may or may not be seen: for the set of one moment, {@link #hotSet} reads in one
     * cut. Which slots a damaged file lists: FORMAT.md §9.1, "Listings". Checks first that the
     * mapped file kept its size and header.
     *
     * <pre>{@code
     * long[] hot = new long[1];
     * store.forEachView(v -> { if (v.isHot()) hot[0] += v.kernelNsTotal(); });
     * }</pre>
     *
     * @param visitor called once per region, on the calling thread, with a view valid only during
     *     the call; an exception it throws ends the scan and propagates
     * @throws UncheckedIOException with a {@link HintFileException} {@code TRUNCATED} or
     *     {@code RESIZED} when the mapped file changed size, or whose header changed under the
     *     mapping (not when another file is at the path: see the class description)
     * @throws IllegalStateException if the store is closed
     */
    public void forEachView(RecordVisitor visitor) {
        Objects.requireNonNull(visitor, "visitor");
        requireSameFile();
        RegionView view = new RegionView(engine.maxNameBytes(), hotThresholdNs);
        try {
            int slots = engine.highWater();
            for (int k = 0; k < slots; k++) {
                if (view.read(engine, k)) {
                    visitor.visit(view);
                }
            }
        } catch (InternalError | IllegalStateException e) {
            throw mapped.accessFailed(e);
        }
    }

    /**
     * The {@code k} hottest regions by {@code order}, hottest first (equal keys by name): what an
     * optimizer asks before deciding where to spend its compile time. Reads the records in place
     * and copies only the candidates, so a small {@code k} over a large store allocates little.
     * Each record is consistent; regions inserted or evicted meanwhile may or may not be seen.
     * Checks first, unless {@code k} is 0, that the mapped file kept its size and header.
     *
     * @param k how many regions at most, {@code >= 0}
     * @param order what "hottest" means: total, mean or maximum kernel time, or dispatch count
     * @return an immutable list of at most {@code k} records (fewer when the store holds fewer
     *     regions), hottest first
     * @throws IllegalArgumentException if {@code k} is negative
     * @throws UncheckedIOException with a {@link HintFileException} {@code TRUNCATED} or
     *     {@code RESIZED} when the mapped file changed size, or whose header changed under the
     *     mapping (not when another file is at the path: see the class description)
     * @throws IllegalStateException if the store is closed
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
        SlotRecord s = new SlotRecord();
        RegionView view = new RegionView(engine.maxNameBytes(), hotThresholdNs);
        try {
            int slots = engine.highWater();
            for (int slot = 0; slot < slots; slot++) {
                if (engine.slotRead(slot, null, s) == 0) {
                    continue;
                }
                if (top.size() == k
                        && order.rank(s) < order.key(top.peek())) {
                    continue; // colder than everything kept: its name is never decoded
                }
                if (!view.read(engine, slot)) {
                    continue; // evicted since the first read
                }
                RegionRecord r = view.toRecord();
                if (top.size() < k) {
                    top.add(r);
                } else if (hotter.compare(r, top.peek()) < 0) {
                    top.poll();
                    top.add(r);
                }
            }
        } catch (InternalError | IllegalStateException e) {
            throw mapped.accessFailed(e);
        }
        List<RegionRecord> result = new ArrayList<>(top);
        result.sort(hotter);
        return List.copyOf(result);
    }

    /**
     * The hot set by coverage (docs/GUIDE.md, "The hot set by coverage"): the fewest regions,
     * hottest by total kernel time first, whose kernel time covers at least {@code coverage} of the
     * kernel time of every region in the file; regions with fewer than {@code minDispatches}
     * dispatches never count (their time stays in the whole), and equal totals are ordered by stored
     * name in UTF-8 byte order, so the answer is the same in Java, C ({@code hm_hot_set}) and
     * {@code hintmap hot}. This is what an optimizer asks to decide where its effort goes:
     * {@code hotSet(0.95, 10)} names the kernels that make up 95% of the GPU time.
     *
     * <p>One consistent answer: the regions are read in one cut of the file (FORMAT.md §7.5), so no
     * region is counted twice or missed while writers insert and evict; {@link HotSet#consistent()}
     * says when writers kept changing the file through every attempt and the answer is a hint.
     * Allocates a record and a name per region read, and the sorted list of the regions with
     * enough dispatches: O(regions) memory, O(regions log regions) time; allocation-free callers
     * use C's {@code hm_hot_set}, which works in the caller's buffers.
     *
     * @param coverage the fraction of kernel time to cover, in {@code [0, 1]}: 0 gives the empty
     *     set, 1 every region with enough dispatches and some kernel time
     * @param minDispatches the fewest dispatches a region needs to count as hot, {@code >= 0} (0 and
     *     1 are the same: every region present has a dispatch)
     * @return the hot set, with the totals it was cut from; empty for an empty file or capacity 0
     * @throws IllegalArgumentException if {@code coverage} is NaN or outside {@code [0, 1]}, or
     *     {@code minDispatches} is negative
     * @throws UncheckedIOException with a {@link HintFileException} {@code TRUNCATED} or
     *     {@code RESIZED} when the mapped file changed size, or whose header changed under the
     *     mapping (not when another file is at the path: see the class description)
     * @throws IllegalStateException if the store is closed
     */
    public HotSet hotSet(double coverage, long minDispatches) {
        HotSetRule.requireValid(coverage, minDispatches);
        requireSameFile();
        RegionCut.Regions read;
        try {
            read = RegionCut.read(engine, new RegionView(engine.maxNameBytes(), hotThresholdNs));
        } catch (InternalError | IllegalStateException e) {
            throw mapped.accessFailed(e);
        }
        return HotSetRule.select(read.regions(), read.consistent(), coverage, minDispatches);
    }

    /**
     * A copy of every region, for offline use after this store is closed (see {@link HintSnapshot}
     * for what "consistent" means there). Checks first that the mapped file kept its size and header.
     *
     * @return an immutable copy of every region, with this store's file, capacity and hot
     *     threshold and the time it was taken
     * @throws UncheckedIOException with a {@link HintFileException} {@code TRUNCATED} or
     *     {@code RESIZED} when the mapped file changed size, or whose header changed under the
     *     mapping (not when another file is at the path: see the class description)
     * @throws IllegalStateException if the store is closed
     */
    public HintSnapshot snapshot() {
        mapped.requireOpen();
        List<RegionRecord> regions = new ArrayList<>();
        forEachView(v -> regions.add(v.toRecord()));
        return new HintSnapshot(mapped.file(), Instant.now(), capacity, hotThresholdNs, engine.maxNameBytes(), regions);
    }

    /**
     * Adds a whole record to its region, as if its {@code dispatchCount} samples had been recorded
     * one by one: count, kernel total and bytes add with saturation, the maximum is the larger of
     * the two; an absent region is inserted with exactly this record (evicting one at capacity).
     * This is how profiles of several runs or machines are merged.
     *
     * @param record the region's name (any length: a name over {@link #maxNameBytes()} is added
     *     under its stored form, as {@link #record(String, long, long)} does) and the sums to add
     *     (kernel times in ns, bytes); with a capacity of 0 it is validated and dropped
     * @throws IllegalArgumentException for a bad name (as for {@code record}), or a record no
     *     sequence of samples can produce ({@code dispatchCount < 1},
     *     {@code kernelNsMax > kernelNsTotal}, or a mean above the maximum); nothing is recorded
     * @throws IllegalStateException if the store is closed or read-only (checked before the record)
     * @throws UncheckedIOException with a {@link HintFileException} ({@code TRUNCATED}) when the
     *     file was truncated under the mapping, as the class notes describe
     */
    public void add(RegionRecord record) {
        Objects.requireNonNull(record, "record");
        checkWritable();
        EncodedNames.Scratch scratch = EncodedNames.scratch();
        scratch.name.encodeChecked(record.name(), engine.maxNameBytes(), engine.rejectsLongNames());
        if (!record.isSound()) {
            throw new IllegalArgumentException("record " + record + " cannot come from any sequence of samples:"
                    + " it needs dispatchCount >= 1 and kernelNsTotal / dispatchCount <= kernelNsMax <= kernelNsTotal");
        }
        if (capacity == 0) {
            return;
        }
        try {
            engine.wholeRecords().add(scratch.name, record.dispatchCount(), record.kernelNsTotal(), record.kernelNsMax(),
                    record.bytesTotal(), scratch.snapshot);
        } catch (InternalError | IllegalStateException e) {
            throw mapped.accessFailed(e);
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
     * @return how many regions were aged and which LIVE regions were skipped (both none for
     *     capacity 0)
     * @throws IllegalArgumentException if {@code factor} is not in {@code (0, 1]} (checked first)
     * @throws IllegalStateException if the store is closed or read-only
     * @throws UncheckedIOException with a {@link HintFileException} {@code TRUNCATED} or
     *     {@code RESIZED} when the mapped file changed size, or whose header changed under the
     *     mapping, checked before any region is aged
     */
    public DecayResult decay(double factor) {
        if (!(factor > 0 && factor <= 1)) {
            throw new IllegalArgumentException("decay factor " + factor + " is outside (0, 1]");
        }
        checkWritable();
        requireSameFile();
        int aged = 0;
        List<String> skipped = new ArrayList<>();
        RegionView view = new RegionView(engine.maxNameBytes(), hotThresholdNs);
        try {
            int slots = engine.highWater();
            for (int slot = 0; slot < slots; slot++) {
                switch (engine.wholeRecords().decaySlot(slot, factor)) {
                    case AGED -> aged++;
                    case NOT_LIVE -> { }
                    case LOCK_HELD -> {
                        if (view.read(engine, slot)) { // lock-free: the holder may never let go
                            skipped.add(view.name());
                        }
                    }
                }
            }
        } catch (InternalError | IllegalStateException e) {
            throw mapped.accessFailed(e);
        }
        return new DecayResult(aged, skipped);
    }

    /**
     * What the file's header and coordination words say: layout, version, creation time,
     * counters and the writer processes attached. For tools ({@code hintmap stat}).
     *
     * @return the file's state now; each counter is current when read, the whole not one atomic
     *     cut; damaged words read as FORMAT.md §5 step 5 says (a counter with the top bit set as 0,
     *     {@code high_water} clamped to the capacity)
     * @throws IllegalStateException if the store is closed
     * @throws UncheckedIOException with a {@link HintFileException} ({@code TRUNCATED}) when the
     *     file was truncated under the mapping
     */
    public HintFileInfo info() {
        mapped.requireOpen();
        try {
            return mapped.info();
        } catch (InternalError | IllegalStateException e) {
            throw mapped.accessFailed(e);
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
     * Follows the path: when another file is at this store's path now than the one it opened
     * ({@code hintmap copy --force} or {@code merge -o} onto it, a restored backup), opens that file
     * with this store's options and returns it; this store stays open, on its own file, until the
     * caller closes it. The new store's layout is the new file's: options set explicitly that
     * contradict it fail as {@link #open} fails. One {@code lstat} when nothing changed.
     *
     * <pre>{@code
     * Optional<HintStore> now = store.reopenIfReplaced();
     * if (now.isPresent()) { store.close(); store = now.get(); }
     * }</pre>
     *
     * @return the store of the file now at the path, or empty when it is still this store's file
     *     (always empty for an in-memory store)
     * @throws HintFileException {@code MISSING} when no file is at the path (removed, and not
     *     replaced yet), or what {@link #open} throws for the file now there
     * @throws IOException for another failure to open it
     * @throws IllegalStateException if the store is closed
     */
    public Optional<HintStore> reopenIfReplaced() throws IOException {
        mapped.requireOpen();
        if (options == null || !mapped.pathHoldsAnotherFile()) {
            return Optional.empty();
        }
        return Optional.of(open(mapped.file(), options));
    }

    /**
     * Flushes recorded data to the file (msync), a checkpoint for the profile. Closing does not
     * require it: the mapping is shared, and the operating system writes it back in any case.
     * Does nothing for an in-memory or read-only store.
     *
     * @throws IllegalStateException if the store is closed
     */
    public void flush() {
        try {
            mapped.flush();
        } catch (InternalError | IllegalStateException e) {
            throw mapped.accessFailed(e);
        }
    }

    /**
     * The backing file.
     *
     * @return the path the store was opened with; empty for an in-memory store
     * @throws IllegalStateException if the store is closed
     */
    public Optional<Path> file() {
        mapped.requireOpen();
        return Optional.ofNullable(mapped.file());
    }

    /**
     * Whether this store was opened read-only ({@link HintStoreOptions#readOnly(boolean)}).
     *
     * @return true when recording, adding and decaying throw {@link IllegalStateException}
     * @throws IllegalStateException if the store is closed
     */
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

    private SlotRecord find(String name) {
        SlotRecord s = EncodedNames.scratch().snapshot;
        return query(name, Answer.RECORD, s) == 1 ? s : null;
    }

    /**
     * One query by name ({@link EncodedNames#query}): {@code out} receives the record for
     * {@link Answer#RECORD}; null means the thread's scratch.
     */
    private long query(String name, Answer answer, SlotRecord out) {
        mapped.requireOpen();
        EncodedNames.Scratch scratch = EncodedNames.scratch();
        EncodedNames.CachedName cached = EncodedNames.cached(scratch, name, engine);
        try {
            return EncodedNames.query(engine, cached, answer, out == null ? scratch.snapshot : out);
        } catch (InternalError | IllegalStateException e) {
            throw mapped.accessFailed(e);
        }
    }

    /**
     * Bulk operations first check the mapped file's size and header (FORMAT.md §5.1): one system
     * call, nothing next to a scan of the slots. Not the path: every read answers from the file
     * this store opened (class description).
     */
    private void requireSameFile() {
        mapped.requireOpen();
        try {
            mapped.checkMappedFile();
        } catch (HintFileException e) {
            throw new UncheckedIOException(e.getMessage(), e);
        }
    }

    static void requireThreshold(long thresholdNs) {
        if (thresholdNs < 0) {
            throw new IllegalArgumentException("thresholdNs " + thresholdNs + " is negative");
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

    /** Throws unless the store is open ({@link MappedStore#requireOpen()}) and writable. */
    void checkWritable() {
        mapped.requireOpen();
        if (mapped.readOnly()) {
            throw readOnlyRefusal();
        }
    }

    /** What a write to a read-only store throws. */
    IllegalStateException readOnlyRefusal() {
        return new IllegalStateException("hint store " + mapped.file() + " was opened read-only");
    }

    /** Throws unless the store is open ({@link MappedStore#requireOpen()}). */
    void checkOpen() {
        mapped.requireOpen();
    }

    /** What a failed access to the mapping throws ({@link MappedStore#accessFailed}). */
    RuntimeException accessFailed(Throwable e) {
        return mapped.accessFailed(e);
    }

    MappedStore mapped() {
        return mapped;
    }

    StoreEngine engine() {
        return engine;
    }
}
