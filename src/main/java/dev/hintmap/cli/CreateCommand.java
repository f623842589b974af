package dev.hintmap.cli;

import dev.hintmap.HintStoreOptions;
import dev.hintmap.format.FileGeometry;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code hintmap create FILE --capacity N}: an empty hint file with a chosen layout, set up before
 * the runtime that records into it starts (which then opens it with the file's own layout, as
 * an existing file's layout wins over a writer's options).
 *
 * <p>An existing FILE is refused (exit 1, a refusal): create never replaces a file, not even an
 * empty hint file, since one that looks unused may be about to get writers; {@code merge} and
 * {@code copy} replace files, with their safeguards. The file is published like their output
 * (filled under a temporary name, then {@code link(2)}), so a file created at the same path
 * meanwhile is not replaced either.
 */
@Command(name = "create", versionProvider = HintmapCli.Version.class,
        footerHeading = CliReference.EXAMPLES_HEADING,
        footer = {
            "  hintmap create --capacity 4096 --max-name-bytes 1024 /dev/shm/app.hints",
        },
        description = {"Create an empty hint file with a chosen layout.",
            "Sets up FILE before the runtime starts: its capacity, maximum name length and hot threshold are fixed"
                    + " at creation (writers that open it later use them). An existing FILE is not replaced"
                    + " (exit 1). With --group-shared the file is created 0660, for writers of one group.",
            OutputFile.RULES})
final class CreateCommand implements Callable<Integer> {
    @Mixin
    HelpOption help;

    @Spec
    CommandSpec spec;

    @Mixin
    FileArgs files;

    @Parameters(index = "0", paramLabel = "FILE", description = "the hint file to create")
    Path file;

    @Option(names = "--capacity", paramLabel = "N", required = true,
            description = "regions the file holds, in [1, " + HintStoreOptions.MAX_CAPACITY + "]")
    int capacity;

    @Option(names = "--hot-threshold-ns", paramLabel = "NS",
            description = "mean kernel time at or above which a region is hot (default: "
                    + HintStoreOptions.DEFAULT_HOT_THRESHOLD_NS + ")")
    Long hotThresholdNs;

    @Option(names = "--max-name-bytes", paramLabel = "B",
            description = "longest region name stored whole, in UTF-8 bytes, in [" + HintStoreOptions.MIN_NAME_BYTES + ", "
                    + HintStoreOptions.MAX_NAME_BYTES_LIMIT + "] (default: " + HintStoreOptions.DEFAULT_MAX_NAME_BYTES
                    + "; a longer name is stored as a prefix, '~' and 32 hex digits of the SHA-256 of the whole name,"
                    + " and still found by its whole name)")
    Integer maxNameBytes;

    @Override
    public Integer call() throws Exception {
        // A file of capacity 0 is legal but records nothing: as an explicit setup step it is a mistake.
        if (capacity < 1 || capacity > HintStoreOptions.MAX_CAPACITY) {
            throw new ParameterException(spec.commandLine(),
                    "--capacity " + capacity + " is outside [1, " + HintStoreOptions.MAX_CAPACITY + "]");
        }
        if (hotThresholdNs != null && hotThresholdNs < 0) {
            throw new ParameterException(spec.commandLine(), "--hot-threshold-ns " + hotThresholdNs + " is negative");
        }
        if (maxNameBytes != null && !FileGeometry.isNameLimit(maxNameBytes)) { // the library's range (§2), said as the CLI says it
            throw new ParameterException(spec.commandLine(), "--max-name-bytes " + maxNameBytes + " is outside ["
                    + HintStoreOptions.MIN_NAME_BYTES + ", " + HintStoreOptions.MAX_NAME_BYTES_LIMIT + "]"
                    + (maxNameBytes < HintStoreOptions.MIN_NAME_BYTES ? ": a longer name is stored as a prefix, '~' and"
                            + " 32 hex digits, which need at least " + HintStoreOptions.MIN_NAME_BYTES + " bytes" : ""));
        }
        HintStoreOptions options = files.options().capacity(capacity);
        if (hotThresholdNs != null) {
            options = options.hotThresholdNs(hotThresholdNs);
        }
        if (maxNameBytes != null) {
            options = options.maxNameBytes(maxNameBytes);
        }
        OutputFile target = new OutputFile("create", file, OutputFile.Content.HINT_FILE, null, files);
        target.check(spec.commandLine());
        try {
            target.publish(List.of(), options, new Progress(spec.commandLine().getErr(), true));
        } catch (IOException e) {
            if (e.getCause() instanceof FileAlreadyExistsException) {
                throw new DataLossRefused(file + " was created by someone else while create ran: not replaced");
            }
            throw e;
        }
        PrintWriter out = spec.commandLine().getOut();
        out.println("created " + file + ": capacity " + Units.count(capacity) + ", names up to "
                + options.maxNameBytes() + " bytes, hot threshold " + options.hotThresholdNs() + " ns"
                + (files.groupShared ? ", group-shared (0660)" : ""));
        out.flush();
        return ExitCode.OK;
    }
}
