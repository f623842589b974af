package dev.hintmap.store;

import dev.hintmap.format.FileGeometry;
import dev.hintmap.format.Hm64;

/**
 * A region name as a slot stores it: UTF-8 bytes packed little-endian into words, zero past the
 * end, with its {@code hm64} hash. The record path encodes into a per-thread instance, so
 * recording by name allocates nothing; a {@code Region} handle keeps its own.
 */
public final class EncodedName {
    final long[] words;
    int byteLength;
    long hash;
    /** The String this was last encoded from; lets a thread skip re-encoding a repeated name. */
    String source;

    /** A buffer for names of any length the format allows. */
    EncodedName() {
        this(FileGeometry.MAX_NAME_BYTES_LIMIT / 8);
    }

    /** A buffer of {@code words} words, for names known to fit. */
    EncodedName(int words) {
        this.words = new long[words];
    }

    /** An exact-size copy, for handles that keep a name. */
    EncodedName copy() {
        EncodedName copy = new EncodedName(wordCount());
        System.arraycopy(words, 0, copy.words, 0, wordCount());
        copy.byteLength = byteLength;
        copy.hash = hash;
        return copy;
    }

    int wordCount() {
        return (byteLength + 7) >>> 3;
    }

    /**
     * Encodes {@code name}, rejecting what no store accepts.
     *
     * @throws IllegalArgumentException for null, empty, over-long or non-UTF-8-encodable names
     */
    public void encodeChecked(String name, int maxNameBytes) {
        if (name == null) {
            throw new IllegalArgumentException("region name is null");
        }
        if (name == source) {
            if (byteLength > maxNameBytes) {
                throw tooLong(name, maxNameBytes);
            }
            return;
        }
        source = null;
        int length = name.length();
        if (length == 0) {
            throw new IllegalArgumentException("region name is empty");
        }
        int bytes = 0;
        long word = 0;
        for (int i = 0; i < length; i++) {
            char c = name.charAt(i);
            if (c < 0x80) { // generator names are ASCII: one byte, no inner loop
                if (bytes == maxNameBytes) {
                    throw tooLong(name, maxNameBytes);
                }
                word |= (long) c << (8 * (bytes & 7));
                if ((++bytes & 7) == 0) {
                    words[(bytes >>> 3) - 1] = word;
                    word = 0;
                }
                continue;
            }
            int encoded;
            int count;
            if (c < 0x800) {
                encoded = (0xC0 | (c >>> 6)) | (0x80 | (c & 0x3F)) << 8;
                count = 2;
            } else if (Character.isSurrogate(c)) {
                char low = i + 1 < length ? name.charAt(i + 1) : 0;
                if (!Character.isHighSurrogate(c) || !Character.isLowSurrogate(low)) {
                    throw new IllegalArgumentException("region name " + quote(name)
                            + " is not encodable as UTF-8: unpaired surrogate at index " + i);
                }
                int cp = Character.toCodePoint(c, low);
                i++;
                encoded = (0xF0 | (cp >>> 18)) | (0x80 | ((cp >>> 12) & 0x3F)) << 8
                        | (0x80 | ((cp >>> 6) & 0x3F)) << 16 | (0x80 | (cp & 0x3F)) << 24;
                count = 4;
            } else {
                encoded = (0xE0 | (c >>> 12)) | (0x80 | ((c >>> 6) & 0x3F)) << 8 | (0x80 | (c & 0x3F)) << 16;
                count = 3;
            }
            if (bytes + count > maxNameBytes) {
                throw tooLong(name, maxNameBytes);
            }
            for (int b = 0; b < count; b++) {
                word |= ((encoded >>> (8 * b)) & 0xFFL) << (8 * (bytes & 7));
                bytes++;
                if ((bytes & 7) == 0) {
                    words[(bytes >>> 3) - 1] = word;
                    word = 0;
                }
            }
        }
        if ((bytes & 7) != 0) {
            words[bytes >>> 3] = word;
        }
        byteLength = bytes;
        hash = Hm64.ofWords(words, bytes);
        source = name;
    }

    /** Whether the stored bytes are well-formed UTF-8 (recovery's soundness rule, §8 step 2c). */
    boolean isWellFormedUtf8() {
        byte[] bytes = new byte[byteLength];
        for (int i = 0; i < byteLength; i++) {
            bytes[i] = (byte) (words[i >>> 3] >>> (8 * (i & 7)));
        }
        return FileVerifier.decodeUtf8(bytes) != null;
    }

    private static IllegalArgumentException tooLong(String name, int maxNameBytes) {
        return new IllegalArgumentException("region name " + quote(name) + " is longer than "
                + maxNameBytes + " UTF-8 bytes");
    }

    static String quote(String name) {
        String shown = name.length() > 80 ? name.substring(0, 80) + "..." : name;
        return "\"" + shown + "\"";
    }
}
