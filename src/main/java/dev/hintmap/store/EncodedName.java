package dev.hintmap.store;

import dev.hintmap.format.FileGeometry;
import dev.hintmap.format.Hm64;
import dev.hintmap.format.StoredName;
import dev.hintmap.format.Utf8;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * A region name as a slot stores it: UTF-8 bytes packed little-endian into words, zero past the
 * end, with its {@code hm64} hash. The record path encodes into a per-thread instance, so
 * recording by name allocates nothing; a {@code Region} handle keeps its own.
 */
public final class EncodedName {
    /** The stored name's bytes, 8 per word; grows for a longer name (a cache entry starts small). */
    long[] words;
    int byteLength;
    long hash;
    /** The String this was last encoded from; lets a thread skip re-encoding a repeated name. */
    String source;
    /** {@link #source}'s own UTF-8 length: larger than {@link #byteLength} when it was shortened. */
    private int sourceBytes;
    /** The limit {@link #source} was shortened for; 0 when it is stored whole. */
    private int shortenedFor;

    /** A buffer for names of any length the format allows. */
    EncodedName() {
        this(FileGeometry.MAX_NAME_BYTES_LIMIT / 8);
    }

    /** A buffer of {@code words} words to start with. */
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
     * Encodes {@code name} as a file of limit {@code maxNameBytes} stores it: itself, or its
     * stored form when it is longer ({@link StoredName}, FORMAT.md §1.1).
     *
     * @param rejectLong whether a name longer than the limit is an error instead
     * @throws IllegalArgumentException for null, empty or non-UTF-8-encodable names, and for a
     *     name longer than the limit when {@code rejectLong}
     */
    public void encodeChecked(String name, int maxNameBytes, boolean rejectLong) {
        if (name == null) {
            throw new IllegalArgumentException("region name is null");
        }
        if (name == source) {
            if (sourceBytes <= maxNameBytes) {
                if (shortenedFor == 0) {
                    return; // encoded whole: right for any store whose limit it fits
                }
            } else if (rejectLong) {
                throw tooLong(name, maxNameBytes);
            } else if (shortenedFor == maxNameBytes) {
                return; // shortened for this very limit
            }
        }
        source = null;
        if (encode(name, maxNameBytes)) {
            sourceBytes = byteLength;
            shortenedFor = 0;
        } else {
            int bytes = StoredName.utf8Length(name);
            if (rejectLong) {
                throw tooLong(name, maxNameBytes);
            }
            encodeStoredForm(name, bytes, maxNameBytes);
            sourceBytes = bytes;
            shortenedFor = maxNameBytes;
        }
        hash = Hm64.ofWords(words, byteLength);
        source = name;
    }

    /**
     * Packs the stored form of {@code name}, {@code bytes > maxNameBytes} UTF-8 bytes long, into
     * {@link #words}: the calling thread's {@link StoredName.Shortener} writes it (the one home
     * of the rule, FORMAT.md §1.1), this packs its bytes. Allocates nothing once the thread's
     * shortener exists (a repeated String skips this through {@link #source}); one shortener per
     * thread, not per cached name.
     */
    private void encodeStoredForm(String name, int bytes, int maxNameBytes) {
        StoredName.Shortener shortener = StoredName.Shortener.ofThisThread();
        int length = shortener.shorten(name, bytes, maxNameBytes);
        byte[] stored = shortener.storedForm();
        int room = (length + 7) >>> 3;
        if (words.length < room) {
            words = new long[room];
        }
        for (int at = 0; at < length; at++) {
            appendByte(at, stored[at]);
        }
        byteLength = length;
    }

    /** Puts byte {@code at} of the name, clearing its word when it starts one: zero past the end, as slots store names. */
    private void appendByte(int at, byte value) {
        if ((at & 7) == 0) {
            words[at >>> 3] = 0;
        }
        words[at >>> 3] |= (value & 0xFFL) << (8 * (at & 7));
    }

    /**
     * Packs {@code name}'s UTF-8 bytes into {@link #words}; false when they exceed
     * {@code maxNameBytes} (the words then hold a partial name, which the caller overwrites).
     *
     * @throws IllegalArgumentException for an empty name or an unpaired surrogate
     */
    private boolean encode(String name, int maxNameBytes) {
        int length = name.length();
        if (length == 0) {
            throw new IllegalArgumentException("region name is empty");
        }
        int room = (Math.min(maxNameBytes, 3 * length) + 7) >>> 3; // a char is at most 3 bytes (a pair, 4 for 2)
        if (words.length < room) {
            words = new long[room];
        }
        int bytes = 0;
        long word = 0;
        for (int i = 0; i < length; i++) {
            char c = name.charAt(i);
            if (c < 0x80) { // generator names are ASCII: one byte, no inner loop
                if (bytes == maxNameBytes) {
                    return false;
                }
                word |= (long) c << (8 * (bytes & 7));
                if ((++bytes & 7) == 0) {
                    words[(bytes >>> 3) - 1] = word;
                    word = 0;
                }
                continue;
            }
            int codePoint = c;
            if (Character.isSurrogate(c)) {
                char low = i + 1 < length ? name.charAt(i + 1) : 0;
                if (!Character.isHighSurrogate(c) || !Character.isLowSurrogate(low)) {
                    throw new IllegalArgumentException("region name " + StoredName.quote(name)
                            + " is not encodable as UTF-8: unpaired surrogate at index " + i);
                }
                codePoint = Character.toCodePoint(c, low);
                i++;
            }
            int encoded = Utf8.packed(codePoint);
            int count = Utf8.length(codePoint);
            if (bytes + count > maxNameBytes) {
                return false;
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
        return true;
    }

    /**
     * The name as a String when its bytes are valid UTF-8, else null: strictly valid, as a writer
     * encodes (no overlong form, no surrogate, nothing above U+10FFFF), the rule of a sound stored
     * name (§8 step 2c; C's {@code hmi_utf8_valid}). Allocates: for recovery, verify and upgrade.
     */
    String decodeStrict() {
        byte[] bytes = new byte[byteLength];
        for (int i = 0; i < byteLength; i++) {
            bytes[i] = (byte) (words[i >>> 3] >>> (8 * (i & 7)));
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    private static IllegalArgumentException tooLong(String name, int maxNameBytes) {
        return new IllegalArgumentException("region name " + StoredName.quote(name) + " is longer than "
                + maxNameBytes + " UTF-8 bytes (names are shortened to their stored form unless the store was opened"
                + " with rejectLongNames(true))");
    }
}
