package dev.hintmap.cli;

import java.util.ArrayList;
import java.util.List;
import org.jline.utils.WCWidth;

/**
 * A plain-text table: a header row and data rows, each column padded to its widest cell, numbers
 * right-aligned. Cells are sanitised so that a region name with control characters cannot move the
 * cursor of the terminal that shows it (names come from the file, which another user may write).
 */
final class Table {
    private final String[] header;
    private final boolean[] rightAligned;
    private final List<String[]> rows = new ArrayList<>();

    /** Column names; a name starting with '>' is right-aligned (the '>' is not printed). */
    Table(String... columns) {
        header = new String[columns.length];
        rightAligned = new boolean[columns.length];
        for (int i = 0; i < columns.length; i++) {
            rightAligned[i] = columns[i].startsWith(">");
            header[i] = rightAligned[i] ? columns[i].substring(1) : columns[i];
        }
    }

    Table row(Object... cells) {
        if (cells.length != header.length) {
            throw new IllegalArgumentException("row of " + cells.length + " cells in a table of " + header.length);
        }
        String[] row = new String[cells.length];
        for (int i = 0; i < cells.length; i++) {
            row[i] = printable(String.valueOf(cells[i]));
        }
        rows.add(row);
        return this;
    }

    int size() {
        return rows.size();
    }

    /** The table's lines, each cut to {@code maxWidth} columns (0: no limit). */
    List<String> lines(int maxWidth) {
        int[] width = new int[header.length];
        for (int i = 0; i < header.length; i++) {
            width[i] = header[i].length();
            for (String[] row : rows) {
                width[i] = Math.max(width[i], columns(row[i]));
            }
        }
        List<String> lines = new ArrayList<>(rows.size() + 1);
        lines.add(line(header, width, maxWidth));
        for (String[] row : rows) {
            lines.add(line(row, width, maxWidth));
        }
        return lines;
    }

    private String line(String[] cells, int[] width, int maxWidth) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < cells.length; i++) {
            if (i > 0) {
                b.append("  ");
            }
            int pad = width[i] - columns(cells[i]);
            if (rightAligned[i]) {
                b.append(" ".repeat(pad)).append(cells[i]);
            } else {
                b.append(cells[i]);
                if (i < cells.length - 1) {
                    b.append(" ".repeat(pad));
                }
            }
        }
        return cut(b.toString(), maxWidth);
    }

    /** Terminal columns the text takes: East Asian wide characters take two, combining marks none. */
    static int columns(String s) {
        int columns = 0;
        for (int i = 0; i < s.length(); ) {
            int cp = s.codePointAt(i);
            columns += Math.max(0, WCWidth.wcwidth(cp));
            i += Character.charCount(cp);
        }
        return columns;
    }

    /** The longest prefix of {@code s} that fits {@code maxWidth} terminal columns (0: no limit). */
    static String cut(String s, int maxWidth) {
        if (maxWidth <= 0) {
            return s;
        }
        int columns = 0;
        for (int i = 0; i < s.length(); ) {
            int cp = s.codePointAt(i);
            columns += Math.max(0, WCWidth.wcwidth(cp));
            if (columns > maxWidth) {
                return s.substring(0, i);
            }
            i += Character.charCount(cp);
        }
        return s;
    }

    /**
     * The text with every control character (C0, DEL, C1) shown as {@code \xNN}, so a name prints
     * on one line and cannot carry escape sequences. A backslash shows as itself ({@code a\b}
     * stays {@code a\b}) unless what follows it would make it read as such an escape: before an
     * {@code x}, another backslash or a control character it is doubled. Unambiguous: reading
     * {@code \\} as one backslash, {@code \xNN} as that character and any other backslash as
     * itself gives the name back.
     */
    static String printable(String s) {
        StringBuilder b = null;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean control = isControl(c);
            boolean escaped = c == '\\' && i + 1 < s.length()
                    && (s.charAt(i + 1) == 'x' || s.charAt(i + 1) == '\\' || isControl(s.charAt(i + 1)));
            if ((control || escaped) && b == null) {
                b = new StringBuilder(s.length() + 8).append(s, 0, i);
            }
            if (b != null) {
                if (escaped) {
                    b.append("\\\\");
                } else if (control) {
                    b.append(String.format("\\x%02x", (int) c));
                } else {
                    b.append(c);
                }
            }
        }
        return b == null ? s : b.toString();
    }

    private static boolean isControl(char c) {
        return c < 0x20 || (c >= 0x7f && c < 0xa0);
    }
}
