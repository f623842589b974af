package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
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
            Matcher rate = Pattern.compile("pty_kernel_\\d{5}\\s+(HOT)?\\s+[\\d,]+\\s+([\\d,.]+)/s").matcher(last);
            assertTrue(rate.find(), visible(last));
            assertTrue(Double.parseDouble(rate.group(2).replace(",", "")) > 0,
                    "the live writer's dispatches show as a rate:\n" + visible(last));
            assertTrue(Pattern.compile("\u001b\\[\\?[\\d;]*25h").matcher(out.substring(off - 40)).find(),
                    "the cursor is shown again:\n" + visible(out.substring(off - 40)));
        } finally {
            writer.destroyForcibly();
            writer.waitFor();
        }
    }

    /** Issue 12: started before the runtime, the live view waits for the file, then shows it. */
    @Test
    void onAFileThatDoesNotExistYetItWaitsThenShowsIt() throws Exception {
        Path file = dir.resolve("later.hints");
        java.io.StringWriter out = new java.io.StringWriter();
        java.io.StringWriter err = new java.io.StringWriter();
        int[] exit = {-1};
        Thread top = new Thread(() -> exit[0] = HintmapCli.run(new String[] {"top", "--watch", "--interval", "20",
                "--iterations", "2", file.toString()}, new java.io.PrintWriter(out, true), new java.io.PrintWriter(err, true)));
        top.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!err.toString().contains("waiting for")) { // StringWriter is synchronized: safe to poll
            assertTrue(System.nanoTime() < deadline && top.isAlive(), "says it waits: " + err + out);
            Thread.sleep(10);
        }
        Thread.sleep(100); // lets it retry the open a few times while the file is missing (said once all the same)
        assertEquals("", out.toString(), "nothing shown before the file exists");
        Cli.writtenByJava(file);
        top.join(TimeUnit.SECONDS.toMillis(60));
        assertFalse(top.isAlive(), "top --watch --iterations 2 finished once the file appeared");
        assertEquals(0, exit[0], err.toString());
        assertEquals("waiting for " + file + "\n", err.toString());
        assertEquals(2, count(out.toString(), "--- refresh "), out.toString());
        assertTrue(out.toString().contains("regions 12/12"), "the file's regions are shown:\n" + out);
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
        try (dev.hintmap.HintStore other = dev.hintmap.HintStore.open(replacement, dev.hintmap.HintStoreOptions.defaults())) {
            other.record("arrived_after_the_rename", 5_000_000, 1);
        }
        java.io.StringWriter screen = new java.io.StringWriter();
        Thread renamer = Thread.ofPlatform().start(() -> {
            try {
                // rename once the second frame is out: frames 1-2 show the old file, frame 5 the new
                long deadline = System.nanoTime() + 60_000_000_000L;
                while (!screen.toString().contains("--- refresh 2 at ")) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("no second frame within 60 s");
                    }
                    Thread.sleep(5);
                }
                Files.move(replacement, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE,
                        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        int exit = HintmapCli.run(new String[] {"top", "--watch", "--interval", "400", "--iterations", "5", file.toString()},
                new java.io.PrintWriter(screen, true), new java.io.PrintWriter(new java.io.StringWriter(), true));
        renamer.join();
        assertEquals(0, exit);
        String out = screen.toString();
        String[] frames = out.split("--- refresh ");
        assertTrue(frames[1].contains("gemm_bf16_128x128x64") && !frames[1].contains("arrived_after_the_rename"), out);
        assertTrue(frames[5].contains("arrived_after_the_rename") && !frames[5].contains("gemm_bf16_128x128x64"), out);
    }

    private static void awaitFile(Path file) throws InterruptedException {
        for (int i = 0; i < 200 && !Files.exists(file); i++) {
            Thread.sleep(50);
        }
        assertTrue(Files.exists(file), "hm-bench created " + file);
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (dispatches(file) < 300) { // a few hundred samples in, so that rates are above 0
            assertTrue(System.nanoTime() < deadline, "hm-bench recorded 300 samples into " + file);
            Thread.sleep(20);
        }
    }

    private static long dispatches(Path file) {
        try (dev.hintmap.HintStore store = dev.hintmap.HintStore.open(file,
                dev.hintmap.HintStoreOptions.defaults().readOnly(true))) {
            long[] total = new long[1];
            store.forEach(r -> total[0] += r.dispatchCount());
            return total[0];
        } catch (java.io.IOException | RuntimeException e) {
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
