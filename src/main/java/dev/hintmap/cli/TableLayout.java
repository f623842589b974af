package dev.hintmap.cli;

/**
 * How wide a table may be and how its region names are shortened to fit ({@link TableOptions}).
 *
 * @param width the columns a line may take; 0: no limit (every name whole)
 * @param style how a name too wide for its column is shortened
 * @param ellipsis the mark of a cut
 */
record TableLayout(int width, NameFitter.Style style, String ellipsis) {
    /** No limit: every name whole, as {@code --wide} asks (and the one-line formats need). */
    static final TableLayout UNLIMITED = new TableLayout(0, NameFitter.Style.SHORT, "…");

    TableLayout {
        if (width < 0) {
            throw new IllegalArgumentException("width " + width + " is negative");
        }
    }

    /** This layout at another width (the live view's terminal can be resized between frames). */
    TableLayout withWidth(int columns) {
        return new TableLayout(columns, style, ellipsis);
    }

    boolean unlimited() {
        return width == 0;
    }
}
