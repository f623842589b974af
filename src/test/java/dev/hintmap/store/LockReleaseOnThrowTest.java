package dev.hintmap.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.testkit.Await;
import dev.hintmap.testkit.ChildJvm;
import dev.hintmap.testkit.FileChild;
import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.format.FileGeometry;
import dev.hintmap.format.Layouts;
import dev.hintmap.store.HeldLockProbe.Section;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Reliability round 2, finding 1: a throwable inside any critical section (a
 * {@code StackOverflowError} of a caller deep in recursion, an {@code InternalError}, a runtime
 * exception) leaves both lock words 0, and another process then records into the same regions
 * without waiting for the 5 s limit (a leaked lock would make it wait and drop its samples, which
 * the exact counts below would show). A throwable out of a lock's acquire after its CAS, or out of
 * its release, leaves the lock behind: the store's sweep frees it once it has made no progress for
 * the leak period (LeakedLockSweep; 20 ms here).
 */
class LockReleaseOnThrowTest {
    private static final int CAPACITY = 4;
    private static final FileGeometry GEOMETRY = new FileGeometry(CAPACITY, 64);
    private static final List<Supplier<Throwable>> THROWABLES = List.of(
            () -> new StackOverflowError("injected"),
            () -> new InternalError("injected"),
            () -> new IllegalStateException("injected"));

    @TempDir
    Path dir;

    /** Throws the armed throwable once, the next time {@code section} is entered. */
    private static final class ThrowOnce implements HeldLockProbe {
        private final Section section;
        private Throwable armed;
        private boolean fired;

        ThrowOnce(Section section) {
            this.section = section;
        }

        @Override
        public void whileHeld(Section entered) {
            if (entered == section && armed != null) {
                Throwable t = armed;
                armed = null;
                fired = true;
                if (t instanceof Error e) {
                    throw e;
                }
                throw (RuntimeException) t;
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Section.class)
    void aThrowableInsideTheSectionLeavesNoLockHeldAndAnotherProcessRecordsAtOnce(Section section) throws Exception {
        Path file = dir.resolve(section + ".hints");
        HintStoreOptions options = HintStoreOptions.defaults().capacity(CAPACITY);
        List<String> regions = List.of("a", "b", "c", "d");
        try (HintStore store = HintStore.open(file, options)) {
            for (String r : regions) {
                store.record(r, 1_000, 1); // full: a new name evicts
            }
        }
        int round = 0;
        for (Supplier<Throwable> throwable : THROWABLES) {
            boolean[] failedStore = new boolean[1];
            ThrowOnce probe = new ThrowOnce(section);
            try (HintStore store = ProbedEngine.open(file, options, StoreSettings.DEFAULT.leakedLockNanos(20_000_000L), probe)) {
                if (section == Section.RECOVERY_SLOT) {
                    withRawMapping(file, m -> { // slot 0's change "crashed" past §7.4 step 7: BUSY, freed by §8 step 1
                        long gen = Slots.gen(new Slots(GEOMETRY).slot(0));
                        Memory.releaseLong(m.segment, gen, Memory.plainLong(m.segment, gen) | 1);
                        Memory.releaseLong(m.segment, Layouts.HDR_JOURNAL_SLOT, 1);
                    });
                } else if (section == Section.REBUILD_READ) {
                    withRawMapping(file, m -> { // a change "crashed" with index_seq odd: §8 step 2 rebuilds the index
                        Memory.releaseLong(m.segment, Layouts.HDR_INDEX_SEQ, Memory.plainLong(m.segment, Layouts.HDR_INDEX_SEQ) | 1);
                    });
                }
                probe.armed = throwable.get();
                String fresh = "new" + round++;
                Throwable thrown = assertThrows(Throwable.class, () -> operation(section, store, fresh));
                assertTrue(probe.fired, section + " was entered");
                assertInjected(probe, thrown);
                failedStore[0] = thrown instanceof UncheckedIOException; // a fault makes the store unusable
                if (!failedStore[0] && (section == Section.ACQUIRED || section == Section.RELEASE)) {
                    giveBackTheSuspect(store, file);
                }
            }
            // A store failed by a fault cannot sweep a lock left behind; closing it released its
            // writer entry, so the lock names a dead owner and the next writer takes it at once.
            boolean deadOwnerAllowed = failedStore[0] && (section == Section.ACQUIRED || section == Section.RELEASE);
            withRawMapping(file, m -> assertNoLockHeld(m, section, deadOwnerAllowed));
        }
        if (section == Section.REBUILD_READ) {
            // a rebuild abandoned by a throwable leaves index_seq odd and the index half rebuilt, as a
            // crash does: lookups miss until the next insertion recovers (§8), so let one do that first
            try (HintStore store = HintStore.open(file, options)) {
                store.record("recovers", 1, 1);
            }
        }
        // another process: every region recorded exactly once more, with no wait and no drop
        List<String> live = new ArrayList<>();
        try (HintStore store = HintStore.open(file, options.readOnly(true))) {
            store.snapshot().regions().forEach(r -> live.add(r.name()));
        }
        long[] before = counts(file, live);
        List<String> args = new ArrayList<>(List.of("record", file.toString(), "3"));
        args.addAll(live);
        assertEquals("recorded", ChildJvm.run(FileChild.class, args.toArray(String[]::new)).strip());
        long[] after = counts(file, live);
        for (int i = 0; i < live.size(); i++) {
            assertEquals(before[i] + 3, after[i], "region " + live.get(i) + " took all 3 samples of the other process");
        }
    }

    /** Records elsewhere until the lock left behind is 0 again: the store's sweep frees it. */
    private static void giveBackTheSuspect(HintStore store, Path file) throws IOException {
        Slots slots = new Slots(GEOMETRY);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Await.LIMIT_SECONDS); // the sweep takes 20 ms
        while (true) {
            long[] held = new long[1];
            withRawMapping(file, m -> {
                for (int k = 0; k < CAPACITY; k++) {
                    held[0] |= Memory.acquireLong(m.segment, Slots.lock(slots.slot(k)));
                }
                held[0] |= Memory.acquireLong(m.segment, Layouts.HDR_STRUCT_LOCK);
            });
            if (held[0] == 0) {
                return;
            }
            assertTrue(System.nanoTime() < deadline, "the lock left behind was freed by the sweep");
            store.isHot("b"); // a reader takes no lock: the write below does
            store.record("b", 1_000, 1);
        }
    }

    private static void operation(Section section, HintStore store, String fresh) {
        switch (section) {
            case RECORD_SLOT, ACQUIRED, RELEASE -> store.record("a", 2_000, 2);
            case DECAY_SLOT -> store.decay(0.5);
            case VICTIM_SLOT, INSERT_SLOT, INSERT_STRUCTURE, RECOVERY_SLOT, REBUILD_READ -> store.record(fresh, 3_000, 3);
        }
    }

    /** What reaches the caller: the injected throwable, or the file fault it stands for (an InternalError). */
    private static void assertInjected(ThrowOnce probe, Throwable thrown) {
        if (thrown instanceof UncheckedIOException e) {
            assertTrue(e.getCause().getCause() instanceof InternalError, "a fault is reported as a file problem: " + e);
        } else {
            assertEquals("injected", thrown.getMessage(), "the injected throwable itself: " + thrown);
        }
    }

    private static void assertNoLockHeld(Memory m, Section section, boolean deadOwnerAllowed) {
        Slots slots = new Slots(GEOMETRY);
        WriterTable writers = new WriterTable(m, GEOMETRY, null);
        for (int k = -1; k < CAPACITY; k++) {
            long word = Memory.acquireLong(m.segment, k < 0 ? Layouts.HDR_STRUCT_LOCK : Slots.lock(slots.slot(k)));
            String what = (k < 0 ? "struct_lock" : "slot " + k + " lock") + " after a throw in " + section;
            if (deadOwnerAllowed && word != 0) {
                assertEquals(0L, writers.token((int) (word & 0xFFFF_FFFFL) - 1), what + " names a released entry");
            } else {
                assertEquals(0L, word, what);
            }
        }
    }

    private static long[] counts(Path file, List<String> regions) throws IOException {
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().readOnly(true))) {
            return regions.stream().mapToLong(name -> store.dispatchCount(name)).toArray();
        }
    }

    private static void withRawMapping(Path file, Consumer<Memory> action) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
                Arena arena = Arena.ofConfined()) {
            MemorySegment segment = channel.map(FileChannel.MapMode.READ_WRITE, 0, channel.size(), arena);
            action.accept(new Memory(segment));
        }
    }
}
