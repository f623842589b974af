package dev.hintmap.cli;

import dev.hintmap.HintFileException;
import dev.hintmap.HintFileException.Problem;
import java.util.Map;

/**
 * What a {@link HintFileException} means on the command line: its message in the words of the
 * {@code hintmap} options, and its exit status. The one place of the CLI that knows how the
 * library words its problems.
 *
 * <p>Design notes. The library's messages are written for programmers and name the
 * {@code HintStoreOptions} setter that relaxes a rule ({@code followSymlinks(true)}); a user of
 * the command line needs the option that does it ({@code --follow-symlinks}, which every command
 * that opens a hint file has, through {@link FileArgs}). The messages keep their facts (uids,
 * modes, offsets), so they are rewritten phrase by phrase, not replaced: {@link #SETTERS} maps
 * each setter a message may name to its option, and a test runs every such refusal through the
 * CLI and checks that no setter is left in it.
 */
final class HintFileErrors {
    private HintFileErrors() {}

    /**
     * Library wording (a {@code HintStoreOptions} setter and the verb around it, as HintFileOpener
     * words its refusals) and its CLI option; no phrase contains another, so the order of the
     * replacements does not matter.
     */
    private static final Map<String, String> SETTERS = Map.of(
            "open with followSymlinks(true) to follow it", "use --follow-symlinks to follow it",
            "open it with groupShared(true)", "use --group-shared",
            "allowForeignOwner(true)", "--allow-foreign-owner");

    /** The exception's message in CLI terms (the file is named at its start, as the library does). */
    static String message(HintFileException e) {
        String text = e.getMessage();
        for (Map.Entry<String, String> setter : SETTERS.entrySet()) {
            text = text.replace(setter.getKey(), setter.getValue());
        }
        if (e.problem() == Problem.NATIVE_ACCESS) {
            text += " (the ./hintmap launcher passes it)";
        }
        return text;
    }

    /**
     * The exit status: {@link ExitCode#IO_ERROR} when the file could not be reached or written for a
     * reason outside it (an I/O error, a full disk, a JVM without native access), else
     * {@link ExitCode#BAD_FILE}: it is not a hint file this command can use (missing, damaged,
     * foreign, another version, refused by the safety rules).
     */
    static int exitCode(HintFileException e) {
        return switch (e.problem()) {
            case IO, NO_SPACE, NATIVE_ACCESS -> ExitCode.IO_ERROR;
            default -> ExitCode.BAD_FILE;
        };
    }
}
