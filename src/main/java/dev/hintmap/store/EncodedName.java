package dev.hintmap.store;

import dev.hintmap.format.FileGeometry;
import dev.hintmap.format.Hm64;
import dev.hintmap.format.StoredName;
import dev.hintmap.format.Utf8;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * A region name as a slot stores it: UTF-8 bytes packed little-endian into words, zero past the
 * end, with its {@code hm64} hash. The record path encodes into a per-thread instance, so
 * recording by name allocates nothing; a {@code Region} handle keeps its own. How a String becomes
 * these bytes (checks, UTF-8, the stored form of a long name) is {@link StoredName.Encoder}'s job;
 * this class packs and hashes them.
 */
public final class EncodedName {
    /** A little-endian long view of a byte[]: a plain load the JIT emits as one mov. */
    private static final VarHandle LONG_LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

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
        encodeChecked(name, maxNameBytes, rejectLong, EncodedNames.scratch().encoder);
    }

    /**
     * As {@link #encodeChecked(String, int, boolean)}, through {@code encoder}, the calling thread's
     * ({@link EncodedNames.Scratch#encoder}): the record path has its scratch already, so a name that
     * must be encoded costs no second thread-local lookup. The one path of a name (FORMAT.md §1.1):
     * the encoder checks, encodes and shortens it ({@link StoredName.Encoder#encode}), this packs the
     * bytes into words and hashes them ({@link Hm64#ofWords}), each once; a String this was last encoded
     * from skips all of it while the limit allows.
     */
    void encodeChecked(String name, int maxNameBytes, boolean rejectLong, StoredName.Encoder encoder) {
        if (name == source && name != null
                && (sourceBytes <= maxNameBytes ? shortenedFor == 0 : !rejectLong && shortenedFor == maxNameBytes)) {
            return; // encoded whole and it fits, or shortened for this very limit (a refusal encodes again, to throw)
        }
        source = null;
        int length = encoder.encode(name, maxNameBytes, rejectLong);
        pack(encoder.bytes(), length);
        sourceBytes = encoder.nameBytes();
        shortenedFor = encoder.wasShortened() ? maxNameBytes : 0;
        hash = Hm64.ofWords(words, byteLength);
        source = name;
    }

    /**
     * Packs {@code bytes[0, length)} into {@link #words}, eight bytes per little-endian load, zero past
     * the end as slots store names: the encoding then costs one byte store per ASCII char and one load
     * per word. {@code bytes.length} is a multiple of 8 ({@link StoredName.Encoder#bytes}), so the last
     * word loads whole.
     */
    private void pack(byte[] bytes, int length) {
        int count = (length + 7) >>> 3;
        if (words.length < count) {
            words = new long[count];
        }
        for (int w = 0; w < count - 1; w++) {
            words[w] = (long) LONG_LE.get(bytes, 8 * w);
        }
        if (count > 0) {
            int tail = length - 8 * (count - 1); // 1..8 bytes of the last word are the name's
            long mask = tail == 8 ? -1L : (1L << (8 * tail)) - 1;
            words[count - 1] = (long) LONG_LE.get(bytes, 8 * (count - 1)) & mask; // past the end: stale bytes, cleared
        }
        byteLength = length;
    }

    /**
     * The name as a String when its bytes are strictly valid UTF-8 ({@link Utf8#decodeStrict}), else
     * null: the rule of a sound stored name (§8 step 2c; C's {@code hmi_utf8_valid}). Allocates: for
     * recovery, verify and upgrade.
     */
    String decodeStrict() {
        byte[] bytes = new byte[byteLength];
        for (int i = 0; i < byteLength; i++) {
            bytes[i] = (byte) (words[i >>> 3] >>> (8 * (i & 7)));
        }
        return Utf8.decodeStrict(bytes, byteLength);
    }
}
