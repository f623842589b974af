package dev.hintmap.format;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * The one home in Java of UTF-8 for region names (FORMAT.md §1): a String to UTF-8 ({@link #encode}),
 * its length and validity ({@link #length}), and bytes back to a String only when they are strictly
 * valid ({@link #decodeStrict}), or for display with U+FFFD for each maximal ill-formed subpart
 * ({@link #decodeReplacing}). Every caller uses these: the record path's {@code EncodedName}, the
 * stored-name rule ({@link StoredName}, its {@code Encoder}), {@code RegionView}'s allocation-free
 * name compares, the slot soundness of recovery, verify and upgrade, and the CLI's JSON input. C's
 * twin is {@code hmi_utf8_char} (native-bench/src/hm_utf8.h), under {@code hmi_utf8_valid} and the
 * CUPTI collector's sanitiser; the shared vectors {@code vectors/utf8.txt} prove that the two
 * accept the same bytes.
 *
 * <p>A Java String is UTF-16; a name is encodable when its surrogates are paired. One with an
 * unpaired surrogate is refused, never encoded as {@code '?'} the way {@code String.getBytes} does:
 * two different Strings would otherwise share one stored name.
 */
public final class Utf8 {
    /** {@link #encode}'s answer when the string needs more bytes than the limit. */
    public static final int TOO_LONG = -1;
    /** {@link #encode}'s answer for a string with an unpaired surrogate (checked up to the limit). */
    public static final int UNPAIRED_SURROGATE = -2;

    private Utf8() {}

    /**
     * Writes the UTF-8 bytes of {@code s} into {@code dst} from index 0, at most {@code limit} of
     * them, allocating nothing: the encoder of every name path. Kernel names are ASCII, so an ASCII
     * char costs one compare and one store.
     *
     * @param s a string
     * @param dst a buffer of at least {@code limit} bytes; past the returned length (or on a
     *     negative answer) its contents are undefined
     * @param limit the most bytes to write, {@code <= dst.length}
     * @return the number of bytes written, {@code [0, limit]}; {@link #TOO_LONG} when {@code s}
     *     needs more than {@code limit} (it stops there, so an unpaired surrogate after that point is
     *     not seen); {@link #UNPAIRED_SURROGATE} when one is met first
     */
    public static int encode(String s, byte[] dst, int limit) {
        int at = 0;
        int length = s.length();
        for (int i = 0; i < length; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                if (at == limit) {
                    return TOO_LONG;
                }
                dst[at++] = (byte) c;
                continue;
            }
            int cp = c;
            if (Character.isSurrogate(c)) {
                cp = pairedCodePoint(s, i);
                if (cp < 0) {
                    return UNPAIRED_SURROGATE;
                }
                i++;
            }
            if (cp < 0x800) {
                if (at + 2 > limit) {
                    return TOO_LONG;
                }
                dst[at++] = (byte) (0xC0 | (cp >>> 6));
            } else if (cp < 0x10000) {
                if (at + 3 > limit) {
                    return TOO_LONG;
                }
                dst[at++] = (byte) (0xE0 | (cp >>> 12));
                dst[at++] = (byte) (0x80 | ((cp >>> 6) & 0x3F));
            } else {
                if (at + 4 > limit) {
                    return TOO_LONG;
                }
                dst[at++] = (byte) (0xF0 | (cp >>> 18));
                dst[at++] = (byte) (0x80 | ((cp >>> 12) & 0x3F));
                dst[at++] = (byte) (0x80 | ((cp >>> 6) & 0x3F));
            }
            dst[at++] = (byte) (0x80 | (cp & 0x3F));
        }
        return at;
    }

    /**
     * The number of UTF-8 bytes of {@code s}: what {@link #encode} writes with no limit.
     *
     * @throws IllegalArgumentException for an unpaired surrogate, naming its index
     */
    public static int length(String s) {
        int bytes = 0;
        int length = s.length();
        for (int i = 0; i < length; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                bytes++;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (!Character.isSurrogate(c)) {
                bytes += 3;
            } else if (pairedCodePoint(s, i) >= 0) {
                bytes += 4;
                i++;
            } else {
                throw new IllegalArgumentException("unpaired surrogate at index " + i);
            }
        }
        return bytes;
    }

    /** The code point of the surrogate pair starting at {@code s[i]}, a surrogate; -1 when it is not a pair's first half followed by its second. */
    private static int pairedCodePoint(String s, int i) {
        char high = s.charAt(i);
        char low = i + 1 < s.length() ? s.charAt(i + 1) : 0;
        return Character.isHighSurrogate(high) && Character.isLowSurrogate(low) ? Character.toCodePoint(high, low) : -1;
    }

    /**
     * {@code bytes[0, length)} as a String for display, each ill-formed part replaced by U+FFFD
     * (FORMAT.md §9.1): a well-formed character (RFC 3629, as {@link #decodeStrict} accepts) is
     * kept; elsewhere one U+FFFD stands for each <em>maximal subpart</em> — the longest run of
     * bytes from that point that begins some well-formed character (a valid lead byte and the
     * continuation bytes it allows, short of a whole character), or the single byte where no
     * character can begin. This is Unicode's recommended practice (chapter 3, "U+FFFD
     * Substitution of Maximal Subparts"), the WHATWG encoding standard's and Python's
     * {@code errors="replace"}: {@code ED A0 80} (a surrogate) gives three U+FFFD, {@code E2 82}
     * (a character cut short) one. The JDK's own decoder gives one for a surrogate's three bytes,
     * so listings do not use it. C's twin is {@code hmi_utf8_malformed} (hm_utf8.h); the shared
     * vectors {@code vectors/utf8-replacement.txt} hold the cases.
     */
    public static String decodeReplacing(byte[] bytes, int length) {
        StringBuilder out = new StringBuilder(length);
        int i = 0;
        while (i < length) {
            int n = charLength(bytes, i, length);
            if (n == 0) {
                out.append('\uFFFD');
                i += malformedLength(bytes, i, length);
                continue;
            }
            int cp = n == 1 ? bytes[i] : bytes[i] & (0xFF >>> (n + 1));
            for (int k = 1; k < n; k++) {
                cp = cp << 6 | (bytes[i + k] & 0x3F);
            }
            out.appendCodePoint(cp);
            i += n;
        }
        return out.toString();
    }

    /**
     * Bytes of the well-formed character at {@code b[i]}, 1 to 4, or 0 when none starts there
     * (C's {@code hmi_utf8_char}): no overlong form, no surrogate, nothing above U+10FFFF, none cut short.
     */
    private static int charLength(byte[] b, int i, int end) {
        int c = b[i] & 0xFF;
        if (c < 0x80) {
            return 1;
        }
        int n = leadLength(c);
        if (n == 0 || end - i < n || !secondByteFits(c, b[i + 1] & 0xFF)) {
            return 0;
        }
        for (int k = 2; k < n; k++) {
            if ((b[i + k] & 0xC0) != 0x80) {
                return 0;
            }
        }
        return n;
    }

    /** Where {@link #charLength} is 0: the bytes of the maximal subpart at {@code b[i]}, at least 1. */
    private static int malformedLength(byte[] b, int i, int end) {
        int c = b[i] & 0xFF;
        int n = leadLength(c);
        if (n == 0 || i + 1 >= end || !secondByteFits(c, b[i + 1] & 0xFF)) {
            return 1; // no character starts here, or none goes on with the next byte
        }
        int k = 2;
        while (k < n - 1 && i + k < end && (b[i + k] & 0xC0) == 0x80) {
            k++; // short of a whole character: charLength found none
        }
        return k;
    }

    /** The length a lead byte announces (C2..DF: 2, E0..EF: 3, F0..F4: 4), or 0 for a byte no character starts with. */
    private static int leadLength(int c) {
        if (c >= 0xC2 && c <= 0xDF) {
            return 2;
        }
        if (c >= 0xE0 && c <= 0xEF) {
            return 3;
        }
        return c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    }

    /** Whether {@code second} may follow lead byte {@code c}: 80..BF, narrower after E0, ED, F0, F4. */
    private static boolean secondByteFits(int c, int second) {
        int lo = c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : 0x80; // below: overlong forms
        int hi = c == 0xED ? 0x9F : c == 0xF4 ? 0x8F : 0xBF; // above: surrogates, beyond U+10FFFF
        return second >= lo && second <= hi;
    }

    /**
     * {@code bytes[0, length)} as a String when they are strictly valid UTF-8 — what a writer
     * encodes: no overlong form, no surrogate, nothing above U+10FFFF, no truncated character —
     * else null (the rule of a sound stored name, FORMAT.md §8 step 2c; C's {@code hmi_utf8_valid}).
     * Allocates: for recovery, verify and upgrade, which read names from the file.
     */
    public static String decodeStrict(byte[] bytes, int length) {
        CharsetDecoder strict = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        try {
            return strict.decode(ByteBuffer.wrap(bytes, 0, length)).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }
}
