package com.example.tuner;

/**
 * Text from a hint file made safe for one line of a plan or a log: region names are chosen by whoever
 * writes the file (docs/SECURITY.md), so a name with a newline could otherwise print a line that looks
 * like part of the plan ("tune ..."), and one with an escape sequence could rewrite the terminal. The
 * rule is the CLI's (its tables, {@code hintmap dump}): every C0 control character, DEL and every C1
 * control character becomes {@code \xHH}, and a backslash that could be read as the start of such an
 * escape (followed by {@code x}, a backslash or a control character) is doubled, so the printed form
 * reads back to one name only. Text without control characters prints unchanged.
 */
public final class Printable {
    private Printable() {}

    /**
     * One line's worth of {@code text}.
     *
     * @param text any string
     * @return {@code text} with control characters escaped; never contains a line break
     */
    public static String escape(String text) {
        StringBuilder b = null;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean control = isControl(c);
            boolean ambiguous = c == '\\' && i + 1 < text.length()
                    && (text.charAt(i + 1) == 'x' || text.charAt(i + 1) == '\\' || isControl(text.charAt(i + 1)));
            if ((control || ambiguous) && b == null) {
                b = new StringBuilder(text.length() + 8).append(text, 0, i);
            }
            if (b != null) {
                if (ambiguous) {
                    b.append("\\\\");
                } else if (control) {
                    b.append(String.format("\\x%02x", (int) c));
                } else {
                    b.append(c);
                }
            }
        }
        return b == null ? text : b.toString();
    }

    private static boolean isControl(char c) {
        return c < 0x20 || (c >= 0x7f && c < 0xa0);
    }
}
