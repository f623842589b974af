package dev.hintmap.cli;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jline.utils.WCWidth;

/**
 * A plain-text table: a header row and data rows, each column padded to its widest cell, numbers
 * right-aligned. Cells are sanitised so that a region name with control characters cannot move the
 * cursor of the terminal that shows it (names come from the file, which another user may write).
 *
 * <p>A table fits the width of its {@link TableLayout}: every other column is always shown whole
 * (numbers are never cut) and the one name column takes what is left, each name shortened by
 * {@link NameFitter}; two names that would look the same shortened (they differ only in what the
 * short form drops) are shown in the {@link NameFitter.Style#STORED} style, start and end. When
 * what is left is too narrow for a useful name (fewer than {@link #MIN_NAME_COLUMNS} columns, or
 * than a name's tag and {@link #MIN_TEXT_BESIDE_TAG} more; unless it keeps three quarters of the
 * widest name), each row takes two lines: the name, with the columns before it, on the whole
 * width; then the other columns, indented (where the width needs it: their names one word a row,
 * then one space apart, then not indented; names of several words are never one space apart). Where the numbers are still too wide, column names wider than their numbers take two rows
 * ({@code DISPATCHES} over {@code A}). The numbers' line can only be wider than the layout when
 * the numbers alone are: then they win.
 */
final class Table {
    /** Below this many columns for the name column, rows take two lines (unless the names lose little). */
    static final int MIN_NAME_COLUMNS = 24;
    /** Beside a stored-shortened name's tag, at least this many columns of the name, else two lines. */
    static final int MIN_TEXT_BESIDE_TAG = 20;
    /** A narrower name column is still one line when it keeps three quarters of the widest name, and this many columns. */
    static final int MIN_NAME_COLUMNS_CUT_A_LITTLE = 12;
    private static final String GAP = "  ";
    /** The indent of the numbers' line of a two-line row whose name has no column before it. */
    private static final String INDENT = "  ";

    private final String[] header;
    private final boolean[] rightAligned;
    private final int nameColumn;
    private final List<Object[]> rows = new ArrayList<>();

    /**
     * Column names; a name starting with '>' is right-aligned, one starting with '*' is the name
     * column, which takes {@link RegionName}s and fits them to the width (neither mark is printed).
     */
    Table(String... columns) {
        header = new String[columns.length];
        rightAligned = new boolean[columns.length];
        int names = -1;
        for (int i = 0; i < columns.length; i++) {
            rightAligned[i] = columns[i].startsWith(">");
            boolean name = columns[i].startsWith("*");
            if (name && names >= 0) {
                throw new IllegalArgumentException("two name columns: " + columns[names] + ", " + columns[i]);
            }
            names = name ? i : names;
            header[i] = rightAligned[i] || name ? columns[i].substring(1) : columns[i];
        }
        nameColumn = names;
    }

    Table row(Object... cells) {
        if (cells.length != header.length) {
            throw new IllegalArgumentException("row of " + cells.length + " cells in a table of " + header.length);
        }
        Object[] row = new Object[cells.length];
        for (int i = 0; i < cells.length; i++) {
            if (i == nameColumn) {
                row[i] = cells[i] instanceof RegionName n ? n : RegionName.plain(String.valueOf(cells[i]));
            } else {
                row[i] = printable(String.valueOf(cells[i]));
            }
        }
        rows.add(row);
        return this;
    }

    int size() {
        return rows.size();
    }

    /** The table's lines, laid out as the class comment says. */
    List<String> lines(TableLayout layout) {
        List<String> lines = layOut(new String[][] {header}, layout);
        if (layout.unlimited() || widest(lines) <= layout.width()) {
            return lines;
        }
        String[][] split = splitHeader();
        if (split == null) {
            return lines;
        }
        List<String> compact = layOut(split, layout);
        return widest(compact) < widest(lines) ? compact : lines;
    }

    /** The lines with {@code head} (one or two rows of column names) over the rows. */
    private List<String> layOut(String[][] head, TableLayout layout) {
        int[] width = new int[header.length];
        int tag = 0;
        for (int i = 0; i < header.length; i++) {
            for (String[] h : head) {
                width[i] = Math.max(width[i], h[i].length());
            }
            for (Object[] row : rows) {
                width[i] = Math.max(width[i], columns(row[i].toString()));
                if (i == nameColumn) {
                    tag = Math.max(tag, columns(((RegionName) row[i]).tag()));
                }
            }
        }
        if (nameColumn < 0 || layout.unlimited() || total(width, GAP) <= layout.width()) {
            return oneLine(head, width, layout);
        }
        int left = layout.width() - (total(width, GAP) - width[nameColumn]);
        boolean readable = left >= Math.max(MIN_NAME_COLUMNS, tag == 0 ? 0 : tag + 1 + MIN_TEXT_BESIDE_TAG);
        boolean littleCut = left >= MIN_NAME_COLUMNS_CUT_A_LITTLE && 4 * left >= 3 * width[nameColumn];
        if (readable || littleCut) {
            width[nameColumn] = left;
            return oneLine(head, width, layout);
        }
        return twoLines(head, width, layout);
    }

    private List<String> oneLine(String[][] head, int[] width, TableLayout layout) {
        List<String> lines = new ArrayList<>(rows.size() + head.length);
        for (String[] h : head) {
            lines.add(line(h, width, 0, header.length, GAP).stripTrailing());
        }
        for (Object[] row : fitted(nameColumn < 0 ? 0 : width[nameColumn], layout)) {
            lines.add(line(row, width, 0, header.length, GAP));
        }
        return lines;
    }

    private List<String> twoLines(String[][] head, int[] width, TableLayout layout) {
        int before = nameColumn == 0 ? 0 : total(Arrays.copyOf(width, nameColumn), GAP) + GAP.length();
        int[] named = width.clone();
        named[nameColumn] = Math.max(1, layout.width() - before);
        // The numbers' line: indented under the name, its columns two spaces apart; where that is too wide, its
        // column names one word a row (narrower columns), then one space apart, then not indented. Column names
        // of several words are never one space apart: "KERNEL NS TOTAL MEAN NS" would not say where one ends.
        String indent = before == 0 ? INDENT : " ".repeat(before);
        String[][] numbersHead = head;
        int[] numbersWidth = width;
        if (indent.length() + total(after(numbersWidth), GAP) > layout.width() && severalWords()) {
            numbersHead = stackedHeader();
            numbersWidth = widths(numbersHead);
        }
        String gap = indent.length() + total(after(numbersWidth), GAP) <= layout.width() ? GAP : " ";
        if (indent.length() + total(after(numbersWidth), gap) > layout.width()) {
            indent = "";
        }
        boolean numbers = nameColumn + 1 < header.length;
        List<String> lines = new ArrayList<>(2 * rows.size() + numbersHead.length + 1);
        lines.add(line(head[head.length - 1], named, 0, nameColumn + 1, GAP));
        for (int h = 0; h < numbersHead.length && numbers; h++) {
            String names = line(numbersHead[h], numbersWidth, nameColumn + 1, header.length, gap);
            if (!names.isBlank()) {
                lines.add((indent + names).stripTrailing());
            }
        }
        for (Object[] row : fitted(named[nameColumn], layout)) {
            lines.add(line(row, named, 0, nameColumn + 1, GAP));
            if (numbers) {
                lines.add(indent + line(row, numbersWidth, nameColumn + 1, header.length, gap));
            }
        }
        return lines;
    }

    /** The widths of the columns after the name column. */
    private int[] after(int[] width) {
        return Arrays.copyOfRange(width, nameColumn + 1, width.length);
    }

    /** Whether a column after the name column has a name of several words. */
    private boolean severalWords() {
        for (int i = nameColumn + 1; i < header.length; i++) {
            if (header[i].indexOf(' ') >= 0) {
                return true;
            }
        }
        return false;
    }

    /**
     * The names of the columns after the name column one word a row, the last words on the last
     * row ({@code KERNEL} over {@code NS} over {@code TOTAL}); the other columns' names whole on
     * the last row.
     */
    private String[][] stackedHeader() {
        String[][] words = new String[header.length][];
        int rowsNeeded = 1;
        for (int i = 0; i < header.length; i++) {
            words[i] = i > nameColumn ? header[i].split(" ") : new String[] {header[i]};
            rowsNeeded = Math.max(rowsNeeded, words[i].length);
        }
        String[][] stacked = new String[rowsNeeded][header.length];
        for (int i = 0; i < header.length; i++) {
            for (int r = 0; r < rowsNeeded; r++) {
                int word = r - (rowsNeeded - words[i].length);
                stacked[r][i] = word >= 0 ? words[i][word] : "";
            }
        }
        return stacked;
    }

    /** Each column's width: its widest name row or cell. */
    private int[] widths(String[][] head) {
        int[] width = new int[header.length];
        for (int i = 0; i < header.length; i++) {
            for (String[] h : head) {
                width[i] = Math.max(width[i], h[i].length());
            }
            for (Object[] row : rows) {
                width[i] = Math.max(width[i], columns(row[i].toString()));
            }
        }
        return width;
    }

    /**
     * The column names on two rows where that narrows a column: a name wider than the column's
     * cells, with a space in it, is split at the space that leaves its longer part shortest
     * ({@code DISPATCHES A} over {@code DISPATCHES} / {@code A}); null when no column narrows.
     */
    private String[][] splitHeader() {
        String[][] split = {new String[header.length], header.clone()};
        boolean narrower = false;
        for (int i = 0; i < header.length; i++) {
            split[0][i] = "";
            int cells = 0;
            for (Object[] row : rows) {
                cells = Math.max(cells, columns(row[i].toString()));
            }
            if (i == nameColumn || header[i].length() <= cells) {
                continue;
            }
            int best = -1;
            for (int at = header[i].indexOf(' '); at >= 0; at = header[i].indexOf(' ', at + 1)) {
                if (best < 0 || longerPart(header[i], at) < longerPart(header[i], best)) {
                    best = at;
                }
            }
            if (best >= 0) {
                split[0][i] = header[i].substring(0, best);
                split[1][i] = header[i].substring(best + 1);
                narrower = true;
            }
        }
        return narrower ? split : null;
    }

    private static int longerPart(String name, int space) {
        return Math.max(space, name.length() - space - 1);
    }

    private static int widest(List<String> lines) {
        int widest = 0;
        for (String line : lines) {
            widest = Math.max(widest, columns(line));
        }
        return widest;
    }

    /**
     * The rows with their names fitted to {@code columns}; names that the short form would show
     * alike (two kernels that differ only in their parameters) in the stored style instead, which
     * keeps their ends.
     */
    private List<Object[]> fitted(int columns, TableLayout layout) {
        if (nameColumn < 0 || layout.unlimited()) {
            return rows;
        }
        List<String> shown = new ArrayList<>(rows.size());
        Map<String, Set<String>> namesShownAs = new HashMap<>();
        for (Object[] row : rows) {
            RegionName name = (RegionName) row[nameColumn];
            String fit = NameFitter.fit(name.text(), name.tag(), columns, layout.style(), layout.ellipsis());
            shown.add(fit);
            namesShownAs.computeIfAbsent(fit, f -> new HashSet<>()).add(name.text());
        }
        List<Object[]> fitted = new ArrayList<>(rows.size());
        for (int r = 0; r < rows.size(); r++) {
            Object[] cells = rows.get(r).clone();
            RegionName name = (RegionName) cells[nameColumn];
            cells[nameColumn] = namesShownAs.get(shown.get(r)).size() == 1 ? shown.get(r)
                    : NameFitter.fit(name.text(), name.tag(), columns, NameFitter.Style.STORED, layout.ellipsis());
            fitted.add(cells);
        }
        return fitted;
    }

    /** Columns {@code [from, to)} of a row, each padded to its width; no padding after the line's last cell. */
    private String line(Object[] cells, int[] width, int from, int to, String gap) {
        StringBuilder b = new StringBuilder();
        for (int i = from; i < to; i++) {
            if (i > from) {
                b.append(gap);
            }
            String cell = cells[i].toString();
            int pad = Math.max(0, width[i] - columns(cell));
            if (rightAligned[i]) {
                b.append(" ".repeat(pad)).append(cell);
            } else {
                b.append(cell);
                if (i < to - 1) {
                    b.append(" ".repeat(pad));
                }
            }
        }
        return b.toString();
    }

    /** The columns of cells of these widths with {@code gap} between them. */
    private static int total(int[] width, String gap) {
        int sum = 0;
        for (int w : width) {
            sum += w;
        }
        return width.length == 0 ? 0 : sum + gap.length() * (width.length - 1);
    }

    /**
     * {@code text} in lines of at most {@code width} columns (0: one line), broken after its commas
     * and semicolons and at its double spaces, the lines after the first indented: a heading's figures stay whole,
     * as a table's do. A part wider than the width on its own stays whole on its line.
     */
    static List<String> wrap(String text, int width) {
        if (width <= 0 || columns(text) <= width) {
            return List.of(text);
        }
        List<String> lines = new ArrayList<>();
        StringBuilder line = new StringBuilder();
        String[] parts = text.split("(?<=[,;]) |  ");
        for (int i = 0; i < parts.length; i++) {
            String separator = i == 0 ? "" : parts[i - 1].endsWith(",") || parts[i - 1].endsWith(";") ? " " : "  ";
            if (i > 0 && columns(line + separator + parts[i]) > width) {
                lines.add(line.toString());
                line.setLength(0);
                line.append(INDENT);
            } else {
                line.append(separator);
            }
            line.append(parts[i]);
        }
        lines.add(line.toString());
        return lines;
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
