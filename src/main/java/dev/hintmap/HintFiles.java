package dev.hintmap;

import dev.hintmap.format.Layouts;
import dev.hintmap.store.FileVerifier;
import dev.hintmap.store.Version1Reader;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/** Operations on hint files as files, for tools: checking one without recording anything into it. */
public final class HintFiles {
    private HintFiles() {}

    /**
     * The format version this library reads and writes (docs/FORMAT.md §3); a file of version 1
     * is refused with {@code UNSUPPORTED_VERSION} and converted by {@code hintmap upgrade}.
     */
    public static final int FORMAT_VERSION = Layouts.FORMAT_VERSION_VALUE;

    /**
     * This library's release version, as the build wrote it (the project version of its
     * {@code pom.xml}, e.g. {@code 0.2.0}); {@code "unknown"} for classes that did not come from
     * the build (a copy without the build's resources).
     *
     * @return the release version
     */
    public static String version() {
        return BuildVersion.VALUE;
    }

    /** Read once, on first use: the filtered resource the build writes beside the classes. */
    private static final class BuildVersion {
        static final String VALUE = read();

        private static String read() {
            try (InputStream in = HintFiles.class.getResourceAsStream("build.properties")) {
                if (in == null) {
                    return "unknown";
                }
                java.util.Properties p = new java.util.Properties();
                p.load(in);
                String v = p.getProperty("version", "");
                return v.isEmpty() || v.startsWith("${") ? "unknown" : v;
            } catch (IOException e) {
                return "unknown";
            }
        }
    }

    /**
     * Checks every invariant of the hint file at {@code file} (FORMAT.md): header checksum,
     * layout and ranges, coordination words, writer table, every slot (name, hash, padding,
     * record invariants) and the index against the slots (each entry names a LIVE slot with its
     * tag, within the probe bound and reachable from its home; each LIVE slot has exactly one
     * entry; no name twice). The file is mapped read-only and never modified; it may be in use
     * by writers, in which case the check is repeated until it sees a stable set of regions.
     *
     * <p>A file that cannot be opened at all (not a hint file, corrupt header, ...) gives a
     * report with that one problem.
     *
     * @param file the hint file to check
     * @param options how to open it ({@link HintStoreOptions#readOnly} is implied)
     * @return every finding, with the number of regions and index entries seen; a file that
     *     cannot be opened for its content gives one {@code header} error naming its problem
     * @throws IOException when the file cannot be read for a reason other than its content: a
     *     {@link HintFileException} with problem {@code MISSING}, {@code IO} or
     *     {@code NATIVE_ACCESS}, or another I/O failure
     */
    public static VerifyReport verify(Path file, HintStoreOptions options) throws IOException {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(options, "options");
        HintStore store;
        try {
            store = HintStore.open(file, options.readOnly(true));
        } catch (HintFileException e) {
            switch (e.problem()) {
                case IO, MISSING, NATIVE_ACCESS -> throw e; // about reaching the file, not its content
                default -> { }
            }
            String field = e.field() == null ? "file" : e.field();
            return new VerifyReport(file, List.of(new VerifyReport.Finding(VerifyReport.Severity.ERROR, "header", -1, -1,
                    field, e.problem() + ": " + e.getMessage())), 0, 0, true);
        }
        try (store) {
            return verify(store);
        }
    }

    /**
     * Checks every invariant of the file an open store maps, as {@link #verify(Path, HintStoreOptions)}
     * does after opening it: for a caller that has the store open already (one open, and no window
     * in which another file could be put at the path).
     *
     * @param store an open store, read-only or not
     * @return every finding, with the number of regions and index entries seen
     * @throws IllegalStateException if the store is closed
     */
    public static VerifyReport verify(HintStore store) {
        Objects.requireNonNull(store, "store");
        return FileVerifier.verify(store.mapped());
    }

    /**
     * Reads a hint file of format version 1, which {@link HintStore#open} refuses, for conversion
     * to the current version (FORMAT.md §12, {@code hintmap upgrade}): every sound region with
     * its record, the layout parameters and the statistics counters. The file is mapped read-only
     * and never modified; its index is not read.
     *
     * @param file a version-1 hint file
     * @return what it holds, and which writers are still attached to it
     * @throws IOException a {@link HintFileException} when it is not a readable version-1 file
     *     ({@code UNSUPPORTED_VERSION} for any other version, the current one included), or
     *     another I/O failure
     */
    public static Version1Profile readVersion1(Path file) throws IOException {
        Objects.requireNonNull(file, "file");
        return Version1Reader.read(file);
    }
}
