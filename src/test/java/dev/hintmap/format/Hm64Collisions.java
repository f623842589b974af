package dev.hintmap.format;

import java.nio.charset.StandardCharsets;

/**
 * Two different long kernel names with one {@code hm64}, built in milliseconds from hm64's zero
 * state (FORMAT.md §10, format version 3): a block {@code w} equal to the running state {@code h}
 * makes {@code h XOR w = 0}, and {@code mum(0, P1) = 0}. Each name is a common head of 1,008 bytes,
 * a variant block {@code _vNNNNNN}, a block equal to the state after it (printable ASCII: the
 * variant is the first whose state is), and a common tail; the hash of two such names of one
 * length is the same whatever their variants. The head is at least {@code 1024 - 17} bytes, so
 * format version 2 (prefix + {@code '~'} + hm64) stored both under one name at every limit.
 *
 * <p>hm64 is written here from the text of §4, not taken from {@link Hm64}, so that the pair does
 * not depend on the code under test. The C twin: {@code native-bench/tests/test_names.c} {@code hm64_zeroing_name}.
 */
public final class Hm64Collisions {
    private static final long P0 = 0xa0761d6478bd642fL;
    private static final long P1 = 0xe7037ed1a0b428dbL;
    private static final long P2 = 0x8ebc6af09c88c6e3L;
    private static final int HEAD = 1008;
    private static final String START = "void cute::device_kernel<cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, int, int, int>, ";
    private static final String MORE = "cutlass::epilogue::collective::DefaultEpilogue<float, 8>, ";
    private static final String TAIL = ", cute::C<128>>(Params)";

    private Hm64Collisions() {}

    /** Two different names of 1,047 bytes, valid UTF-8 (printable ASCII), with one hm64. */
    public static String[] pair() {
        StringBuilder head = new StringBuilder(START);
        while (head.length() < HEAD) {
            head.append(MORE.charAt((head.length() - START.length()) % MORE.length()));
        }
        byte[] a = zeroing(head.toString(), 0);
        int used = variantOf(a);
        byte[] b = zeroing(head.toString(), used + 1);
        return new String[] {new String(a, StandardCharsets.US_ASCII), new String(b, StandardCharsets.US_ASCII)};
    }

    /** The name of version 2's rule at {@code limit >= 17} (§12): the prefix of limit - 17 bytes, '~', hm64 in 16 hex digits (ASCII names). */
    public static String version2StoredForm(String asciiName, int limit) {
        byte[] b = asciiName.getBytes(StandardCharsets.US_ASCII);
        return b.length <= limit ? asciiName
                : asciiName.substring(0, limit - 17) + "~" + String.format("%016x", hash(b, b.length, b.length));
    }

    private static byte[] zeroing(String head, int from) {
        byte[] name = new byte[HEAD + 16 + TAIL.length()];
        System.arraycopy(head.getBytes(StandardCharsets.US_ASCII), 0, name, 0, HEAD);
        System.arraycopy(TAIL.getBytes(StandardCharsets.US_ASCII), 0, name, HEAD + 16, TAIL.length());
        for (int v = from;; v++) {
            byte[] block = String.format("_v%06d", v % 1_000_000).getBytes(StandardCharsets.US_ASCII);
            System.arraycopy(block, 0, name, HEAD, 8);
            long h = state(name, HEAD + 8, name.length);
            if (printable(h)) {
                for (int i = 0; i < 8; i++) {
                    name[HEAD + 8 + i] = (byte) (h >>> (8 * i)); // little-endian: the block's word is h itself
                }
                return name;
            }
        }
    }

    private static int variantOf(byte[] name) {
        return Integer.parseInt(new String(name, HEAD + 2, 6, StandardCharsets.US_ASCII));
    }

    private static boolean printable(long w) {
        for (int i = 0; i < 8; i++, w >>>= 8) {
            int c = (int) (w & 0xFF);
            if (c < 0x20 || c > 0x7E) {
                return false;
            }
        }
        return true;
    }

    /** §4: hm64's running state after the first {@code upto} bytes (a multiple of 8) of a name of {@code n} bytes. */
    private static long state(byte[] b, int upto, int n) {
        long h = P0 ^ n;
        for (int i = 0; i < upto; i += 8) {
            h = mum(h ^ word(b, i, n), P1);
        }
        return h;
    }

    private static long hash(byte[] b, int length, int n) {
        long h = P0 ^ n;
        for (int i = 0; i < length; i += 8) {
            h = mum(h ^ word(b, i, length), P1);
        }
        return mum(h ^ P2, P1);
    }

    private static long word(byte[] b, int at, int length) {
        long w = 0;
        for (int i = 0; i < 8 && at + i < length; i++) {
            w |= (b[at + i] & 0xFFL) << (8 * i);
        }
        return w;
    }

    private static long mum(long a, long b) {
        return a * b ^ Math.unsignedMultiplyHigh(a, b);
    }
}
