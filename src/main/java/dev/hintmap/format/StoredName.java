package dev.hintmap.format;

import java.nio.charset.StandardCharsets;

/**
 * The form in which a file stores a region name, FORMAT.md §1.1: a name of at most
 * {@code max_name_bytes} UTF-8 bytes as it is; a longer one as a prefix of it cut on a character
 * boundary, {@code '~'} and the 16 lowercase hex digits of {@code hm64} over the whole name (only
 * the first {@code max_name_bytes} hex digits when the limit is below 17). Every API that takes a
 * name applies it, in Java and C, so a long kernel name recorded anywhere is found by the same
 * long name everywhere; the stored form of a stored form is itself.
 *
 * <p>Two long names share a region only when their hashes are equal and their kept prefixes
 * agree (or when someone records, as a short name, a string that is another name's stored form).
 */
public final class StoredName {
    /** The separator between the kept prefix and the hash. */
    public static final char SEPARATOR = '~';
    /** {@code '~'} and 16 hex digits. */
    public static final int TAG_BYTES = 17;
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private StoredName() {}

    /**
     * The stored form of {@code name} in a file whose limit is {@code maxNameBytes}.
     *
     * @param name a non-empty name that UTF-8 can encode (no unpaired surrogate)
     * @param maxNameBytes the file's {@code max_name_bytes}, {@code >= 1}
     * @return {@code name} itself when it fits, else its shortened form of at most
     *     {@code maxNameBytes} bytes
     * @throws IllegalArgumentException for a null, empty or unencodable name, or a limit below 1
     */
    public static String of(String name, int maxNameBytes) {
        if (maxNameBytes < 1) {
            throw new IllegalArgumentException("max_name_bytes " + maxNameBytes + " is below 1");
        }
        int bytes = utf8Length(name);
        return bytes <= maxNameBytes ? name : shorten(name, bytes, maxNameBytes);
    }

    /**
     * The UTF-8 length of {@code name}, checking that it is a valid region name.
     *
     * @throws IllegalArgumentException for a null or empty name, or an unpaired surrogate
     */
    public static int utf8Length(String name) {
        if (name == null) {
            throw new IllegalArgumentException("region name is null");
        }
        int length = name.length();
        if (length == 0) {
            throw new IllegalArgumentException("region name is empty");
        }
        int bytes = 0;
        for (int i = 0; i < length; i++) {
            char c = name.charAt(i);
            if (c < 0x80) {
                bytes++;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (!Character.isSurrogate(c)) {
                bytes += 3;
            } else if (Character.isHighSurrogate(c) && i + 1 < length && Character.isLowSurrogate(name.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else {
                throw new IllegalArgumentException("region name " + quote(name)
                        + " is not encodable as UTF-8: unpaired surrogate at index " + i);
            }
        }
        return bytes;
    }

    /**
     * Whether {@code stored}, a name as a file of limit {@code maxNameBytes} holds it, has the
     * shape of the stored form of a longer name: the longest prefix that the rule keeps,
     * {@link #SEPARATOR} and the hash's lowercase hex digits (for a limit below {@link #TAG_BYTES},
     * exactly {@code maxNameBytes} of those digits). Only the shape can be seen: a short name
     * recorded in that shape on purpose is the same bytes in the file (FORMAT.md §1.1). What the
     * tools use to say that a name's tail is not in the file, and to show its tag
     * ({@link #tagOf}) whatever else of the name a narrow table leaves out.
     *
     * @param stored a name read from the file
     * @param maxNameBytes the file's {@code max_name_bytes}, {@code >= 1}
     */
    public static boolean isShortened(String stored, int maxNameBytes) {
        if (stored == null || stored.isEmpty() || maxNameBytes < 1) {
            return false;
        }
        if (maxNameBytes < TAG_BYTES) {
            return stored.length() == maxNameBytes && isHex(stored, 0);
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
     * The tag of a shortened stored name: {@link #SEPARATOR} and the hash's hex digits (the whole
     * name for a limit below {@link #TAG_BYTES}); the empty string for a name that is not
     * {@link #isShortened shortened}.
     */
    public static String tagOf(String stored, int maxNameBytes) {
        if (!isShortened(stored, maxNameBytes)) {
            return "";
        }
        return maxNameBytes < TAG_BYTES ? stored : stored.substring(stored.length() - TAG_BYTES);
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
     * @param toLimit a limit in {@code [1, fromLimit]}
     * @throws IllegalArgumentException for a bad name or a {@code toLimit} outside {@code [1, fromLimit]}
     */
    public static String atSmallerLimit(String stored, int fromLimit, int toLimit) {
        if (toLimit < 1 || toLimit > fromLimit) {
            throw new IllegalArgumentException("limit " + toLimit + " is not in [1, " + fromLimit + "]");
        }
        if (!isShortened(stored, fromLimit)) {
            return of(stored, toLimit);
        }
        if (fromLimit < TAG_BYTES) {
            return stored.substring(0, toLimit); // a form of hex digits only: its first ones
        }
        String tag = stored.substring(stored.length() - (TAG_BYTES - 1));
        if (toLimit < TAG_BYTES) {
            return tag.substring(0, toLimit);
        }
        byte[] prefix = stored.substring(0, stored.length() - TAG_BYTES).getBytes(StandardCharsets.UTF_8);
        // The prefix is the whole name's own, cut on a character boundary: cutting it again cuts the name there.
        int keep = prefixBytes(prefix, toLimit - TAG_BYTES);
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

    /** The shortened form of a name of {@code bytes} UTF-8 bytes, {@code bytes > maxNameBytes}. */
    static String shorten(String name, int bytes, int maxNameBytes) {
        byte[] utf8 = name.getBytes(StandardCharsets.UTF_8); // valid: utf8Length checked the surrogates
        char[] hex = hex16(Hm64.ofBytes(utf8, bytes));
        if (maxNameBytes < TAG_BYTES) {
            return new String(hex, 0, maxNameBytes);
        }
        int keep = prefixBytes(utf8, maxNameBytes - TAG_BYTES);
        return new String(utf8, 0, keep, StandardCharsets.UTF_8) + SEPARATOR + new String(hex);
    }

    /** The longest prefix of {@code utf8} of at most {@code limit} bytes that ends on a character boundary. */
    static int prefixBytes(byte[] utf8, int limit) {
        int cut = Math.min(limit, utf8.length);
        while (cut > 0 && cut < utf8.length && (utf8[cut] & 0xC0) == 0x80) {
            cut--; // utf8[cut] continues a character: the cut would split it
        }
        return cut;
    }

    private static char[] hex16(long hash) {
        char[] hex = new char[16];
        for (int i = 15; i >= 0; i--) {
            hex[i] = HEX[(int) (hash & 0xF)];
            hash >>>= 4;
        }
        return hex;
    }

    /** A name for a message: its first 80 chars. */
    public static String quote(String name) {
        String shown = name.length() > 80 ? name.substring(0, 80) + "..." : name;
        return "\"" + shown + "\"";
    }
}
