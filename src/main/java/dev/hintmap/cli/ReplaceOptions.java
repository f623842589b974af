package dev.hintmap.cli;

import picocli.CommandLine.Option;

/** Whether a command that writes an output may replace what is at its output path (a picocli mixin; the rules: {@link OutputFile}). */
final class ReplaceOptions {
    @Option(names = {"-f", "--force"}, description = "replace the output if it exists (export: needed only for a hint"
            + " file at OUT; not when writers are attached to it: see --replace-live)")
    boolean force;

    @Option(names = "--replace-live", description = "replace the output even when live writers are attached to it"
            + " (implies --force): they keep writing the replaced file, and what they record from then on is lost")
    boolean replaceLive;

    /** Whether an existing output may be replaced at all. */
    boolean mayReplace() {
        return force || replaceLive;
    }
}
