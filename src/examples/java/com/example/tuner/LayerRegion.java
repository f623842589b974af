package com.example.tuner;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A region name the OpenCL layer records (docs/OPENCL.md, "What is recorded"), parsed back: the kernel's
 * function name, then, as {@code HINTMAP_NAME} asked, a build tag and the enqueue's work sizes:
 * <pre>
 * Xgemm                                  kernel
 * Xgemm[1024x1024/16x16]   sum[50000]    kernel+shape: global / local sizes per dimension; no "/..." when the
 *                                        program let the implementation choose; "[?]" for a shape it could not read
 * Xaxpy#0123456789ab                     kernel+build: '#' and 12 lowercase hex digits
 * Xgemm#3f2a9c1e07b4[1024x1024/16x16]    kernel+build+shape
 * </pre>
 * Only the spelling the layer writes parses: the function name an OpenCL C identifier, 1 to 3 dimensions, as
 * many local as global sizes, decimal sizes without leading zeros up to {@code 2^64-1} (a {@code size_t};
 * held in a {@code long} read as unsigned). Anything else — another runtime's name, a hand-made one, a stored
 * form shortened because it was too long — is not a layer region.
 *
 * @param name the region name as recorded
 * @param kernel the kernel's function name, e.g. {@code XgemmDirectTN}
 * @param buildTag the build tag with its {@code '#'}, empty when the name has none
 * @param global the global work sizes (unsigned), empty when the name has no shape or {@code [?]}
 * @param local the local work sizes (unsigned), empty when the implementation chose them or there is no shape
 */
public record LayerRegion(String name, String kernel, String buildTag, List<Long> global, List<Long> local) {
    private static final String SIZE = "(?:0|[1-9][0-9]{0,19})";
    private static final String SIZES = SIZE + "(?:x" + SIZE + "){0,2}";
    private static final Pattern NAME = Pattern.compile(
            "([A-Za-z_][A-Za-z0-9_]*)(#[0-9a-f]{12})?(?:\\[(?:(\\?)|(" + SIZES + ")(?:/(" + SIZES + "))?)\\])?");

    /** Keeps immutable copies. */
    public LayerRegion {
        global = List.copyOf(global);
        local = List.copyOf(local);
    }

    /**
     * Parses a region name.
     *
     * @param name a region name from the hint file (any text)
     * @return the parsed name, or empty when {@code name} is not one the layer writes
     */
    public static Optional<LayerRegion> parse(String name) {
        Matcher m = NAME.matcher(name);
        if (!m.matches()) {
            return Optional.empty();
        }
        List<Long> global = m.group(4) == null ? List.of() : sizes(m.group(4));
        List<Long> local = m.group(5) == null ? List.of() : sizes(m.group(5));
        if (global == null || local == null || (!local.isEmpty() && local.size() != global.size())) {
            return Optional.empty(); // past a size_t, or local sizes of another rank: not the layer's
        }
        return Optional.of(new LayerRegion(name, m.group(1), m.group(2) == null ? "" : m.group(2), global, local));
    }

    /** The sizes of "AxBxC", or null when one is past 2^64-1. */
    private static List<Long> sizes(String text) {
        List<Long> sizes = new ArrayList<>(3);
        for (String s : text.split("x")) {
            try {
                sizes.add(Long.parseUnsignedLong(s));
            } catch (NumberFormatException pastSizeT) {
                return null;
            }
        }
        return sizes;
    }

    /**
     * Whether the name carries the enqueue's work sizes ({@code HINTMAP_NAME=kernel+shape}).
     *
     * @return true for a readable shape, false without one or for {@code [?]}
     */
    public boolean hasShape() {
        return !global.isEmpty();
    }
}
