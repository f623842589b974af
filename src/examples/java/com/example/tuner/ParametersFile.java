package com.example.tuner;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The file the runtime reads (src/examples/clblast/clblast_runtime.c, docs/PGO.md): one line per
 * tuned region and kernel, {@code REGION<TAB>KERNEL<TAB>NAME=VALUE ...}, in the plan's order (for a
 * tuned GEMM a {@code GemmRoutine} line too, the routine choice that makes CLBlast run the tuned
 * kernel); {@code #} lines are comments. Written beside its path and renamed into place, so the
 * runtime never reads half a file.
 */
public final class ParametersFile {
    private final List<String> comments = new ArrayList<>();
    private final List<String> lines = new ArrayList<>();

    /**
     * Adds a comment line.
     *
     * @param text the comment, one line
     * @return this
     */
    public ParametersFile comment(String text) {
        comments.add("# " + Printable.escape(text));
        return this;
    }

    /**
     * Adds the tuned parameters of one kernel for one region.
     *
     * @param region the region name, as recorded
     * @param tuned the kernel and its parameters
     * @return this
     */
    public ParametersFile add(String region, TunedKernel tuned) {
        if (!Printable.escape(region).equals(region)) { // a tab, a line break: the runtime reads lines of tab-separated fields
            throw new IllegalArgumentException("a region name with a control character cannot be written: "
                    + Printable.escape(region));
        }
        lines.add(region + "\t" + tuned.kernel() + "\t" + tuned.parameterList());
        return this;
    }

    /**
     * The entries written so far.
     *
     * @return the lines, without the comments
     */
    public List<String> entries() {
        return List.copyOf(lines);
    }

    /**
     * Writes the file atomically.
     *
     * @param path where
     * @throws IOException if it cannot be written
     */
    public void write(Path path) throws IOException {
        Path dir = path.toAbsolutePath().getParent();
        Path tmp = Files.createTempFile(dir, path.getFileName().toString(), ".tmp");
        try {
            List<String> all = new ArrayList<>(comments);
            all.addAll(lines);
            Files.write(tmp, all, StandardCharsets.UTF_8);
            Files.move(tmp, path, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }
}
