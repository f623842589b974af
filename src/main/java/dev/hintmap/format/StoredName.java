package dev.hintmap.format;

import java.nio.charset.StandardCharsets;
import java.security.DigestException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The form in which a file stores a region name, FORMAT.md §1.1: a name of at most
 * {@code max_name_bytes} UTF-8 bytes as it is; a longer one as its longest prefix of at most
 * {@code max_name_bytes - 33} bytes cut on a character boundary, {@code '~'} and the 32 lowercase
 * hex digits of the first 16 bytes of SHA-256 over the whole name. Every API that takes a name
 * applies it, in Java and C, so a long kernel name recorded anywhere is found by the same long
 * name everywhere; the stored form of a stored form is itself.
 *
 * <p>Two different names share a region only when their stored forms are equal: for two long
 * names, a 128-bit SHA-256 collision with equal kept prefixes (a generic search costs about 2^64
 * SHA-256 evaluations); or when someone records, as a name, a string that is another name's
 * stored form (FORMAT.md §4).
 *
 * <p>This class is the one home of the rule in Java, and of the one path from a name to the bytes a
 * file stores for it: {@link Encoder#encode} checks the name (not null, not empty, no unpaired
 * surrogate; not over the limit where long names are refused), encodes it to UTF-8 once
 * ({@link Utf8#encode}) and shortens it in place when it is over the limit, allocating nothing. The
 * record path ({@code EncodedName}, which then packs the bytes into words and hashes them) and
 * {@link #of}, which gives the same bytes as a String, both go through it.
 */
public final class StoredName {
    /** The separator between the kept prefix and the digest. */
    public static final char SEPARATOR = '~';
    /** Bytes of SHA-256 the stored form keeps: 16 (128 bits). */
    public static final int DIGEST_BYTES = 16;
    /**
     * {@code '~'} and 32 hex digits: also the smallest {@code max_name_bytes} a file may have
     * ({@link FileGeometry#MIN_MAX_NAME_BYTES}, the tag with an empty prefix).
     */
    public static final int TAG_BYTES = 1 + 2 * DIGEST_BYTES;
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    private StoredName() {}

    /**
     * The stored form of {@code name} in a file whose limit is {@code maxNameBytes}.
     *
     * @param name a non-empty name that UTF-8 can encode (no unpaired surrogate)
     * @param maxNameBytes the file's {@code max_name_bytes}, in {@code [33, 1024]}
     * @return {@code name} itself when it fits, else its shortened form of at most
     *     {@code maxNameBytes} bytes
     * @throws IllegalArgumentException for a null, empty or unencodable name, or a limit outside
     *     {@code [33, 1024]}
     */
    public static String of(String name, int maxNameBytes) {
        Encoder encoder = Encoder.ofThisThread();
        int length = encoder.encode(name, maxNameBytes, false);
        return encoder.wasShortened() ? new String(encoder.bytes(), 0, length, StandardCharsets.UTF_8) : name;
    }

    private static void requireLimit(int maxNameBytes) {
        if (!FileGeometry.isNameLimit(maxNameBytes)) {
            throw new IllegalArgumentException("max_name_bytes " + maxNameBytes + " is outside ["
                    + FileGeometry.MIN_MAX_NAME_BYTES + ", " + FileGeometry.MAX_NAME_BYTES_LIMIT + "]");
        }
    }

    /**
     * The UTF-8 length of {@code name}, checking that it is a valid region name ({@link Utf8#length}).
     *
     * @throws IllegalArgumentException for a null or empty name, or an unpaired surrogate
     */
    public static int utf8Length(String name) {
        requireNonEmpty(name);
        try {
            return Utf8.length(name);
        } catch (IllegalArgumentException unpaired) {
            throw notEncodable(name, unpaired);
        }
    }

    private static void requireNonEmpty(String name) {
        if (name == null) {
            throw new IllegalArgumentException("region name is null");
        }
        if (name.isEmpty()) {
            throw new IllegalArgumentException("region name is empty");
        }
    }

    private static IllegalArgumentException notEncodable(String name, IllegalArgumentException unpaired) {
        return new IllegalArgumentException("region name " + quote(name) + " is not encodable as UTF-8: "
                + unpaired.getMessage(), unpaired);
    }

    private static IllegalArgumentException tooLong(String name, int maxNameBytes) {
        return new IllegalArgumentException("region name " + quote(name) + " is longer than "
                + maxNameBytes + " UTF-8 bytes (names are shortened to their stored form unless the store was opened"
                + " with rejectLongNames(true))");
    }

    /**
     * Whether {@code stored}, a name as a file of limit {@code maxNameBytes} holds it, has the
     * shape of the stored form of a longer name: the longest prefix that the rule keeps,
     * {@link #SEPARATOR} and the digest's 32 lowercase hex digits. Only the shape can be seen: a short name
     * recorded in that shape on purpose is the same bytes in the file (FORMAT.md §1.1). What the
     * tools use to say that a name's tail is not in the file, and to show its tag
     * ({@link #tagOf}) whatever else of the name a narrow table leaves out.
     *
     * @param stored a name read from the file
     * @param maxNameBytes the file's {@code max_name_bytes}: below {@link FileGeometry#MIN_MAX_NAME_BYTES} no name is shortened
     */
    public static boolean isShortened(String stored, int maxNameBytes) {
        if (stored == null || stored.isEmpty() || maxNameBytes < FileGeometry.MIN_MAX_NAME_BYTES) {
            return false;
        }
        int tagAt = stored.length() - TAG_BYTES;
        if (tagAt < 0 || stored.charAt(tagAt) != SEPARATOR || !isHex(stored, tagAt + 1)) {
            return false;
        }
        // The kept prefix is the longest of at most L - TAG_BYTES bytes ending on a character
        // boundary: at most 3 bytes shorter (a UTF-8 character has at most 4), so the stored form
        // is L - 3 .. L bytes. A short name that merely ends in '~' and hex digits is shorter.
        int bytes = utf8LengthOrZero(stored);
        return bytes > maxNameBytes - 4 && bytes <= maxNameBytes;
    }

    /**
     * The tag of a shortened stored name: {@link #SEPARATOR} and the digest's hex digits; the empty
     * string for a name that is not {@link #isShortened shortened}.
     */
    public static String tagOf(String stored, int maxNameBytes) {
        return isShortened(stored, maxNameBytes) ? stored.substring(stored.length() - TAG_BYTES) : "";
    }

    /**
     * The stored form at limit {@code toLimit} of the name that a file of limit {@code fromLimit}
     * holds as {@code stored}, computed from the stored form alone (FORMAT.md §1.1, "Across
     * limits"): a name held whole is shortened as {@link #of} does; a shortened form keeps its tag
     * (the hash of the whole name, which is not needed again) and its prefix is cut to the room
     * the smaller limit leaves, at a character boundary — what the whole name's form at
     * {@code toLimit} is. This is how profiles of different limits are compared and merged: a
     * kernel has one form at the smaller of two limits, whichever file it comes from.
     *
     * @param stored a name as a file of limit {@code fromLimit} holds it
     * @param fromLimit that file's {@code max_name_bytes}
     * @param toLimit a limit in {@code [FileGeometry.MIN_MAX_NAME_BYTES, fromLimit]}
     * @throws IllegalArgumentException for a bad name or a {@code toLimit} outside {@code [FileGeometry.MIN_MAX_NAME_BYTES, fromLimit]}
     */
    public static String atSmallerLimit(String stored, int fromLimit, int toLimit) {
        if (toLimit < FileGeometry.MIN_MAX_NAME_BYTES || toLimit > fromLimit) {
            throw new IllegalArgumentException("limit " + toLimit + " is not in [" + FileGeometry.MIN_MAX_NAME_BYTES + ", "
                    + fromLimit + "]");
        }
        if (!isShortened(stored, fromLimit)) {
            return of(stored, toLimit);
        }
        String tag = stored.substring(stored.length() - (TAG_BYTES - 1));
        byte[] prefix = stored.substring(0, stored.length() - TAG_BYTES).getBytes(StandardCharsets.UTF_8);
        // The prefix is the whole name's own, cut on a character boundary: cutting it again cuts the name there.
        int keep = prefixBytes(prefix, prefix.length, toLimit - TAG_BYTES);
        return new String(prefix, 0, keep, StandardCharsets.UTF_8) + SEPARATOR + tag;
    }

    private static boolean isHex(String s, int from) {
        for (int i = from; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
                return false;
            }
        }
        return from < s.length();
    }

    private static int utf8LengthOrZero(String name) {
        try {
            return utf8Length(name);
        } catch (IllegalArgumentException notAName) {
            return 0;
        }
    }

    /** The longest prefix of {@code utf8[0, length)} of at most {@code limit} bytes that ends on a character boundary. */
    static int prefixBytes(byte[] utf8, int length, int limit) {
        int cut = Math.min(limit, length);
        while (cut > 0 && cut < length && (utf8[cut] & 0xC0) == 0x80) {
            cut--; // utf8[cut] continues a character: the cut would split it
        }
        return cut;
    }

    /** A name for a message: its first 80 chars. */
    public static String quote(String name) {
        String shown = name.length() > 80 ? name.substring(0, 80) + "..." : name;
        return "\"" + shown + "\"";
    }

    /**
     * The one path from a name to the bytes a file stores for it, allocating nothing once made (a name
     * longer than any before grows its buffer once): the name is checked, encoded to UTF-8 once into
     * {@link #bytes()}, and, when it is over the limit, shortened there to its stored form (SHA-256 of
     * the bytes just encoded, the prefix cut on a character boundary, {@code '~'} and the tag). Each of
     * those steps has its home here, and each runs once per name: the record path, which encodes a
     * name it has not seen before, pays one encoding pass however long the name is. Not thread-safe:
     * each thread uses its own ({@link #ofThisThread}), one per thread however many names its name
     * cache holds.
     */
    public static final class Encoder {
        private static final ThreadLocal<Encoder> PER_THREAD = ThreadLocal.withInitial(Encoder::new);
        /** Made on the first long name: a thread that records only short names never loads SHA-256. */
        private MessageDigest sha256;
        private final byte[] digest = new byte[32];
        /** The UTF-8 of the last name, then its stored form; a multiple of 8 bytes, so a last word loads whole. */
        private byte[] bytes = new byte[FileGeometry.MAX_NAME_BYTES_LIMIT];
        /** The last name's own UTF-8 length: above the limit when {@link #bytes} holds its stored form. */
        private int nameBytes;
        private int limit;

        /** This thread's encoder. */
        public static Encoder ofThisThread() {
            return PER_THREAD.get();
        }

        /** An encoder with its own buffer (and, from its first long name, its own digest). */
        public Encoder() {}

        /**
         * Writes into {@link #bytes()}, from index 0, the bytes a file of limit {@code maxNameBytes}
         * stores for {@code name}: its UTF-8 when it fits, else its stored form (FORMAT.md §1.1).
         *
         * @param name the region's name
         * @param maxNameBytes the file's {@code max_name_bytes}, in {@code [33, 1024]}
         * @param rejectLong whether a name over the limit is refused rather than shortened
         * @return the number of bytes written, {@code [1, maxNameBytes]}
         * @throws IllegalArgumentException for a null or empty name or one with an unpaired surrogate
         *     (checked first, whatever its length), a name over the limit when {@code rejectLong}, or a
         *     limit outside {@code [33, 1024]}
         */
        public int encode(String name, int maxNameBytes, boolean rejectLong) {
            requireLimit(maxNameBytes);
            requireNonEmpty(name);
            int length = Utf8.encode(name, bytes, bytes.length);
            if (length == Utf8.TOO_LONG) {
                length = encodeGrown(name);
            }
            if (length == Utf8.UNPAIRED_SURROGATE) {
                utf8Length(name); // throws, naming the surrogate's index
                throw new IllegalStateException("Utf8.encode and Utf8.length disagree on " + quote(name));
            }
            nameBytes = length;
            limit = maxNameBytes;
            if (length <= maxNameBytes) {
                return length;
            }
            if (rejectLong) {
                throw tooLong(name, maxNameBytes);
            }
            return shortenInPlace(length, maxNameBytes);
        }

        /** Grows {@link #bytes} for a name longer than any this encoder has held, and encodes it there. */
        private int encodeGrown(String name) {
            int need = utf8Length(name); // validates too: an unpaired surrogate throws here
            int size = (int) Math.min(Integer.MAX_VALUE - 7, Math.max(need, 2L * bytes.length));
            bytes = new byte[(size + 7) & ~7];
            return Utf8.encode(name, bytes, bytes.length);
        }

        /**
         * Replaces the {@code length} bytes of a name over {@code maxNameBytes} in {@link #bytes} with
         * its stored form: the digest of all of them first, then the kept prefix stays where it is and
         * the tag is written after it, inside the bytes already digested.
         */
        private int shortenInPlace(int length, int maxNameBytes) {
            MessageDigest sha = sha256 != null ? sha256 : (sha256 = newSha256());
            sha.update(bytes, 0, length);
            try {
                sha.digest(digest, 0, digest.length); // resets the digest for the next name
            } catch (DigestException e) {
                throw new IllegalStateException(e); // the buffer holds 32 bytes: cannot happen
            }
            int at = prefixBytes(bytes, length, maxNameBytes - TAG_BYTES);
            bytes[at++] = (byte) SEPARATOR;
            for (int i = 0; i < DIGEST_BYTES; i++) { // most significant nibble first
                bytes[at++] = HEX[(digest[i] >>> 4) & 0xF];
                bytes[at++] = HEX[digest[i] & 0xF];
            }
            return at;
        }

        private static MessageDigest newSha256() {
            try {
                return MessageDigest.getInstance("SHA-256"); // every Java platform has it (java.security.MessageDigest)
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("this JVM has no SHA-256", e);
            }
        }

        /**
         * The bytes the last {@link #encode} wrote, from index 0; valid until the next call. The array's
         * length is a multiple of 8 and at least the written length, so its last word can be loaded whole.
         */
        public byte[] bytes() {
            return bytes;
        }

        /** The UTF-8 length of the last name encoded, whole: above the limit when it was shortened. */
        public int nameBytes() {
            return nameBytes;
        }

        /** Whether the last {@link #encode} wrote a stored form rather than the name itself. */
        public boolean wasShortened() {
            return nameBytes > limit;
        }
    }
}
