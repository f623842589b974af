package dev.hintmap.cli;

import dev.hintmap.HintSnapshot;
import dev.hintmap.RegionOrder;
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
 * restores everything on the way out, also after Ctrl-C; keys ({@link WatchKeys}) quit, change the
 * sort and pause. Elsewhere (a pipe, a
 * file, a test) it prints one frame after another, each under a separator line.
 */
final class WatchScreen {
    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss", Locale.ROOT);

    private WatchScreen() {}

    /** Takes the snapshot of the next refresh. */
    interface Source {
        /** The snapshot, or null while there is no file to show (the refresh still counts). */
        HintSnapshot take() throws IOException;

        /** Whether the last snapshot came from another file than the one before (no rates across them). */
        default boolean reopened() {
            return false;
        }
    }

    /**
     * The lines of one screen: the current snapshot (null while there is no file), the previous
     * refresh's (null at first and after another file: no rates), the order the keys chose, and the
     * screen size (0: unknown).
     */
    interface View {
        List<String> render(HintSnapshot current, HintSnapshot previous, RegionOrder order, int width, int height);
    }

    static void run(PrintWriter plainOut, long intervalMs, int iterations, RegionOrder order, Source source, View view)
            throws IOException {
        if (System.console() != null && System.console().isTerminal()) {
            try (Terminal terminal = TerminalBuilder.builder().system(true).dumb(true).build()) {
                if (!terminal.getType().startsWith(Terminal.TYPE_DUMB)) {
                    runFullScreen(terminal, intervalMs, iterations, order, source, view);
                    return;
                }
            }
        }
        runPlain(plainOut, intervalMs, iterations, order, source, view);
    }

    private static void runPlain(PrintWriter out, long intervalMs, int iterations, RegionOrder order, Source source,
            View view) throws IOException {
        HintSnapshot previous = null;
        for (int i = 1; iterations == 0 || i <= iterations; i++) {
            if (i > 1) {
                LockSupport.parkNanos(intervalMs * 1_000_000);
            }
            HintSnapshot current = source.take();
            if (current == null) {
                previous = null; // waiting for the file (the source said so on standard error)
                continue;
            }
            if (source.reopened()) {
                previous = null;
            }
            out.println("--- refresh " + i + " at " + LocalTime.now().format(CLOCK) + " ---");
            for (String line : view.render(current, previous, order, 0, 0)) {
                out.println(line);
            }
            out.flush();
            if (out.checkError()) {
                return; // the reader went away (a closed pipe): nothing left to show
            }
            previous = current;
        }
    }

    /**
     * The full-screen loop: a refresh every interval unless paused; a key that changes the view
     * (sort, pause) redraws at once from the same snapshots, so the rates stay those of the last
     * refresh and the next refresh comes at its usual time.
     */
    private static void runFullScreen(Terminal terminal, long intervalMs, int iterations, RegionOrder order,
            Source source, View view) throws IOException {
        Attributes saved = terminal.enterRawMode();
        boolean[] interrupted = {false};
        Terminal.SignalHandler oldInt = terminal.handle(Terminal.Signal.INT, s -> interrupted[0] = true);
        terminal.puts(Capability.enter_ca_mode);
        terminal.puts(Capability.cursor_invisible);
        NonBlockingReader keys = terminal.reader();
        try {
            WatchKeys state = WatchKeys.start(order);
            HintSnapshot previous = null;
            HintSnapshot current = source.take();
            int refresh = 1;
            draw(terminal, view.render(current, previous, state.order(), terminal.getColumns(), terminal.getRows()),
                    state.footer(refresh, iterations, terminal.getColumns()));
            long deadline = System.nanoTime() + intervalMs * 1_000_000;
            while (!interrupted[0] && !(iterations > 0 && refresh >= iterations && !state.paused())) {
                int key = readKey(keys, deadline, interrupted);
                if (key == TIMEOUT) {
                    deadline = System.nanoTime() + intervalMs * 1_000_000;
                    if (state.paused()) {
                        continue;
                    }
                    previous = current;
                    current = source.take();
                    if (current == null || source.reopened()) {
                        previous = null;
                    }
                    refresh++;
                } else {
                    WatchKeys next = state.onKey(key);
                    if (next.quit()) {
                        break;
                    }
                    if (next.equals(state)) {
                        continue;
                    }
                    state = next;
                }
                draw(terminal, view.render(current, previous, state.order(), terminal.getColumns(), terminal.getRows()),
                        state.footer(refresh, iterations, terminal.getColumns()));
            }
        } finally {
            terminal.puts(Capability.cursor_visible);
            terminal.puts(Capability.exit_ca_mode);
            terminal.flush();
            terminal.handle(Terminal.Signal.INT, oldInt);
            terminal.setAttributes(saved);
        }
    }

    /** Redraws the screen in place from the top-left corner; the last row holds the footer. */
    private static void draw(Terminal terminal, List<String> lines, String footer) {
        PrintWriter w = terminal.writer();
        terminal.puts(Capability.cursor_home);
        int height = terminal.getRows() > 0 ? terminal.getRows() : Integer.MAX_VALUE;
        int shown = 0;
        for (String line : lines) {
            if (shown == height - 1) {
                break; // the last row stays free for the footer
            }
            w.print(Table.cut(line, terminal.getColumns())); // a line the terminal wrapped would scroll the frame
            terminal.puts(Capability.clr_eol);
            w.print("\r\n");
            shown++;
        }
        w.print(Table.cut(footer, terminal.getColumns()));
        terminal.puts(Capability.clr_eol);
        terminal.puts(Capability.clr_eos);
        terminal.flush();
    }

    private static final int TIMEOUT = -2;

    /** The next key before {@code deadline}, or {@link #TIMEOUT}; Ctrl-C as a signal reads as Ctrl-C. */
    private static int readKey(NonBlockingReader keys, long deadline, boolean[] interrupted) throws IOException {
        while (!interrupted[0]) {
            long left = (deadline - System.nanoTime()) / 1_000_000;
            if (left <= 0) {
                return TIMEOUT;
            }
            int c = keys.read(left);
            if (c >= 0) {
                return c;
            }
            if (c == NonBlockingReader.EOF) {
                LockSupport.parkNanos(left * 1_000_000); // no more input: just wait
            }
        }
        return WatchKeys.CTRL_C;
    }
}
