package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.testkit.Await;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code top --watch} on a file that a native {@code hm-bench} process is writing: in a real
 * pseudo-terminal (util-linux {@code script}) it takes over the screen and redraws in place with
 * rates; through a pipe it prints one table per refresh.
 */
class TopWatchTest {
    private static final String ALTERNATE_SCREEN_ON = "\u001b[?1049h";
    private static final String ALTERNATE_SCREEN_OFF = "\u001b[?1049l";
    private static final String CURSOR_HOME = "\u001b[H";
    /** What the view says once its {@link Screen} hung up. */
    private static final String HUNG_UP = "hintmap top: cannot write standard output: the write failed\n";

    @TempDir
    Path dir;

    @Test
    void inATerminalItRedrawsInPlaceWithRatesOfALiveFileAndRestoresTheScreen() throws Exception {
        Path file = dir.resolve("live.hints");
        Process writer = Cli.hmBench(file, 30, "pty_kernel_", 6);
        try {
            awaitFile(file);
            List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(),
                    "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                    HintmapCli.class.getName(), "top", "--watch", "--interval", "500", "--iterations", "3", "-n", "4",
                    file.toString()));
            Path screen = dir.resolve("screen.out");
            ProcessBuilder pty = new ProcessBuilder("script", "-q", "-f", "-e", "-c", shellQuote(command), "/dev/null")
                    .redirectOutput(screen.toFile()).redirectErrorStream(true);
            pty.environment().put("TERM", "xterm-256color");
            pty.environment().put("COLUMNS", "160");
            pty.environment().put("LINES", "40");
            Process top = pty.start();
            assertTrue(top.waitFor(120, TimeUnit.SECONDS), "top --watch --iterations 3 finished");
            String out = Files.readString(screen, StandardCharsets.UTF_8);
            assertEquals(0, top.exitValue(), out);
            int on = out.indexOf(ALTERNATE_SCREEN_ON);
            int off = out.lastIndexOf(ALTERNATE_SCREEN_OFF);
            assertTrue(on >= 0 && off > on, "entered and left the alternate screen:\n" + visible(out));
            String session = out.substring(on, off);
            assertEquals(3, count(session, CURSOR_HOME), "one redraw from the top-left corner per refresh");
            assertTrue(session.contains("refresh 3 of 3"), visible(session));
            String[] frames = session.split(Pattern.quote(CURSOR_HOME));
            String last = frames[frames.length - 1];
            assertTrue(last.contains("RATE") && last.contains("pty_kernel_00000"), visible(last));
            Matcher rate = Pattern.compile("pty_kernel_\\d{5}\\s+(HOT\\s+)?(SLOW\\s+)?[\\d,]+\\s+([\\d,.]+)/s").matcher(last);
            assertTrue(rate.find(), visible(last));
            assertTrue(Double.parseDouble(rate.group(3).replace(",", "")) > 0,
                    "the live writer's dispatches show as a rate:\n" + visible(last));
            assertTrue(Pattern.compile("\u001b\\[\\?[\\d;]*25h").matcher(out.substring(off - 40)).find(),
                    "the cursor is shown again:\n" + visible(out.substring(off - 40)));
        } finally {
            writer.destroyForcibly();
            writer.waitFor();
        }
    }

    /**
     * Standard output of a live view that a test reads while it runs and then hangs up, as a
     * reader of a pipe goes away: the next write fails, and the view ends. A writer handed to
     * {@link HintmapCli#run} keeps why it failed to itself, so that is exit 4 with one line (a
     * process whose pipe lost its reader ends quietly with 141: {@link StandardOutputTest}). The
     * test waits on what the view printed, never on time.
     */
    static final class Screen extends Writer {
        private final StringBuilder text = new StringBuilder();
        private boolean hungUp;

        @Override
        public synchronized void write(char[] c, int off, int len) throws IOException {
            if (hungUp) {
                throw new IOException("the reader went away");
            }
            text.append(c, off, len);
        }

        @Override
        public synchronized void flush() throws IOException {
            if (hungUp) {
                throw new IOException("the reader went away");
            }
        }

        @Override
        public void close() {}

        synchronized String text() {
            return text.toString();
        }

        synchronized void hangUp() {
            hungUp = true;
        }

        /** Waits until {@code what} was printed; fails at once if {@code top} ended first, or on a hang ({@link Await}). */
        void await(Supplier<String> where, String what, Thread top) throws Exception {
            Await.until(() -> "\"" + what + "\" printed:\n" + where.get(), () -> {
                boolean printed = where.get().contains(what);
                assertTrue(printed || top.isAlive(), "\"" + what + "\" printed before top ended:\n" + where.get());
                return printed;
            });
        }
    }

    /** A live view of {@code file} with no --iterations, on a thread; stdout goes to {@code screen}; names whole (-w). */
    private static Thread watch(Path file, Screen screen, StringWriter err, int[] exit) {
        return Thread.ofPlatform().start(() -> exit[0] = HintmapCli.run(new String[] {"top", "--watch", "--interval", "20",
                "--wide", file.toString()}, new PrintWriter(screen, true), new PrintWriter(err, true)));
    }

    /** Issue 12: started before the runtime, the live view waits for the file, then shows it. */
    @Test
    void onAFileThatDoesNotExistYetItWaitsThenShowsIt() throws Exception {
        Path file = dir.resolve("later.hints");
        Screen screen = new Screen();
        StringWriter err = new StringWriter(); // synchronized: safe to poll
        int[] exit = {-1};
        Thread top = watch(file, screen, err, exit);
        screen.await(err::toString, "waiting for " + file, top);
        assertEquals("", screen.text(), "nothing shown before the file exists");
        Cli.writtenByJava(file);
        screen.await(screen::text, "regions 12/12", top);
        screen.hangUp();
        top.join(TimeUnit.SECONDS.toMillis(60));
        assertFalse(top.isAlive(), "the view ended when its reader went away");
        assertEquals(ExitCode.IO_ERROR, exit[0], err.toString());
        assertEquals("waiting for " + file + "\n" + HUNG_UP, err.toString(), "said once");
    }

    /** Issue 23: a file removed under the view is waited for again, and the one created at its path shown. */
    @Test
    void aFileRemovedUnderTheViewIsWaitedForAgainAndTheNextOneShown() throws Exception {
        Path file = Cli.writtenByJava(dir.resolve("removed.hints"));
        Screen screen = new Screen();
        StringWriter err = new StringWriter();
        int[] exit = {-1};
        Thread top = watch(file, screen, err, exit);
        screen.await(screen::text, "--- refresh 2 at ", top);
        Files.delete(file);
        screen.await(err::toString, "waiting for " + file, top);
        String kernel = "void at::native::vectorized_elementwise_kernel<4, CUDAFunctor_add<float>>(int)";
        // Made beside and renamed into place: a view that read the new file between its creation and its
        // first record would take that empty file for the previous refresh and show rates, as it should.
        Path made = dir.resolve("next.hints");
        try (HintStore next = HintStore.open(made,
                HintStoreOptions.defaults().maxNameBytes(128))) {
            next.record(kernel, 250_000, 1 << 20);
        }
        Files.move(made, file, StandardCopyOption.ATOMIC_MOVE);
        screen.await(screen::text, "vectorized_elementwise_kernel", top);
        screen.hangUp();
        top.join(TimeUnit.SECONDS.toMillis(60));
        assertFalse(top.isAlive());
        assertEquals(ExitCode.IO_ERROR, exit[0], err.toString());
        assertEquals("waiting for " + file + "\n" + HUNG_UP, err.toString());
        String[] frames = screen.text().split("--- refresh ");
        assertTrue(frames[1].contains("gemm_bf16_128x128x64"), frames[1]);
        String firstOfTheNewFile = Arrays.stream(frames).filter(f -> f.contains("vectorized_elementwise_kernel"))
                .findFirst().orElseThrow();
        assertFalse(firstOfTheNewFile.contains("gemm_bf16_128x128x64"), firstOfTheNewFile);
        assertFalse(firstOfTheNewFile.contains("RATE"), "no rates across two files:\n" + firstOfTheNewFile);
    }

    /** Issue 22: --iterations N ends also while the file is missing: each interval waited counts, and no file is exit 3. */
    @Test
    void withIterationsItEndsWhileTheFileIsMissingWithExitThree() {
        Path file = dir.resolve("never.hints");
        Cli.Result r = Cli.run("top", "--watch", "--interval", "10", "--iterations", "3", file.toString())
                .expect(ExitCode.BAD_FILE);
        assertEquals("", r.out());
        assertEquals(List.of("waiting for " + file, "hintmap top: " + file + ": no such hint file"), r.err().lines().toList());
    }

    @Test
    void throughAPipeItPrintsOneTablePerRefresh() throws Exception {
        Path file = Cli.writtenByC(dir.resolve("plain.hints"));
        String out = Cli.run("top", "--watch", "--interval", "50", "--iterations", "3", "-n", "2", file.toString())
                .expect(0).out();
        assertFalse(out.contains("\u001b"), "no escape sequences when not on a terminal");
        assertEquals(3, count(out, "--- refresh "), out);
        assertTrue(out.contains("--- refresh 3 at "), out);
        String second = out.split("--- refresh 2 at ")[1];
        assertTrue(second.contains("RATE") && second.contains("0.0/s"), "a file nobody writes has zero rates:\n" + out);
    }

    @Test
    void theLiveViewFollowsAFileRenamedOntoItsPath() throws Exception {
        Path file = Cli.writtenByJava(dir.resolve("watched.hints"));
        Path replacement = dir.resolve("replacement.hints");
        try (HintStore other = HintStore.open(replacement, HintStoreOptions.defaults())) {
            other.record("arrived_after_the_rename", 5_000_000, 1);
        }
        StringWriter screen = new StringWriter();
        Thread renamer = Thread.ofPlatform().start(() -> {
            try {
                // rename once the second frame is out: frames 1-2 show the old file, frame 5 the new
                Await.until("a second frame", () -> screen.toString().contains("--- refresh 2 at "));
                Files.move(replacement, file, StandardCopyOption.ATOMIC_MOVE,
                        StandardCopyOption.REPLACE_EXISTING);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        int exit = HintmapCli.run(new String[] {"top", "--watch", "--interval", "400", "--iterations", "5", "--wide",
                file.toString()},
                new PrintWriter(screen, true), new PrintWriter(new StringWriter(), true));
        renamer.join();
        assertEquals(0, exit);
        String out = screen.toString();
        String[] frames = out.split("--- refresh ");
        assertTrue(frames[1].contains("gemm_bf16_128x128x64") && !frames[1].contains("arrived_after_the_rename"), out);
        assertTrue(frames[5].contains("arrived_after_the_rename") && !frames[5].contains("gemm_bf16_128x128x64"), out);
    }

    private static void awaitFile(Path file) throws Exception {
        Await.until("hm-bench created " + file, () -> Files.exists(file));
        // a few hundred samples in, so that rates are above 0
        Await.until("hm-bench recorded 300 samples into " + file, () -> dispatches(file) >= 300);
    }

    private static long dispatches(Path file) {
        try (HintStore store = HintStore.open(file,
                HintStoreOptions.defaults().readOnly(true))) {
            long[] total = new long[1];
            store.snapshot().regions().forEach(r -> total[0] += r.dispatchCount());
            return total[0];
        } catch (IOException | RuntimeException e) {
            return 0; // not published yet
        }
    }

    static String shellQuote(List<String> words) {
        StringBuilder b = new StringBuilder();
        for (String w : words) {
            b.append(b.isEmpty() ? "" : " ").append('\'').append(w.replace("'", "'\\''")).append('\'');
        }
        return b.toString();
    }

    private static int count(String s, String what) {
        int n = 0;
        for (int i = s.indexOf(what); i >= 0; i = s.indexOf(what, i + what.length())) {
            n++;
        }
        return n;
    }

    private static String visible(String s) {
        return s.replace("\u001b", "<ESC>").replace("\r", "");
    }
}
