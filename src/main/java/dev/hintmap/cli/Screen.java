package dev.hintmap.cli;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.function.IntSupplier;

/**
 * Where a command's standard output goes, as far as its tables care: how many columns a line
 * may take, and whether {@code …} can be printed. The width is, in this order: the terminal's own
 * ({@code ioctl(TIOCGWINSZ)} on standard output, asked only when a table needs it), else the
 * {@code COLUMNS} environment variable, else {@link #DEFAULT_COLUMNS} (a pipe or a file).
 * The terminal goes first because a {@code COLUMNS} exported by a shell keeps the width the
 * terminal had then; {@code --width} overrides both ({@link TableOptions}).
 */
final class Screen {
    /** The width of a table whose output is not a terminal and no {@code COLUMNS} is set. */
    static final int DEFAULT_COLUMNS = 100;

    /** An output that is not a terminal, with no {@code COLUMNS}, that can print any character: a writer of a test or a caller. */
    static final Screen NOT_A_TERMINAL = new Screen(() -> 0, null, StandardCharsets.UTF_8);

    private final IntSupplier terminalColumns;
    private final String columnsVariable;
    private final Charset charset;

    Screen(IntSupplier terminalColumns, String columnsVariable, Charset charset) {
        this.terminalColumns = terminalColumns;
        this.columnsVariable = columnsVariable;
        this.charset = charset;
    }

    /** The process's standard output (descriptor 1), its {@code COLUMNS} and the charset {@code System.out} encodes in. */
    static Screen standardOutput() {
        return new Screen(() -> TerminalSize.columns(1), System.getenv("COLUMNS"), System.out.charset());
    }

    /** The columns a table may take, as the class comment says. */
    int columns() {
        return columns(terminalColumns.getAsInt(), columnsVariable);
    }

    /** The rule of the class comment: the terminal's columns (0: none), else a valid {@code COLUMNS}, else 100. */
    static int columns(int terminal, String columnsVariable) {
        if (terminal > 0) {
            return terminal;
        }
        if (columnsVariable != null) {
            try {
                int columns = Integer.parseInt(columnsVariable.strip());
                if (columns > 0) {
                    return columns;
                }
            } catch (NumberFormatException notANumber) {
                // as ls and ps do: a COLUMNS that is not a positive number is ignored
            }
        }
        return DEFAULT_COLUMNS;
    }

    /**
     * The mark of a cut: {@code …} (one column) where the output's charset can encode it (UTF-8,
     * and most others), else {@code ...}, which every charset has (a C or POSIX locale: ASCII).
     */
    String ellipsis() {
        return charset.newEncoder().canEncode('…') ? "…" : "...";
    }
}
