package dev.hintmap.torture;

import dev.hintmap.testkit.ChildJvm;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Writer processes of the torture tests, C and Java, each with its own progress file. */
final class Writers implements AutoCloseable {
    static final Path NATIVE = dev.hintmap.testkit.NativeTools.BUILD;

    enum Kind { C_BY_NAME, C_HANDLES, JAVA_BY_NAME, JAVA_HANDLES }

    record Writer(Kind kind, Process process, Path progress) {}

    private final Path file;
    private final Path dir;
    private final int regions;
    private int started;
    final List<Writer> all = new ArrayList<>();

    Writers(Path file, Path dir, int regions) {
        this.file = file;
        this.dir = dir;
        this.regions = regions;
    }

    Writer start(Kind kind, long records) throws IOException {
        Path progress = dir.resolve("progress-" + (started++) + ".bin");
        Files.write(progress, new byte[8 * regions]);
        List<String> args = new ArrayList<>(List.of(file.toString(), progress.toString(), Integer.toString(regions),
                Long.toString(records)));
        if (kind == Kind.C_HANDLES || kind == Kind.JAVA_HANDLES) {
            args.add("--handles");
        }
        ProcessBuilder builder;
        if (kind == Kind.C_BY_NAME || kind == Kind.C_HANDLES) {
            List<String> command = new ArrayList<>();
            command.add(NATIVE.resolve("hm-crash-writer").toString());
            command.addAll(args);
            builder = new ProcessBuilder(command).redirectErrorStream(true);
        } else {
            builder = ChildJvm.builder(CrashWriter.class, args.toArray(String[]::new));
        }
        builder.redirectOutput(dir.resolve("writer-" + (started - 1) + ".log").toFile());
        Writer w = new Writer(kind, builder.start(), progress);
        all.add(w);
        return w;
    }

    /** Per-region completed samples a writer has counted so far. */
    long[] progress(Writer w) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(w.progress())).order(ByteOrder.LITTLE_ENDIAN);
        long[] counts = new long[regions];
        for (int r = 0; r < regions; r++) {
            counts[r] = b.getLong();
        }
        return counts;
    }

    long progressTotal(Writer w) throws IOException {
        long sum = 0;
        for (long c : progress(w)) {
            sum += c;
        }
        return sum;
    }

    long[] progressAll() throws IOException {
        long[] sum = new long[regions];
        for (Writer w : all) {
            long[] p = progress(w);
            for (int r = 0; r < regions; r++) {
                sum[r] += p[r];
            }
        }
        return sum;
    }

    /** Kills every writer still running, so that a failed test leaves no process behind. */
    @Override
    public void close() {
        for (Writer w : all) {
            w.process().destroyForcibly(); // SIGKILL; the JDK's reaper collects it
        }
    }

    static void kill(Writer w) throws InterruptedException {
        w.process().destroyForcibly(); // SIGKILL
        w.process().waitFor();
    }
}
