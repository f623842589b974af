package dev.hintmap.torture;

import dev.hintmap.HintFileException;
import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.MutableRecord;
import dev.hintmap.Region;
import dev.hintmap.RegionOrder;
import dev.hintmap.RegionRecord;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * The writer of {@link TruncationUnderWriterTest}: a JVM that records into a hint file round after
 * round until the file is truncated under it, and says on one line what it caught. Driven over
 * standard input, one line per round:
 *
 * <ul>
 *   <li>{@code round N PATH WARMUP}: opens PATH, records WARMUP iterations, prints {@code ready N}, then
 *       records (by name with eviction churn, through a handle, and queries) until a call throws; prints
 *       {@code caught N TYPE PROBLEM}, {@code check N TYPE PROBLEM} ({@code checkFile()}'s outcome) and
 *       {@code then N TYPE} (the next call's outcome), closes the store and prints {@code closed N};</li>
 *   <li>{@code quit}: exits 0.</li>
 * </ul>
 *
 * <p>With arguments {@code every DIR} it instead calls, for each public method that reads or writes
 * the mapping ({@code region(name)} does not: it only encodes the name), that method on a fresh store whose file it has just truncated (to 0 and to one page),
 * and prints {@code op METHOD SIZE TYPE PROBLEM}: deterministic, since the truncation is complete
 * before the call.
 *
 * <p>The names are real kernel names (long, templated, with spaces and punctuation), more of them
 * than the file's capacity, so the loop exercises every atomic read-modify-write of the record path:
 * the slot lock, the structure lock of an eviction and the statistics counters.
 */
public final class TruncationChild {
    static final int CAPACITY = 16;
    private static final String[] NAMES = new String[CAPACITY + 8];

    static {
        for (int i = 0; i < NAMES.length; i++) {
            NAMES[i] = "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, std::array<char*, "
                    + (i + 2) + "> >(int, (anonymous namespace)::F, std::array<char*, 3>)#" + i;
        }
    }

    private TruncationChild() {}

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("every")) {
            every(Path.of(args[1]));
            return;
        }
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null && !line.equals("quit")) {
            String[] words = line.split(" ");
            round(Integer.parseInt(words[1]), Path.of(words[2]), Integer.parseInt(words[3]));
        }
    }

    private static void round(int round, Path file, int warmup) {
        HintStoreOptions options = HintStoreOptions.defaults().capacity(CAPACITY).maxNameBytes(256);
        try (HintStore store = HintStore.open(file, options)) {
            Region handle = store.region(NAMES[0]);
            for (int i = 0; i < warmup; i++) {
                step(store, handle, i);
            }
            System.out.println("ready " + round);
            System.out.flush();
            long deadline = System.nanoTime() + 60_000_000_000L;
            String caught = "none";
            for (int i = 0; System.nanoTime() < deadline; i++) {
                try {
                    step(store, handle, i);
                } catch (RuntimeException | Error e) {
                    caught = describe(e);
                    break;
                }
            }
            System.out.println("caught " + round + " " + caught);
            String check; // what tells a caller that met the JVM's raw InternalError (HintStore's class Javadoc)
            try {
                store.checkFile();
                check = "none";
            } catch (RuntimeException | Error | java.io.IOException e) {
                check = describe(e);
            }
            System.out.println("check " + round + " " + check);
            String then;
            try {
                store.record(NAMES[1], 10, 1);
                then = "none";
            } catch (RuntimeException | Error e) {
                then = describe(e);
            }
            System.out.println("then " + round + " " + then);
        } catch (RuntimeException | Error | java.io.IOException e) {
            System.out.println("failed " + round + " " + describe(e));
        }
        System.out.println("closed " + round);
        System.out.flush();
    }

    /** Every method that touches the mapping, on a file truncated before the call. */
    private static final Map<String, BiConsumer<HintStore, Region>> OPERATIONS = new LinkedHashMap<>();

    static {
        OPERATIONS.put("record existing", (s, r) -> s.record(NAMES[0], 10, 1));
        OPERATIONS.put("record new (evicts)", (s, r) -> s.record(NAMES[NAMES.length - 1], 10, 1));
        OPERATIONS.put("isHot", (s, r) -> s.isHot(NAMES[0]));
        OPERATIONS.put("isHot(threshold)", (s, r) -> s.isHot(NAMES[0], 10));
        OPERATIONS.put("dispatchCount", (s, r) -> s.dispatchCount(NAMES[0]));
        OPERATIONS.put("meanKernelNs", (s, r) -> s.meanKernelNs(NAMES[0]));
        OPERATIONS.put("readInto", (s, r) -> s.readInto(NAMES[0], new MutableRecord()));
        OPERATIONS.put("recordFor", (s, r) -> s.recordFor(NAMES[0]));
        OPERATIONS.put("size", (s, r) -> s.size());
        OPERATIONS.put("isEmpty", (s, r) -> s.isEmpty());
        OPERATIONS.put("evictions", (s, r) -> s.evictions());
        OPERATIONS.put("forEach", (s, r) -> s.forEach(record -> { }));
        OPERATIONS.put("forEachView", (s, r) -> s.forEachView(v -> { }));
        OPERATIONS.put("hottest", (s, r) -> s.hottest(3, RegionOrder.TOTAL_NS));
        OPERATIONS.put("hotSet", (s, r) -> s.hotSet(0.95, 1));
        OPERATIONS.put("snapshot", (s, r) -> s.snapshot());
        OPERATIONS.put("add", (s, r) -> s.add(new RegionRecord(NAMES[1], 2, 20, 10, 2)));
        OPERATIONS.put("decay", (s, r) -> s.decay(0.5));
        OPERATIONS.put("info", (s, r) -> s.info());
        OPERATIONS.put("Region.record", (s, r) -> r.record(10, 1));
        OPERATIONS.put("Region.readInto", (s, r) -> r.readInto(new MutableRecord()));
        OPERATIONS.put("Region.dispatchCount", (s, r) -> r.dispatchCount());
        OPERATIONS.put("Region.meanKernelNs", (s, r) -> r.meanKernelNs());
        OPERATIONS.put("Region.isHot", (s, r) -> r.isHot());
        OPERATIONS.put("Region.isHot(threshold)", (s, r) -> r.isHot(10));
    }

    private static void every(Path dir) throws Exception {
        HintStoreOptions options = HintStoreOptions.defaults().capacity(CAPACITY).maxNameBytes(256);
        int n = 0;
        for (long size : new long[] {0, 4096}) {
            for (Map.Entry<String, BiConsumer<HintStore, Region>> op : OPERATIONS.entrySet()) {
                Path file = dir.resolve("every-" + n++ + ".hints");
                String outcome;
                try (HintStore store = HintStore.open(file, options)) {
                    for (int i = 0; i < CAPACITY; i++) {
                        store.record(NAMES[i], 1_000, 1); // full: a new name evicts
                    }
                    Region handle = store.region(NAMES[0]);
                    handle.record(1_000, 1); // resolved
                    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
                        channel.truncate(size);
                    }
                    try {
                        op.getValue().accept(store, handle);
                        outcome = "none";
                    } catch (RuntimeException | Error e) {
                        outcome = describe(e);
                    }
                }
                System.out.println("op " + op.getKey().replace(' ', '_') + " " + size + " " + outcome);
                Files.delete(file);
            }
        }
        System.out.flush();
    }

    private static void step(HintStore store, Region handle, int i) {
        store.record(NAMES[i % NAMES.length], 1_000 + (i & 1023), 4096);
        handle.record(2_000, 8192);
        if ((i & 3) == 0) {
            store.isHot(NAMES[(i >> 2) % NAMES.length]);
            handle.dispatchCount();
        }
    }

    /** {@code TYPE PROBLEM}: the throwable's simple name and, for a file problem, which one. */
    static String describe(Throwable e) {
        Throwable cause = e instanceof UncheckedIOException u ? u.getCause() : e;
        String problem = cause instanceof HintFileException h ? h.problem().toString() : "-";
        return e.getClass().getSimpleName() + " " + problem + " " + String.valueOf(e.getMessage()).replace('\n', ' ');
    }
}
