package com.example.tuner;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A transform in {@code fftwf-wisdom}'s own problem syntax ({@code man fftwf-wisdom}, "Specifying
 * sizes"), the name the FFTW runtime records it under after {@code fftw:} (docs/PGO.md, "FFTW region
 * names"): {@code <type><place><direction><geometry>}, e.g. {@code cof256x256} (complex, out of place,
 * forward, 256×256), {@code rib1024} (real, in place, backward: complex-to-real), {@code kof64e10x32o00}
 * (real-to-real, out of place; each size followed by its kind, the direction being in the kinds).
 * <ul>
 * <li>type {@code c} complex, {@code r} real (r2c forward, c2r backward), {@code k} real-to-real;
 * <li>place {@code i} in place, {@code o} out of place;
 * <li>direction {@code f} or {@code b} for {@code c} and {@code r}, none for {@code k};
 * <li>geometry 1 to {@value #MAX_RANK} sizes joined by {@code x}, each a positive decimal without
 *     leading zeros (at most 9 digits); for {@code k} each size is followed by its kind: {@code f}
 *     R2HC, {@code b} HC2R, {@code h} DHT, {@code e00}..{@code e11} REDFT, {@code o00}..{@code o11} RODFT.
 * </ul>
 * Only this canonical spelling is accepted (lower case, no leading zeros, nothing else), so one
 * transform has one name. {@code fftwf-wisdom} also takes forms this runtime never writes (vector
 * ranks, {@code *}): they are refused.
 *
 * @param text the spec as written
 * @param type {@code c}, {@code r} or {@code k}
 * @param inPlace whether in place
 * @param forward the direction, for {@code c} and {@code r} ({@code true} for {@code k})
 * @param dims the sizes, outermost first
 * @param kinds for {@code k}, each size's kind; empty otherwise
 */
public record FftwSpec(String text, char type, boolean inPlace, boolean forward, List<Long> dims, List<String> kinds) {
    /** The most dimensions a spec may have. */
    public static final int MAX_RANK = 3;
    private static final Set<String> KINDS = Set.of("f", "b", "h", "e00", "e01", "e10", "e11", "o00", "o01", "o10", "o11");

    /** Keeps immutable copies. */
    public FftwSpec {
        dims = List.copyOf(dims);
        kinds = List.copyOf(kinds);
    }

    /**
     * Parses a spec.
     *
     * @param text e.g. {@code cof256x256}
     * @return the spec
     * @throws IllegalArgumentException naming what is wrong, e.g. {@code a size has a leading zero}
     */
    public static FftwSpec parse(String text) {
        if (text.length() < 3) {
            throw new IllegalArgumentException("too short for <type><place><direction><sizes>");
        }
        char type = text.charAt(0);
        if (type != 'c' && type != 'r' && type != 'k') {
            throw new IllegalArgumentException("type '" + Printable.escape(String.valueOf(type))
                    + "' is not c (complex), r (real) or k (real-to-real)");
        }
        char place = text.charAt(1);
        if (place != 'i' && place != 'o') {
            throw new IllegalArgumentException("place '" + Printable.escape(String.valueOf(place))
                    + "' is not i (in place) or o (out of place)");
        }
        int at = 2;
        boolean forward = true;
        if (type != 'k') {
            char direction = text.charAt(2);
            if (direction != 'f' && direction != 'b') {
                throw new IllegalArgumentException("direction '" + Printable.escape(String.valueOf(direction))
                        + "' is not f (forward) or b (backward)");
            }
            forward = direction == 'f';
            at = 3;
        }
        String geometry = text.substring(at);
        if (geometry.isEmpty()) {
            throw new IllegalArgumentException("no sizes");
        }
        List<Long> dims = new ArrayList<>();
        List<String> kinds = new ArrayList<>();
        for (String part : geometry.split("x", -1)) {
            int digits = 0;
            while (digits < part.length() && part.charAt(digits) >= '0' && part.charAt(digits) <= '9') {
                digits++;
            }
            if (digits == 0) {
                throw new IllegalArgumentException("'" + Printable.escape(part) + "' does not start with a size");
            }
            if (part.charAt(0) == '0') {
                throw new IllegalArgumentException("a size is zero or has a leading zero: '" + Printable.escape(part) + "'");
            }
            if (digits > 9) {
                throw new IllegalArgumentException("a size has more than 9 digits: '" + Printable.escape(part) + "'");
            }
            dims.add(Long.parseLong(part.substring(0, digits)));
            String kind = part.substring(digits);
            if (type == 'k') {
                if (!KINDS.contains(kind)) {
                    throw new IllegalArgumentException("size " + dims.getLast() + " of a k transform needs a kind (f, b, h,"
                            + " e00-e11, o00-o11), not '" + Printable.escape(kind) + "'");
                }
                kinds.add(kind);
            } else if (!kind.isEmpty()) {
                throw new IllegalArgumentException("'" + Printable.escape(kind) + "' after size " + dims.getLast()
                        + " (kinds are for k transforms only)");
            }
        }
        if (dims.size() > MAX_RANK) {
            throw new IllegalArgumentException(dims.size() + " dimensions: at most " + MAX_RANK);
        }
        return new FftwSpec(text, type, place == 'i', forward, dims, kinds);
    }

    /**
     * The number of points: the product of the sizes, saturating at {@code Long.MAX_VALUE}.
     *
     * @return at least 1
     */
    public long points() {
        long p = 1;
        for (long d : dims) {
            p = Math.multiplyHigh(p, d) != 0 || p * d < 0 ? Long.MAX_VALUE : p * d;
        }
        return p;
    }
}
