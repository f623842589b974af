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

    /**
     * What a refusal for live writers at the output advises: {@code --replace-live}, unless the
     * command never replaces a file with live writers ({@link #neverLive}).
     */
    String liveAdvice = "use --replace-live to replace it anyway";

    /**
     * Options that replace an existing output but never one with live writers attached, whose
     * refusal advises {@code advice} (an in-place {@code upgrade}: no option overrides it, so none
     * is advised).
     */
    static ReplaceOptions neverLive(String advice) {
        ReplaceOptions options = new ReplaceOptions();
        options.force = true;
        options.liveAdvice = advice;
        return options;
    }

    /** Whether an existing output may be replaced at all. */
    boolean mayReplace() {
        return force || replaceLive;
    }
}
