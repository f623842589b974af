package dev.hintmap.store;

import dev.hintmap.testkit.Await;
import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.Region;
import dev.hintmap.TestStores;
import dev.hintmap.format.FileGeometry;
import dev.hintmap.format.Layouts;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;

/**
 * A program that records from deep recursion until the stack overflows, at every depth near the
 * limit, so that {@code StackOverflowError}s are thrown at every point inside {@code record()}:
 * by name and by handle into six regions of a store with room for them (so that every count can
 * be checked), and through insertions and evictions into a second, churning store of two slots.
 * Prints, per region, how many calls returned normally ({@code ok NAME N}), and how many threw
 * ({@code overflows N}),
 * then {@code ready}, and keeps the store open until its standard input closes, so that the
 * parent can look at the lock words while this JVM is alive.
 *
 * <p>Run with a small {@code -Xss} (and once with {@code -Xint}): args {@code PATH CHURN_PATH ROUNDS}.
 */
public final class DeepRecursionChild {
    private static final String[] NAMES = {"deep_a", "deep_b", "deep_c", "deep_d", "deep_e", "deep_f"};
    private static final int CHURN = NAMES.length + 1;
    static final long LEAK_PERIOD_NANOS = 50_000_000L;
    private static final int CHURN_CAPACITY = 2;
    private final HintStore store;
    private final HintStore churn;
    private final Region handle;
    private final long[] ok = new long[NAMES.length + 1];
    private long overflows;

    private DeepRecursionChild(HintStore store, HintStore churn) {
        this.store = store;
        this.churn = churn;
        this.handle = store.region(NAMES[0]);
    }

    public static void main(String[] args) throws Exception {
        int rounds = Integer.parseInt(args[2]);
        // A short leak period (production: 1 s), so that the shallow phase below is short too.
        StoreSettings settings = StoreSettings.DEFAULT.leakedLockNanos(LEAK_PERIOD_NANOS);
        try (HintStore store = TestStores.open(Path.of(args[0]), HintStoreOptions.defaults().capacity(8), settings);
                HintStore churn = TestStores.open(Path.of(args[1]), HintStoreOptions.defaults().capacity(CHURN_CAPACITY), settings)) {
            DeepRecursionChild child = new DeepRecursionChild(store, churn);
            for (int round = 0; round < rounds; round++) {
                int limit = child.depthLimit(); // again each round: compiled frames are smaller than interpreted ones
                for (int depth = Math.max(1, limit - 200); depth <= limit + 20; depth++) {
                    child.recordAt(depth, round * 7 + depth);
                }
            }
            // Back at a shallow depth, as a program returns from its recursion and records on: a
            // lock that an overflow left behind is freed by the store's sweep once it has seen it
            // make no progress for the leak period (twice that for the structure lock; LeakedLockSweep).
            // It records until no lock word of either file is held, however long the sweep takes
            // on a loaded machine; the parent then checks the same words (a hang stops at the limit).
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Await.LIMIT_SECONDS);
            try (Arena arena = Arena.ofConfined()) {
                Memory words = readOnly(Path.of(args[0]), arena);
                Memory churnWords = readOnly(Path.of(args[1]), arena);
                while ((anyLockHeld(words, new FileGeometry(8, 64)) || anyLockHeld(churnWords, new FileGeometry(CHURN_CAPACITY, 64)))
                        && System.nanoTime() - deadline < 0) {
                    store.record("shallow", 1, 1);
                    churn.record("shallow", 1, 1);
                }
            }
            for (int i = 0; i < NAMES.length; i++) {
                System.out.println("ok " + NAMES[i] + " " + child.ok[i]);
            }
            System.out.println("ok handle " + child.ok[NAMES.length]);
            System.out.println("overflows " + child.overflows);
            System.out.println("ready");
            System.out.flush();
            System.in.read(); // the parent inspects the file while this JVM, the lock owner, is alive
        }
    }

    private static Memory readOnly(Path file, Arena arena) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            return new Memory(channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size(), arena));
        }
    }

    private static boolean anyLockHeld(Memory m, FileGeometry geometry) {
        Slots slots = new Slots(geometry);
        boolean held = Memory.acquireLong(m.segment, Layouts.HDR_STRUCT_LOCK) != 0;
        for (int k = 0; k < geometry.capacity(); k++) {
            held |= Memory.acquireLong(m.segment, Slots.lock(slots.slot(k))) != 0;
        }
        return held;
    }

    /** The recursion depth at which a bare descent overflows. */
    private int depthLimit() {
        int depth = 16;
        while (true) {
            try {
                descend(depth, -1, 0);
            } catch (StackOverflowError e) {
                return depth;
            }
            depth += 16;
        }
    }

    private void recordAt(int depth, int which) {
        try {
            descend(depth, which % (CHURN + 1), which);
        } catch (StackOverflowError e) {
            overflows++;
        }
    }

    private void descend(int depth, int which, long ns) {
        if (depth > 0) {
            descend(depth - 1, which, ns + 1); // a frame per level, not inlined away
            return;
        }
        if (which < 0) {
            return;
        }
        if (which == CHURN) {
            churn.record("churn_" + ns % 5, 1_000 + ns, 8); // five names, two slots: insertions and evictions
            return;
        }
        if (which == NAMES.length) {
            handle.record(1_000 + ns, 8);
        } else {
            store.record(NAMES[which], 1_000 + ns, 8);
        }
        ok[which]++; // counted only when record() returned
    }
}
