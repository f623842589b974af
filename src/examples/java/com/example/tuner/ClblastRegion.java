package com.example.tuner;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A region name the CLBlast runtime records (docs/PGO.md, "Region names"), parsed back:
 * {@code clblast:KERNEL:PRECISION:SHAPE[:LAYOUT]}, e.g. {@code clblast:Xgemm:f32:m=1024,n=4096,k=1024:NN}.
 * The kernel is the CLBlast kernel its tuner keys (Xgemm, Xgemv, Xaxpy), the precision {@code f16},
 * {@code f32} or {@code f64}, the shape the routine's sizes in the order the runtime writes them (any
 * size up to 18 digits parses: whether one is worth tuning is {@link ClblastTunables}' bound).
 *
 * @param name the region name as recorded
 * @param kernel the CLBlast kernel family, e.g. {@code Xgemm}
 * @param precision CLBlast's precision number: 16, 32 or 64
 * @param shape the sizes by name ({@code m}, {@code n}, {@code k}), in the order written
 * @param layout the layout and transposition suffix ({@code NN}, {@code N}), empty when none
 */
public record ClblastRegion(String name, String kernel, int precision, Map<String, Long> shape, String layout) {
    private static final Pattern NAME =
            Pattern.compile("clblast:([A-Za-z][A-Za-z0-9]*):f(16|32|64):([a-z]=[0-9]{1,18}(?:,[a-z]=[0-9]{1,18})*)(?::([A-Z]{1,2}))?");

    /** Keeps an immutable copy of the shape. */
    public ClblastRegion {
        shape = Map.copyOf(shape);
    }

    /**
     * Parses a region name; anything else (another runtime's kernel, a hand-made name, a stored form
     * shortened because it was too long) is not a CLBlast region and gets CLBlast's defaults.
     *
     * @param name a region name from the hint file
     * @return the parsed region, or empty when {@code name} is not one the runtime writes
     */
    public static Optional<ClblastRegion> parse(String name) {
        Matcher m = NAME.matcher(name);
        if (!m.matches()) {
            return Optional.empty();
        }
        Map<String, Long> shape = new LinkedHashMap<>();
        for (String part : m.group(3).split(",")) {
            String key = part.substring(0, 1);
            long value = Long.parseLong(part.substring(2));
            if (value <= 0 || shape.putIfAbsent(key, value) != null) {
                return Optional.empty(); // a zero size or a size named twice: not a shape the runtime writes
            }
        }
        return Optional.of(new ClblastRegion(name, m.group(1), Integer.parseInt(m.group(2)), shape,
                m.group(4) == null ? "" : m.group(4)));
    }

    /**
     * One size of the shape.
     *
     * @param key {@code m}, {@code n} or {@code k}
     * @return its value, or empty when the shape has none
     */
    public Optional<Long> size(String key) {
        return Optional.ofNullable(shape.get(key));
    }
}
