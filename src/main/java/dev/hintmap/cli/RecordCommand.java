package dev.hintmap.cli;

import dev.hintmap.HintStore;
import dev.hintmap.format.StoredName;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code hintmap record FILE NAME KERNEL_NS BYTES} and {@code hintmap record FILE --samples IN}:
 * records samples into a hint file as a runtime does, for scripts and tests. FILE is opened as a
 * writer like any program's ({@code HintStore.open}: created with the default layout when missing,
 * other writers may record at the same time, the file's own layout wins); every sample is checked
 * before the first is recorded ({@link SampleInput}), so a bad input records nothing.
 */
@Command(name = "record", versionProvider = HintmapCli.Version.class,
        footerHeading = CliReference.EXAMPLES_HEADING,
        footer = {
            "  hintmap record app.hints gemm_bf16 125000 1048576",
            "  hintmap record --samples samples.jsonl app.hints",
        },
        description = {
            "Record samples into a hint file, as a runtime does.",
            "One sample from the command line (NAME KERNEL_NS BYTES: one dispatch of the region NAME that took"
                    + " KERNEL_NS ns of kernel time and touched BYTES bytes), or every sample of --samples IN. FILE is"
                    + " opened as a writer like any program's: created with the default layout when it does not exist"
                    + " (hintmap create sets another first), recorded into while other writers record, the file's own"
                    + " layout kept. It is opened under the rules of every command (no symbolic link, no other"
                    + " user's file, unless the options below say so; only a hint file), and a name ending in .json,"
                    + " which merge and diff read as a JSON profile, is refused (exit 2).",
            "IN (- for standard input) is UTF-8 text: JSON Lines, one object per line with the keys name,"
                    + " kernel_ns and bytes_touched, or CSV (RFC 4180) whose first line names those three columns and"
                    + " whose rows are the samples (quote a name that holds a comma). A name follows the library's"
                    + " rules: not empty, valid UTF-8, and stored shortened when longer than the file's max-name-bytes"
                    + " (a prefix, '~' and a hash; found by its whole name). Numbers are integers in [0, 2^63-1]."
                    + " Every sample is checked first: a bad line is exit 3 naming the line, and nothing is recorded."})
final class RecordCommand implements Callable<Integer> {
    @Mixin
    HelpOption help;

    @Spec
    CommandSpec spec;

    @Mixin
    FileArgs files;

    @Parameters(index = "0", paramLabel = "FILE", description = "the hint file (created when missing)")
    Path file;

    @Parameters(index = "1", arity = "0..1", paramLabel = "NAME", description = "the region's name")
    String name;

    @Parameters(index = "2", arity = "0..1", paramLabel = "KERNEL_NS", description = "the dispatch's kernel time in ns")
    String kernelNs;

    @Parameters(index = "3", arity = "0..1", paramLabel = "BYTES", description = "the bytes the dispatch touched")
    String bytes;

    @Option(names = "--samples", paramLabel = "IN",
            description = "record every sample of IN (JSON Lines or CSV; - is standard input) instead of one")
    Path samples;

    @Option(names = {"-q", "--quiet"}, description = "print nothing on success")
    boolean quiet;

    @Override
    public Integer call() throws Exception {
        if (file.getFileName() != null && file.getFileName().toString().endsWith(".json")) {
            throw new ParameterException(spec.commandLine(), file + ": record writes a hint file, and merge and diff"
                    + " read a name ending in .json as a JSON profile: name it otherwise");
        }
        List<SampleInput.Sample> toRecord = samples != null ? fromInput() : List.of(fromArguments());
        Set<String> regions = new HashSet<>();
        int shortened = 0;
        int limit;
        try (HintStore store = HintStore.open(file, files.options())) {
            limit = store.maxNameBytes();
            for (SampleInput.Sample s : toRecord) {
                store.record(s.name(), s.kernelNs(), s.bytesTouched());
                if (regions.add(s.name()) && StoredName.utf8Length(s.name()) > limit) {
                    shortened++;
                }
            }
            store.flush();
        }
        PrintWriter err = spec.commandLine().getErr();
        if (shortened > 0) {
            err.println("record: note: " + shortened + (shortened == 1 ? " name is" : " names are") + " longer than the"
                    + " file's " + limit + " bytes and stored shortened (found by the whole name; hintmap create"
                    + " --max-name-bytes keeps longer ones whole)");
            err.flush();
        }
        if (!quiet) {
            PrintWriter out = spec.commandLine().getOut();
            out.println("recorded " + Units.count(toRecord.size()) + (toRecord.size() == 1 ? " sample" : " samples")
                    + " of " + Units.count(regions.size()) + (regions.size() == 1 ? " region" : " regions") + " into " + file);
            out.flush();
        }
        return ExitCode.OK;
    }

    private List<SampleInput.Sample> fromInput() throws Exception {
        if (name != null) {
            throw new ParameterException(spec.commandLine(), "give one sample (NAME KERNEL_NS BYTES) or --samples IN,"
                    + " not both");
        }
        byte[] text;
        if (OutputFile.isStandardOutput(samples)) { // "-": standard input here
            text = System.in.readAllBytes();
        } else {
            try (InputStream in = CommandFiles.openInput(samples, files.options())) {
                text = in.readAllBytes();
            }
        }
        return SampleInput.read(samples, text);
    }

    private SampleInput.Sample fromArguments() {
        if (name == null || kernelNs == null || bytes == null) {
            throw new ParameterException(spec.commandLine(), "give one sample as NAME KERNEL_NS BYTES, or --samples IN");
        }
        if (name.indexOf('\uFFFD') >= 0) {
            // What the JVM makes of bytes that are not UTF-8 in its arguments (or of any non-ASCII byte in a C locale).
            throw new ParameterException(spec.commandLine(), "NAME is not valid UTF-8 text (it holds U+FFFD, the"
                    + " replacement character): run under a UTF-8 locale, or give the name in a --samples file");
        }
        try {
            StoredName.utf8Length(name);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "NAME: " + e.getMessage());
        }
        return new SampleInput.Sample(name, number("KERNEL_NS", kernelNs), number("BYTES", bytes));
    }

    private long number(String label, String text) {
        try {
            long v = Long.parseLong(text);
            if (v >= 0) {
                return v;
            }
        } catch (NumberFormatException e) {
            // said below, with the range
        }
        throw new ParameterException(spec.commandLine(), label + " must be an integer in [0, " + Long.MAX_VALUE
                + "], not '" + text + "'");
    }
}
