package dev.hintmap.format;

/**
 * The {@code hm64} hash of region names, exactly as {@code docs/FORMAT.md} §4 defines it.
 *
 * <p>Names are hashed as a sequence of little-endian 64-bit words with the bytes past the end
 * read as zero, which is also how a slot stores them; {@link #ofWords} therefore hashes a name
 * straight from its packed words without a byte array.
 */
public final class Hm64 {
    static final long P0 = 0xa0761d6478bd642fL;
    static final long P1 = 0xe7037ed1a0b428dbL;
    static final long P2 = 0x8ebc6af09c88c6e3L;

    private Hm64() {}

    /** The 128-bit product of {@code a} and {@code b}, folded by XOR of its halves. */
    static long mum(long a, long b) {
        return (a * b) ^ Math.unsignedMultiplyHigh(a, b);
    }

    /**
     * Hashes a name given as packed little-endian words.
     *
     * @param words the name's bytes, 8 per word, zero past {@code byteLength}
     * @param byteLength the name's length in bytes
     */
    public static long ofWords(long[] words, int byteLength) {
        long h = P0 ^ byteLength;
        int wordCount = (byteLength + 7) >>> 3;
        for (int i = 0; i < wordCount; i++) {
            h = mum(h ^ words[i], P1);
        }
        return mum(h ^ P2, P1);
    }

    /**
     * Hashes the UTF-8 form of {@code name} without materialising it: the same value as
     * {@link #ofBytes} of {@code name.getBytes(UTF_8)}, with no allocation (a long kernel name's
     * stored form, FORMAT.md §1.1, hashes the whole name on the record path).
     *
     * @param name a name with no unpaired surrogate
     * @param utf8Length its UTF-8 length, which the hash starts from
     */
    public static long ofUtf8(String name, int utf8Length) {
        long h = P0 ^ utf8Length;
        long word = 0;
        int bytes = 0;
        for (int i = 0; i < name.length(); i++) {
            int codePoint = name.codePointAt(i); // no unpaired surrogate: checked by the caller
            if (codePoint >= 0x10000) {
                i++;
            }
            int encoded = Utf8.packed(codePoint);
            int count = Utf8.length(codePoint);
            for (int b = 0; b < count; b++) {
                word |= ((encoded >>> (8 * b)) & 0xFFL) << (8 * (bytes & 7));
                if ((++bytes & 7) == 0) {
                    h = mum(h ^ word, P1);
                    word = 0;
                }
            }
        }
        if ((bytes & 7) != 0) {
            h = mum(h ^ word, P1);
        }
        return mum(h ^ P2, P1);
    }

    /** Hashes {@code length} bytes of {@code bytes} starting at 0 (cold paths: checksums, fingerprints). */
    public static long ofBytes(byte[] bytes, int length) {
        long[] words = new long[(length + 7) >>> 3];
        for (int i = 0; i < length; i++) {
            words[i >>> 3] |= (bytes[i] & 0xFFL) << (8 * (i & 7));
        }
        return ofWords(words, length);
    }
}
