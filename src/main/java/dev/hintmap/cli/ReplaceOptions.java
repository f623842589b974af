package dev.hintmap.cli;

import picocli.CommandLine.Option;

/** Whether a command that writes a new hint file may replace the one at its output path (a picocli mixin). */
final class ReplaceOptions {
    @Option(names = {"-f", "--force"}, description = "replace the output if it exists (not when writers are attached"
            + " to it: see --replace-live)")
    boolean force;

    @Option(names = "--replace-live", description = "replace the output even when live writers are attached to it"
            + " (implies --force): they keep writing the replaced file, and what they record from then on is lost")
    boolean replaceLive;

    /** Whether an existing output may be replaced at all. */
    boolean mayReplace() {
        return force || replaceLive;
    }
}
