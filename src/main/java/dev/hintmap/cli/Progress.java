package dev.hintmap.cli;

import java.io.PrintWriter;

/**
 * Progress of long commands on standard error: one line per step, and on a terminal a line that
 * updates in place during a step. {@code --quiet} silences it; results still go to standard output.
 * Messages are printed through {@link Table#printable} (they name files, and may name regions).
 */
final class Progress {
    private final PrintWriter err;
    private final boolean quiet;
    private final boolean terminal;
    private boolean updating;

    Progress(PrintWriter err, boolean quiet) {
        this.err = err;
        this.quiet = quiet;
        this.terminal = System.console() != null && System.console().isTerminal();
    }

    /** A finished step. */
    void step(String message) {
        if (quiet) {
            return;
        }
        if (updating) {
            err.print("\r\033[K");
            updating = false;
        }
        err.println(Table.printable(message));
        err.flush();
    }

    /** A warning: shown with {@code --quiet} too, since it says that data will be lost. */
    void warn(String message) {
        if (updating) {
            err.print("\r\033[K");
            updating = false;
        }
        err.println(Table.printable(message));
        err.flush();
    }

    /** The state of a running step; shown only on a terminal, overwritten by the next message. */
    void update(String message) {
        if (quiet || !terminal) {
            return;
        }
        err.print("\r\033[K" + Table.printable(message));
        err.flush();
        updating = true;
    }
}
