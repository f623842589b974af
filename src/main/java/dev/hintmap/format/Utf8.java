package dev.hintmap.format;

/**
 * UTF-8 of one code point, packed for the record path's {@code EncodedName}, which builds a slot's
 * little-endian words without a byte array; and of a whole name into a caller's buffer, for the
 * digest of a stored form ({@link StoredName.Shortener}).
 */
public final class Utf8 {
    private Utf8() {}

    /**
     * Writes the UTF-8 bytes of {@code name} into {@code dst} from index 0, allocating nothing.
     *
     * @param name a name whose surrogates are paired ({@link StoredName#utf8Length} checked it)
     * @param dst a buffer of at least the name's UTF-8 length
     * @return the number of bytes written
     * @throws IllegalArgumentException for an unpaired surrogate
     * @throws ArrayIndexOutOfBoundsException when {@code dst} is too small
     */
    public static int encode(String name, byte[] dst) {
        int at = 0;
        int length = name.length();
        for (int i = 0; i < length; i++) {
            char c = name.charAt(i);
            if (c < 0x80) { // kernel names are ASCII: one byte, no inner loop
                dst[at++] = (byte) c;
                continue;
            }
            int codePoint = c;
            if (Character.isSurrogate(c)) {
                char low = i + 1 < length ? name.charAt(i + 1) : 0;
                if (!Character.isHighSurrogate(c) || !Character.isLowSurrogate(low)) {
                    throw new IllegalArgumentException("unpaired surrogate at index " + i);
                }
                codePoint = Character.toCodePoint(c, low);
                i++;
            }
            int packed = packed(codePoint);
            for (int b = 0, n = length(codePoint); b < n; b++) {
                dst[at++] = (byte) (packed >>> (8 * b));
            }
        }
        return at;
    }

    /** How many UTF-8 bytes {@code codePoint} takes: 1 to 4. */
    public static int length(int codePoint) {
        return codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4;
    }

    /** The UTF-8 bytes of {@code codePoint}, packed little-endian into an int: the first byte lowest. */
    public static int packed(int codePoint) {
        if (codePoint < 0x80) {
            return codePoint;
        }
        if (codePoint < 0x800) {
            return (0xC0 | (codePoint >>> 6)) | (0x80 | (codePoint & 0x3F)) << 8;
        }
        if (codePoint < 0x10000) {
            return (0xE0 | (codePoint >>> 12)) | (0x80 | ((codePoint >>> 6) & 0x3F)) << 8 | (0x80 | (codePoint & 0x3F)) << 16;
        }
        return (0xF0 | (codePoint >>> 18)) | (0x80 | ((codePoint >>> 12) & 0x3F)) << 8
                | (0x80 | ((codePoint >>> 6) & 0x3F)) << 16 | (0x80 | (codePoint & 0x3F)) << 24;
    }
}
