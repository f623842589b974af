package dev.hintmap.cli;

import java.util.List;

/**
 * Exit statuses of {@code hintmap}: one rule for every command, printed by {@code hintmap --help}
 * (the {@code HELP_*} lines below), in every man page's EXIT STATUS ({@link ManPages}) and in the
 * command reference docs/CLI.md ({@link CliMarkdown}). The rule tells the three failures a script
 * tells apart by what is wrong:
 * <ul>
 *   <li>the command line itself ({@link #USAGE}: fix the command),</li>
 *   <li>an input file ({@link #BAD_FILE}: fix or replace the file),</li>
 *   <li>nothing: the command could do it but would lose or hide data, or found problems
 *       ({@link #PROBLEMS}: decide, e.g. with {@code --force}).</li>
 * </ul>
 * So an output that exists is a refusal (1) for every command that writes one, {@code create}
 * included, never a usage error: the same command line succeeds once the file is gone. And an
 * input that is not a usable hint file is 3 with the same words whatever the command does with
 * it (read it, age it in place, convert it). Standard output is an output too: a command whose
 * result could not be written there exits 4, except into a pipe whose reader went away
 * ({@link #CLOSED_PIPE}; {@link StandardOutput}).
 */
final class ExitCode {
    private ExitCode() {}

    static final int OK = 0;
    /**
     * The command refused, or found problems: an output exists (without {@code --force};
     * {@code create} never replaces one; an in-place {@code upgrade}'s {@code FILE.v1} or
     * {@code FILE.v2} that is another file), live writers are attached to an output (without
     * {@code --replace-live}), an output would keep none of the regions read; {@code verify}
     * found problems in the file, {@code decay} left regions unaged, {@code copy} or
     * {@code merge} could not index every region, {@code upgrade} could not carry every sound region over; a text output
     * ({@code export}) would replace a hint file without {@code --force} ({@link OutputFile}).
     */
    static final int PROBLEMS = 1;
    /**
     * The command line is wrong whatever the files hold: unknown option, bad or missing value,
     * an input named twice, an option that would change nothing (picocli's own code for invalid input).
     */
    static final int USAGE = 2;
    /** An input is not a usable hint file: missing, a directory, not a hint file, damaged, another version, refused by the safety rules. */
    static final int BAD_FILE = 3;
    /**
     * Any other I/O failure: permission, disk full, an output in a missing directory or onto a directory,
     * standard output that could not be written (where the command itself succeeded or found problems:
     * what it would have said is lost).
     */
    static final int IO_ERROR = 4;
    /**
     * Standard output is a pipe (or FIFO, or socket) whose reader went away, as in {@code hintmap dump
     * FILE | head -1}: quietly, with the status a shell gives a tool that SIGPIPE ends (128 + 13). The JVM
     * ignores SIGPIPE, so the write fails with EPIPE instead; a script with {@code set -o pipefail} sees
     * what it sees of {@code cat} or {@code grep} there (docs/DESIGN.md, "Exit statuses and standard output").
     */
    static final int CLOSED_PIPE = 141;
    /** A bug: an exception no command expects. */
    static final int SOFTWARE = 70;

    // The lines of `hintmap --help` (HintmapCli's footer: annotation values must be constants) and of the man pages.
    static final String HELP_OK = "  0  success";
    static final String HELP_PROBLEMS = "  1  refused or problems found: an output exists (use --force; create never replaces"
            + " a file), live writers are attached to it (use --replace-live), export's text would replace a hint file (use"
            + " --force), verify found problems, decay left regions unaged, copy or merge could not index every region,"
            + " upgrade could not carry every sound region over";
    static final String HELP_USAGE = "  2  bad usage, whatever the files hold: unknown option, bad or missing value, an input"
            + " named twice, an option that would change nothing";
    static final String HELP_BAD_FILE = "  3  an input is not a usable hint file, for every command: missing, a directory,"
            + " not a hint file, damaged, another version, refused by the safety rules";
    static final String HELP_IO_ERROR = "  4  another I/O error: permission, disk full, an output in a missing directory, an output"
            + " that cannot be written there (a directory, a device or FIFO for a hint file, a symbolic link without"
            + " --follow-symlinks), standard output that cannot be written (a pipe whose reader went away: 141, quietly,"
            + " as a tool that SIGPIPE ends)";

    /**
     * The exit statuses as {@code --help} prints them at {@code width} columns: each status's text
     * wrapped under itself (a hanging indent), so the numbers stand alone at the left as in
     * {@code man}'s tagged paragraphs. picocli wraps a footer line back to column 0.
     */
    static String helpText(int width) {
        StringBuilder b = new StringBuilder();
        for (String status : helpLines()) {
            int text = status.indexOf("  ", 2) + 2; // "  1  refused ...": the text starts after the number's gap
            String indent = " ".repeat(text);
            StringBuilder line = new StringBuilder(status.substring(0, text));
            boolean first = true;
            for (String word : status.substring(text).split(" ")) {
                if (!first && line.length() + 1 + word.length() > width) {
                    b.append(line).append(System.lineSeparator());
                    line.setLength(0);
                    line.append(indent).append(word);
                } else {
                    line.append(first ? "" : " ").append(word);
                }
                first = false;
            }
            b.append(line).append(System.lineSeparator());
        }
        return b.toString();
    }

    /** The exit statuses as {@code --help} prints them, in order. */
    static List<String> helpLines() {
        return List.of(HELP_OK, HELP_PROBLEMS, HELP_USAGE, HELP_BAD_FILE, HELP_IO_ERROR);
    }
}
