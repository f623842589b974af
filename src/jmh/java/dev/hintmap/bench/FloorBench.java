package dev.hintmap.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;

/**
 * Diagnostic (not a store): the Java twin of {@code hm-floor}'s {@code lock} variant. Exactly the
 * raw operations of one record under the slot lock (CAS the lock word with acquire, load gen,
 * release fence, load seq, 4 loads of the current copy, 4 stores into the next copy, release store
 * of seq, store of the referenced word, release store of the lock) on one slot-shaped 128-byte
 * block of a MAP_SHARED file, through a {@code static final MemorySegment} (the best case for FFM:
 * C2 folds the segment, as the library's constant segment does) and a {@code VarHandle}. No name,
 * no lookup, no library checks. With {@code hm-floor lock} (C, same operations) it splits the gap
 * between a {@code Region} record and the C floor into "what the JVM's memory access costs"
 * ({@code FloorBench} − {@code hm-floor}) and "what the library adds on top" (Region record −
 * {@code FloorBench}). The block's offsets are this benchmark's own (control line: lock 0, gen 8,
 * seq 16, referenced 24; copies at 64 and 96), not read from FORMAT.md, so the file format work
 * does not change it.
 *
 * <pre>./mvnw -Pjmh validate exec:exec@jmh -Djmh.args="FloorBench -f 1 -wi 2 -w 1s -i 3 -r 1s -prof gc"</pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Thread)
public class FloorBench {
    private static final long LOCK = 0;
    private static final long GEN = 8;
    private static final long SEQ = 16;
    private static final long REFERENCED = 24;
    private static final long COPIES = 64;
    private static final long COPY_BYTES = 32;
    private static final long OWNER = 1L << 32 | 1;
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final MemorySegment SLOT = map();

    private static MemorySegment map() {
        Path file = StoreKind.directory().resolve("floor-" + ProcessHandle.current().pid());
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            ch.write(java.nio.ByteBuffer.allocate(4096));
            MemorySegment s = ch.map(FileChannel.MapMode.READ_WRITE, 0, 4096, Arena.global());
            Files.delete(file); // the mapping stays
            return s;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    int i;

    private static long satAdd(long a, long b) {
        long r = a + b;
        return r < 0 ? Long.MAX_VALUE : r;
    }

    @Benchmark
    @Threads(1)
    public void lock_1t() {
        long ns = (i++ & 1023) + 1;
        MemorySegment s = SLOT;
        while (!LONG.compareAndSet(s, LOCK, 0L, OWNER)) {
            Thread.onSpinWait();
        }
        if ((long) LONG.get(s, GEN) != 0) {
            throw new IllegalStateException("gen moved");
        }
        VarHandle.releaseFence();
        long seq = (long) LONG.get(s, SEQ);
        long cur = COPIES + (seq & 1) * COPY_BYTES;
        long nxt = COPIES + ((seq + 1) & 1) * COPY_BYTES;
        long c = (long) LONG.get(s, cur);
        long t = (long) LONG.get(s, cur + 8);
        long m = (long) LONG.get(s, cur + 16);
        long b = (long) LONG.get(s, cur + 24);
        LONG.set(s, nxt, satAdd(c, 1));
        LONG.set(s, nxt + 8, satAdd(t, ns));
        LONG.set(s, nxt + 16, Math.max(m, ns));
        LONG.set(s, nxt + 24, satAdd(b, 64));
        LONG.setRelease(s, SEQ, seq + 1);
        LONG.set(s, REFERENCED, 1L);
        LONG.setRelease(s, LOCK, 0L);
    }
}
