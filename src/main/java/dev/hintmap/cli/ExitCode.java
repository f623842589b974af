package dev.hintmap.cli;

/** Exit statuses of {@code hintmap} (printed by {@code hintmap --help}). */
final class ExitCode {
    private ExitCode() {}

    static final int OK = 0;
    /**
     * Problems found ({@code verify}: in the file; {@code decay}: regions it could not age), or a
     * refusal to lose data ({@code merge}, {@code copy}, {@code export}: live writers attached to the
     * output; {@code export}: a hint file at the output without {@code --force}; {@link OutputFile}).
     */
    static final int PROBLEMS = 1;
    /** Unknown option, bad value (picocli's own code for invalid input). */
    static final int USAGE = 2;
    /** Missing, damaged, foreign, other-version or otherwise unusable hint file. */
    static final int BAD_FILE = 3;
    /** Any other I/O failure. */
    static final int IO_ERROR = 4;
    /** A bug: an exception no command expects. */
    static final int SOFTWARE = 70;
}
