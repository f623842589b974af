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

    /** Hashes {@code length} bytes of {@code bytes} starting at 0 (cold paths: checksums, fingerprints). */
    public static long ofBytes(byte[] bytes, int length) {
        long[] words = new long[(length + 7) >>> 3];
        for (int i = 0; i < length; i++) {
            words[i >>> 3] |= (bytes[i] & 0xFFL) << (8 * (i & 7));
        }
        return ofWords(words, length);
    }
}
