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
        encodeChecked(name, maxNameBytes, rejectLong, EncodedNames.scratch().utf8);
    }

    /**
     * As {@link #encodeChecked(String, int, boolean)}, encoding through {@code buffer}, the calling
     * thread's ({@link EncodedNames.Scratch#utf8}): the record path has its scratch already, so a
     * name that must be encoded costs no second thread-local lookup.
     */
    void encodeChecked(String name, int maxNameBytes, boolean rejectLong, Utf8Buffer buffer) {
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
        if (encode(name, maxNameBytes, buffer)) {
            sourceBytes = byteLength;
            shortenedFor = 0;
        } else {
            int bytes = StoredName.utf8Length(name);
            if (rejectLong) {
                throw tooLong(name, maxNameBytes);
            }
            encodeStoredForm(name, bytes, maxNameBytes, buffer);
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
    private void encodeStoredForm(String name, int bytes, int maxNameBytes, Utf8Buffer buffer) {
        StoredName.Shortener shortener = StoredName.Shortener.ofThisThread();
        int length = shortener.shorten(name, bytes, maxNameBytes);
        System.arraycopy(shortener.storedForm(), 0, buffer.bytes, 0, length); // at most 1 KB, beside a SHA-256 of the name
        buffer.pack(length, this);
    }

    /**
     * Encodes {@code name} with {@link Utf8#encode}, the one encoder, into the thread's {@code buffer} and
     * packs the bytes into {@link #words}; false when they exceed {@code maxNameBytes} (then
     * nothing here changed).
     *
     * @throws IllegalArgumentException for an empty name or an unpaired surrogate
     */
    private boolean encode(String name, int maxNameBytes, Utf8Buffer buffer) {
        if (name.isEmpty()) {
            throw new IllegalArgumentException("region name is empty");
        }
        // A limit above the format's (no store has one) finds the name too long; shortening it then refuses the limit.
        int length = Utf8.encode(name, buffer.bytes, Math.min(maxNameBytes, buffer.bytes.length));
        if (length == Utf8.TOO_LONG) {
            return false;
        }
        if (length == Utf8.UNPAIRED_SURROGATE) {
            StoredName.utf8Length(name); // throws, naming the surrogate's index
            throw new IllegalStateException("Utf8.encode and Utf8.length disagree on " + StoredName.quote(name));
        }
        buffer.pack(length, this);
        return true;
    }

    /**
     * A thread's buffer for the UTF-8 of one name of at most {@code MAX_NAME_BYTES_LIMIT} bytes,
     * packed eight bytes per little-endian load: the record path's encoding then costs one byte
     * store per ASCII char and one load per word. The thread's {@link EncodedNames.Scratch} owns
     * it, so the record path finds it with the one thread-local lookup it makes anyway (a
     * ThreadLocal of its own cost recordCopy 12-20 ns of ~130).
     */
    static final class Utf8Buffer {
        /** A little-endian long view of a byte[]: a plain load the JIT emits as one mov. */
        private static final VarHandle LONG_LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
        /** A multiple of 8 at least as large as any limit: a whole last word can be loaded. */
        final byte[] bytes = new byte[FileGeometry.MAX_NAME_BYTES_LIMIT];

        /** Packs {@code bytes[0, length)} into {@code out}'s words, zero past the end as slots store names. */
        void pack(int length, EncodedName out) {
            int count = (length + 7) >>> 3;
            if (out.words.length < count) {
                out.words = new long[count];
            }
            for (int w = 0; w < count - 1; w++) {
                out.words[w] = (long) LONG_LE.get(bytes, 8 * w);
            }
            if (count > 0) {
                int tail = length - 8 * (count - 1); // 1..8 bytes of the last word are the name's
                long mask = tail == 8 ? -1L : (1L << (8 * tail)) - 1;
                out.words[count - 1] = (long) LONG_LE.get(bytes, 8 * (count - 1)) & mask; // past the end: stale bytes, cleared
            }
            out.byteLength = length;
        }
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

    private static IllegalArgumentException tooLong(String name, int maxNameBytes) {
        return new IllegalArgumentException("region name " + StoredName.quote(name) + " is longer than "
                + maxNameBytes + " UTF-8 bytes (names are shortened to their stored form unless the store was opened"
                + " with rejectLongNames(true))");
    }
}
