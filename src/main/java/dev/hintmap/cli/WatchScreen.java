package dev.hintmap.cli;

import dev.hintmap.HintSnapshot;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.locks.LockSupport;
import org.jline.terminal.Attributes;
import org.jline.terminal.Terminal;
import org.jline.terminal.TerminalBuilder;
import org.jline.utils.InfoCmp.Capability;
import org.jline.utils.NonBlockingReader;

/**
 * The refresh loop of {@code top --watch}. On a terminal it takes over the screen (alternate
 * screen, hidden cursor, raw input), redraws every frame in place from the top-left corner and
 * restores everything on the way out, also after Ctrl-C; {@code q} quits. Elsewhere (a pipe, a
 * file, a test) it prints one frame after another, each under a separator line.
 */
final class WatchScreen {
    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss", Locale.ROOT);

    private WatchScreen() {}

    /** One refresh: the snapshot it shows (the next refresh's baseline for rates) and its lines. */
    record Frame(HintSnapshot snapshot, List<String> lines) {}

    /** Produces the next frame from the previous snapshot (null at first) and the screen size (0: unknown). */
    interface Renderer {
        Frame render(HintSnapshot previous, int width, int height) throws IOException;
    }

    static void run(PrintWriter plainOut, long intervalMs, int iterations, Renderer renderer) throws IOException {
        if (System.console() != null && System.console().isTerminal()) {
            try (Terminal terminal = TerminalBuilder.builder().system(true).dumb(true).build()) {
                if (!terminal.getType().startsWith(Terminal.TYPE_DUMB)) {
                    runFullScreen(terminal, intervalMs, iterations, renderer);
                    return;
                }
            }
        }
        runPlain(plainOut, intervalMs, iterations, renderer);
    }

    private static void runPlain(PrintWriter out, long intervalMs, int iterations, Renderer renderer) throws IOException {
        HintSnapshot previous = null;
        for (int i = 1; iterations == 0 || i <= iterations; i++) {
            if (i > 1) {
                LockSupport.parkNanos(intervalMs * 1_000_000);
            }
            Frame frame = renderer.render(previous, 0, 0);
            out.println("--- refresh " + i + " at " + LocalTime.now().format(CLOCK) + " ---");
            for (String line : frame.lines()) {
                out.println(line);
            }
            out.flush();
            if (out.checkError()) {
                return; // the reader went away (a closed pipe): nothing left to show
            }
            previous = frame.snapshot();
        }
    }

    private static void runFullScreen(Terminal terminal, long intervalMs, int iterations, Renderer renderer)
            throws IOException {
        Attributes saved = terminal.enterRawMode();
        boolean[] interrupted = {false};
        Terminal.SignalHandler oldInt = terminal.handle(Terminal.Signal.INT, s -> interrupted[0] = true);
        terminal.puts(Capability.enter_ca_mode);
        terminal.puts(Capability.cursor_invisible);
        PrintWriter w = terminal.writer();
        NonBlockingReader keys = terminal.reader();
        try {
            HintSnapshot previous = null;
            for (int i = 1; (iterations == 0 || i <= iterations) && !interrupted[0]; i++) {
                Frame frame = renderer.render(previous, terminal.getColumns(), terminal.getRows());
                terminal.puts(Capability.cursor_home);
                int height = terminal.getRows() > 0 ? terminal.getRows() : Integer.MAX_VALUE;
                int shown = 0;
                for (String line : frame.lines()) {
                    if (shown == height - 1) {
                        break; // the last row stays free for the key hint
                    }
                    w.print(line);
                    terminal.puts(Capability.clr_eol);
                    w.print("\r\n");
                    shown++;
                }
                w.print("q: quit" + (iterations > 0 ? "   (refresh " + i + " of " + iterations + ")" : ""));
                terminal.puts(Capability.clr_eol);
                terminal.puts(Capability.clr_eos);
                terminal.flush();
                previous = frame.snapshot();
                if (iterations > 0 && i == iterations) {
                    break;
                }
                if (waitForQuit(keys, intervalMs, interrupted)) {
                    break;
                }
            }
        } finally {
            terminal.puts(Capability.cursor_visible);
            terminal.puts(Capability.exit_ca_mode);
            terminal.flush();
            terminal.handle(Terminal.Signal.INT, oldInt);
            terminal.setAttributes(saved);
        }
    }

    /** Waits one refresh period; true when the user pressed q (or Ctrl-C). */
    private static boolean waitForQuit(NonBlockingReader keys, long intervalMs, boolean[] interrupted) throws IOException {
        long deadline = System.nanoTime() + intervalMs * 1_000_000;
        while (!interrupted[0]) {
            long left = (deadline - System.nanoTime()) / 1_000_000;
            if (left <= 0) {
                return false;
            }
            int c = keys.read(left);
            if (c == 'q' || c == 'Q' || c == 3) { // 3: Ctrl-C arriving as a character
                return true;
            }
            if (c == NonBlockingReader.EOF) {
                LockSupport.parkNanos(left * 1_000_000); // no more input: just wait
            }
        }
        return true;
    }
}
