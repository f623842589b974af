package dev.hintmap.torture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.hintmap.testkit.ChildJvm;
import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Files truncated under a recording JVM, round after round (issue 27; docs/archive/RELIABILITY.md
 * "Truncation under a writer"): one child JVM ({@link TruncationChild}) records until the
 * parent truncates the file under it, reports what it caught, and starts the next round on a
 * fresh file; a child that crashes is counted, its {@code hs_err} file read for the frame that
 * faulted, and replaced.
 *
 * <p>What is deterministic is asserted: JIT-compiled code never crashes; every round that the child
 * survives ends as {@link TruncationOutcome} says: the first failed call throws
 * {@code UncheckedIOException(TRUNCATED)} or, compiled only, the JVM's own {@code InternalError}
 * for a fault in an unsafe access (HotSpot raises it at the next safepoint poll, which may come
 * after the library's {@code try}: HintStore's class Javadoc allows it), {@code checkFile()} then
 * says {@code TRUNCATED}, and the store stays unusable. The interpreter
 * (here {@code -Xint}, in production the first moments of a JVM) has one window the JDK does
 * not guard: a compare-and-set on a page that went between the load before it and the CAS
 * itself. Its rate is measured and printed, not asserted, and every crash must be that one
 * (SIGBUS in {@code Unsafe_CompareAndSet*}); anything else fails.
 *
 * <p>Short mode in {@code ./mvnw verify}; the long mode of the RELIABILITY figure:
 * {@code ./mvnw test -Dtest=TruncationUnderWriterTest -Dhintmap.truncation.rounds=1000}.
 */
class TruncationUnderWriterTest {
    private static final int ROUNDS = Integer.getInteger("hintmap.truncation.rounds", 0);
    private static final long SEED = Long.getLong("hintmap.truncation.seed", System.nanoTime());

    @TempDir
    Path dir;

    /**
     * Every public method that touches the mapping, called on a file already truncated (to 0 and to
     * one page), throws {@code UncheckedIOException(TRUNCATED)}: interpreted (every access of the
     * interpreter that the JDK guards, and the load before each CAS), and JIT-compiled as it comes.
     * The methods that read only the header, {@code size()}, {@code isEmpty()} and {@code evictions()},
     * answer from it while the header page is still there (a truncation to one page);
     * {@code checkFile()} is what tells such a caller.
     */
    @Test
    void everyMethodOnATruncatedFileThrowsTheClearExceptionInterpretedAndCompiled() throws Exception {
        for (List<String> flags : List.of(List.of("-Xint"), List.<String>of())) {
            List<String> command = new ArrayList<>(ChildJvm.builder(TruncationChild.class, "every", dir.toString()).command());
            command.addAll(1, flags);
            Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(child.waitFor(120, TimeUnit.SECONDS), out);
            assertEquals(0, child.exitValue(), flags + " exit (134: a JVM crash):\n" + out);
            List<String> ops = out.lines().filter(l -> l.startsWith("op ")).toList();
            assertEquals(2 * 25, ops.size(), out); // 25 operations, each on a file of 0 and of 4096 bytes
            for (String op : ops) {
                if (op.equals("op size 4096 none") || op.equals("op isEmpty 4096 none") || op.equals("op evictions 4096 none")) {
                    continue; // the header page is still there
                }
                assertTrue(op.matches("op \\S+ \\d+ UncheckedIOException TRUNCATED .*"), flags + ": " + op);
            }
        }
    }

    /**
     * JIT-compiled writers (compiled in the foreground, -Xbatch, before the first truncation): never a
     * crash; the clear exception or the JVM's documented InternalError, then TRUNCATED from
     * {@code checkFile()} and from every later call.
     */
    @Test
    void compiledWritersNeverCrashAndEveryTruncationEndsInTruncated() throws Exception {
        Tally tally = run("compiled", List.of("-Xbatch"), ROUNDS > 0 ? ROUNDS : 12, 200_000, 20_000);
        assertEquals(0, tally.crashes(), tally.toString());
        assertEquals(tally.rounds, tally.clean, tally.toString());
    }

    /**
     * Interpreted writers: every round without a crash is clean; a crash, when one happens, is
     * the JDK's unguarded interpreted CAS and nothing else.
     */
    @Test
    void interpretedWritersEitherThrowTheClearExceptionOrDieOnlyInTheUnguardedCas() throws Exception {
        Tally tally = run("interpreted", List.of("-Xint"), ROUNDS > 0 ? ROUNDS : 6, 0, 0);
        assertEquals(tally.rounds, tally.clean + tally.crashes(), tally.toString());
        tally.crashFrames.forEach((frame, n) -> assertTrue(frame.contains("Unsafe_CompareAndSet")
                || frame.contains("Unsafe_CompareAndExchange"), "a crash outside the known window: " + frame + "\n" + tally));
    }

    /** What the rounds of one mode came to. */
    static final class Tally {
        final String mode;
        int rounds;
        /** Rounds that ended as promised (TruncationOutcome). */
        int clean;
        /** Of those, rounds whose first failed call met the JVM's raw InternalError (compiled only). */
        int rawJvmFaults;
        final Map<String, Integer> crashFrames = new TreeMap<>();
        final Map<String, Integer> javaFrames = new TreeMap<>();

        Tally(String mode) {
            this.mode = mode;
        }

        int crashes() {
            return crashFrames.values().stream().mapToInt(Integer::intValue).sum();
        }

        @Override
        public String toString() {
            return "truncation " + mode + ": " + rounds + " rounds, " + clean + " as promised (" + rawJvmFaults
                    + " of them first met the JVM's InternalError), " + crashes()
                    + " JVM crashes" + (crashFrames.isEmpty() ? "" : " " + crashFrames + " at " + javaFrames)
                    + " (seed " + SEED + ")";
        }
    }

    private Tally run(String mode, List<String> flags, int rounds, int firstWarmup, int warmup) throws Exception {
        Tally tally = new Tally(mode);
        boolean compiled = !flags.contains("-Xint");
        Random random = new Random(SEED);
        Child child = null;
        try {
            for (int round = 0; round < rounds; round++) {
                Path file = dir.resolve("victim-" + round + ".hints");
                try (HintStore store = HintStore.open(file, HintStoreOptions.defaults()
                        .capacity(TruncationChild.CAPACITY).maxNameBytes(256))) {
                    store.record("seed", 1, 1);
                }
                boolean fresh = child == null;
                if (fresh) {
                    child = new Child(flags);
                }
                child.send("round " + round + " " + file + " " + (fresh ? firstWarmup : warmup));
                child.expect("ready " + round);
                Thread.sleep(random.nextInt(20)); // a different moment of the loop each round
                long size = random.nextBoolean() ? 4096 : 0; // truncate(1) to a page; `> file` or cp's O_TRUNC
                try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
                    channel.truncate(size);
                }
                tally.rounds++;
                Process watched = child.process; // a child that hangs is killed, and then fails the round (no hs_err)
                var watchdog = Thread.ofVirtual().start(() -> {
                    try {
                        if (!watched.waitFor(120, TimeUnit.SECONDS)) {
                            watched.destroyForcibly();
                        }
                    } catch (InterruptedException stop) {
                        // the round ended in time
                    }
                });
                List<String> lines = child.until("closed " + round);
                watchdog.interrupt();
                if (lines == null) {
                    crashed(child, tally);
                    child = null;
                } else {
                    String caught = find(lines, "caught " + round + " ");
                    String problem = TruncationOutcome.problem(compiled, caught, find(lines, "check " + round + " "),
                            find(lines, "then " + round + " "));
                    if (problem != null) {
                        fail("round " + round + " (" + mode + ", truncated to " + size + "): " + problem + "\n" + lines);
                    }
                    tally.clean++;
                    if (!caught.startsWith("UncheckedIOException")) {
                        tally.rawJvmFaults++;
                    }
                }
                Files.deleteIfExists(file);
            }
        } finally {
            if (child != null) {
                child.quit();
            }
        }
        System.out.println(tally);
        return tally;
    }

    private static String find(List<String> lines, String prefix) {
        return lines.stream().filter(l -> l.startsWith(prefix)).map(l -> l.substring(prefix.length())).findFirst()
                .orElse("(no line " + prefix.trim() + ")");
    }

    /** Reads the dead child's hs_err file: the problematic frame and the first Java frame under it. */
    private void crashed(Child child, Tally tally) throws IOException, InterruptedException {
        assertTrue(child.process.waitFor(60, TimeUnit.SECONDS), "a child that stopped talking did not exit");
        Path report = child.workDir.resolve("hs_err_pid" + child.process.pid() + ".log");
        assertTrue(Files.exists(report), "the child died (exit " + child.process.exitValue()
                + ") without an hs_err file: " + child.output);
        List<String> lines = Files.readAllLines(report);
        Path kept = Path.of("target", "truncation-crashes"); // for a reader of the figure: every hs_err of the run
        Files.createDirectories(kept);
        Files.copy(report, kept.resolve(tally.mode + "-" + report.getFileName()));
        String signal = lines.stream().filter(l -> l.matches("#\\s+SIG[A-Z]+ .*")).findFirst().orElse("# ? ").substring(1).trim()
                .split(" ")[0];
        String frame = lines.stream().filter(l -> l.matches("# [VCjJ] .*")).findFirst().orElse("# ?").substring(2)
                .replaceAll("\\+0x[0-9a-f]+", "").replaceAll("\\s+", " ").trim();
        String java = lines.stream().filter(l -> l.matches("[jJ] .*dev\\.hintmap.*")).findFirst().orElse("?")
                .replaceAll("\\+0x[0-9a-f]+", "").replaceAll(" \\(\\d+ bytes\\).*", "").trim();
        if (signal.equals("?")) {
            fail("an hs_err file without a signal line:\n" + String.join("\n", lines.subList(0, Math.min(40, lines.size()))));
        }
        tally.crashFrames.merge(signal + " " + frame, 1, Integer::sum);
        tally.javaFrames.merge(java, 1, Integer::sum);
    }

    /** One child JVM and its conversation. */
    private final class Child {
        final Process process;
        final Path workDir;
        final PrintWriter in;
        final BufferedReader out;
        final StringBuilder output = new StringBuilder();

        Child(List<String> flags) throws IOException {
            List<String> command = new ArrayList<>(ChildJvm.builder(TruncationChild.class).command());
            command.addAll(1, flags);
            workDir = Files.createTempDirectory(dir, "child");
            process = new ProcessBuilder(command).redirectErrorStream(true).directory(workDir.toFile()).start();
            in = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
            out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        }

        void send(String line) {
            in.println(line);
        }

        void expect(String line) throws IOException {
            List<String> lines = until(line);
            if (lines == null) {
                fail("the child ended before '" + line + "': " + output);
            }
        }

        /** The lines up to and including {@code last}; null when the child's output ended first (it died). */
        List<String> until(String last) throws IOException {
            List<String> lines = new ArrayList<>();
            String line;
            while ((line = out.readLine()) != null) {
                output.append(line).append('\n');
                lines.add(line);
                if (line.equals(last)) {
                    return lines;
                }
            }
            return null;
        }

        void quit() throws InterruptedException {
            send("quit");
            in.close();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }
}
