package dev.hintmap.cli;

import dev.hintmap.format.StoredName;

/**
 * A region name as a table shows it: the stored name made printable ({@link Table#printable}) and,
 * for a name stored shortened (FORMAT.md §1.1), its tag ({@code ~} and the hash), which
 * {@link NameFitter} keeps whatever else it cuts.
 *
 * @param text the printable stored name
 * @param tag the tag it ends with, or "" for a name stored whole
 */
record RegionName(String text, String tag) {
    /** The name {@code stored} of a file (or comparison) whose name limit is {@code maxNameBytes}. */
    static RegionName of(String stored, int maxNameBytes) {
        return new RegionName(Table.printable(stored), StoredName.tagOf(stored, maxNameBytes));
    }

    /** A name without a tag (a plain string cell in the name column). */
    static RegionName plain(String text) {
        return new RegionName(Table.printable(text), "");
    }

    @Override
    public String toString() {
        return text;
    }
}
