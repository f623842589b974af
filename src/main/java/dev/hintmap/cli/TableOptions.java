package dev.hintmap.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * The width options of the commands that print a table of regions ({@code top}, {@code hot},
 * {@code dump}, {@code diff}; a picocli mixin): the table fits the output's width ({@link Screen}) unless
 * {@code --wide} asks for whole names, as {@code ps -w} does, and {@code --width} sets the width,
 * as {@code ps --width} does. JSON, CSV and Prometheus outputs always carry whole names.
 */
final class TableOptions {
    private static final List<String> OPTIONS = List.of("--wide", "--width", "--name-style");

    @Option(names = {"-w", "--wide"},
            description = "print every region name whole, however wide the lines get (otherwise the table fits the"
                    + " terminal: every number whole, names shortened)")
    boolean wide;

    @Option(names = "--width", paramLabel = "COLUMNS",
            description = "fit the table to COLUMNS columns (default: the terminal's width, else the COLUMNS"
                    + " environment variable, else " + Screen.DEFAULT_COLUMNS + ")")
    Integer width;

    @Option(names = "--name-style", paramLabel = "STYLE", defaultValue = "short",
            converter = StyleConverter.class, completionCandidates = StyleConverter.Names.class,
            description = "how a name too long for its column is shortened: short (a C++ kernel name loses its return"
                    + " type, then its parameters, then the middle of its template arguments and namespaces:"
                    + " cutlass::Kernel2<...>(...)), or stored (the stored name with its middle cut out); both keep"
                    + " the start, the end and the ~hash tag of a name stored shortened (default: ${DEFAULT-VALUE})")
    NameFitter.Style style;

    /** Where standard output goes: set by {@link HintmapCli} before the command runs. */
    Screen screen = Screen.NOT_A_TERMINAL;

    /**
     * The layout of this command's tables.
     *
     * @throws IllegalArgumentException for a {@code --width} below 1, or with {@code --wide} (a usage error)
     */
    TableLayout layout() {
        if (width != null && width < 1) {
            throw new IllegalArgumentException("--width must be >= 1, not " + width);
        }
        if (wide && width != null) {
            throw new IllegalArgumentException("--wide and --width exclude each other: --wide prints names whole"
                    + " whatever the width");
        }
        return new TableLayout(wide ? 0 : width != null ? width : screen.columns(), style, screen.ellipsis());
    }

    /**
     * Refuses these options where the command prints no table (they would change nothing: a usage
     * error, as every such option is).
     *
     * @param output what the command prints instead, for the message ("--format json")
     */
    void refuseWithoutTable(CommandLine cli, String output) {
        for (String option : OPTIONS) {
            if (cli.getParseResult().hasMatchedOption(option)) {
                throw new ParameterException(cli, option + " applies to the table only, not to " + output
                        + " (which always carries whole names)");
            }
        }
    }

    /** {@code short} or {@code stored}, in any case. */
    static final class StyleConverter implements CommandLine.ITypeConverter<NameFitter.Style> {
        @Override
        public NameFitter.Style convert(String value) {
            try {
                return NameFitter.Style.valueOf(value.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException("expected short or stored, not '" + value + "'");
            }
        }

        /** The values, lower case, for the completion script and the help. */
        static final class Names extends ArrayList<String> {
            private static final long serialVersionUID = 1L;

            Names() {
                super(List.of("short", "stored"));
            }
        }
    }
}
