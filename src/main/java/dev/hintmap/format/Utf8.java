package dev.hintmap.format;

/**
 * UTF-8 of one code point, packed for the name encoders that build a slot's little-endian words
 * (the record path's {@code EncodedName} and {@link Hm64#ofUtf8}) without a byte array.
 */
public final class Utf8 {
    private Utf8() {}

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
