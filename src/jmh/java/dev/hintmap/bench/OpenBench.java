package dev.hintmap.bench;

import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import net.openhft.chronicle.map.ChronicleMap;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

/**
 * Open (and close) an existing, full file of {@code capacity} slots and read its size. An open
 * that does not scan the slots costs the same at 256 and 1,048,576. hintmap and Chronicle Map
 * (the other persisted store with its own index); Agrona counters keep no index in the file, so
 * reopening them means scanning every counter's label.
 *
 * <pre>./mvnw -Pjmh clean test-compile exec:exec@jmh -Djmh.args="OpenBench -f 1 -wi 2 -w 1s -i 3 -r 1s -prof gc -jvmArgsAppend -Xmx4g"</pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@State(Scope.Benchmark)
public class OpenBench {
    @Param({"256", "1048576"})
    public int capacity;

    @Param({"HINTMAP", "CHRONICLE"})
    public StoreKind store;

    Path file;

    @Setup
    public void setUp() throws IOException {
        file = StoreKind.directory().resolve("open-" + ProcessHandle.current().pid() + "-" + store + "-" + capacity);
        Files.deleteIfExists(file);
        String[] names = Workload.names(capacity);
        if (store == StoreKind.HINTMAP) {
            try (HintStore s = HintStore.open(file, HintStoreOptions.defaults().capacity(capacity))) {
                for (String name : names) {
                    s.record(name, 50_000, 400_000);
                }
            }
        } else {
            try (ChronicleMap<CharSequence, ChronicleHintValue> m = ChronicleStore.open(file, capacity)) {
                ChronicleHintValue v = net.openhft.chronicle.values.Values.newHeapInstance(ChronicleHintValue.class);
                v.setCount(1);
                for (String name : names) {
                    m.put(name, v);
                }
            }
        }
        if (open() != capacity) {
            throw new IllegalStateException("reopened " + store + " file does not hold " + capacity + " regions");
        }
    }

    @TearDown
    public void tearDown() throws IOException {
        Files.deleteIfExists(file);
    }

    /**
     * Diagnostic step (run for HINTMAP only): what any Java open of this file through FFM costs at
     * least, with no format at all: open the channel, map the whole file into a shared arena, read one
     * word, close the arena (a thread handshake) and the channel.
     */
    @Benchmark
    @Threads(1)
    public long mapOnly() throws IOException {
        try (Arena arena = Arena.ofShared();
             FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            MemorySegment s = ch.map(FileChannel.MapMode.READ_WRITE, 0, ch.size(), arena);
            return s.get(ValueLayout.JAVA_LONG, 0);
        }
    }

    @Benchmark
    @Threads(1)
    public int open() throws IOException {
        if (store == StoreKind.HINTMAP) {
            try (HintStore s = HintStore.open(file, HintStoreOptions.defaults())) {
                return s.size();
            }
        }
        try (ChronicleMap<CharSequence, ChronicleHintValue> m = ChronicleStore.open(file, capacity)) {
            return m.size();
        }
    }
}
