package dev.hintmap.torture;

import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.Region;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The Java twin of native-bench's hm-crash-writer, meant to be killed with SIGKILL: records
 * round-robin into region-00000.., counting each completed sample in its own progress file
 * (R little-endian u64) with a release store, so that a kill loses at most the one sample in
 * flight. Samples are kernel_ns = 1000 + r, bytes = r.
 *
 * <p>{@code CrashWriter FILE PROGRESS_FILE REGIONS [RECORDS] [--handles]}
 */
public final class CrashWriter {
    private static final VarHandle COUNTER = ValueLayout.JAVA_LONG.varHandle();

    private CrashWriter() {}

    public static void main(String[] args) throws Exception {
        int regions = Integer.parseInt(args[2]);
        long records = args.length > 3 && !args[3].startsWith("-") ? Long.parseLong(args[3]) : 0;
        boolean handles = args[args.length - 1].equals("--handles");
        try (FileChannel channel = FileChannel.open(Path.of(args[1]), StandardOpenOption.CREATE,
                StandardOpenOption.READ, StandardOpenOption.WRITE);
                Arena arena = Arena.ofShared();
                HintStore store = HintStore.open(Path.of(args[0]), HintStoreOptions.defaults())) {
            MemorySegment progress = channel.map(FileChannel.MapMode.READ_WRITE, 0, 8L * regions, arena);
            String[] names = new String[regions];
            Region[] handle = new Region[regions];
            for (int r = 0; r < regions; r++) {
                names[r] = String.format("region-%05d", r);
                handle[r] = store.region(names[r]);
            }
            System.out.println("ready");
            System.out.flush();
            for (long i = 0; records == 0 || i < records; i++) {
                int r = (int) (i % regions);
                if (handles) {
                    handle[r].record(1000 + r, r);
                } else {
                    store.record(names[r], 1000 + r, r);
                }
                // release: the sample is complete in the hint file before the progress counts it
                COUNTER.setRelease(progress, 8L * r, (long) COUNTER.get(progress, 8L * r) + 1);
            }
        }
    }
}
