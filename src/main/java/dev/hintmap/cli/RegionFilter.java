package dev.hintmap.cli;

import dev.hintmap.HintStoreOptions;
import dev.hintmap.RegionRecord;
import dev.hintmap.format.StoredName;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * {@code --filter REGEX} and {@code --name NAME} of {@code top}, {@code dump} and {@code export} (a
 * picocli mixin): the one selection of regions by name of every command.
 *
 * <p>Both look at the names as the file stores them (FORMAT.md §1.1): a name longer than the file's
 * {@code max_name_bytes} is held as its first bytes, {@code ~} and a hash of the whole name, so no
 * expression can match what was cut off. {@code --filter} keeps the regions whose stored name
 * contains a match of the Java regular expression ({@link java.util.regex.Matcher#find()}, as grep
 * does; anchor with {@code ^...$} for a whole-name match), <em>or</em> whose stored name is the
 * stored form of REGEX read as a literal name: so the exact name of a kernel, pasted as the filter,
 * selects it whatever regular-expression characters it holds and however long it is — as
 * {@code --name} would. (For a pattern without such characters the literal reading selects nothing
 * the expression does not.) A bad expression is a usage error (exit 2) on one line, which points
 * at {@code --name} for exact names. {@code --name} keeps the regions named exactly so, a long name
 * found by its stored form, as every library looks it up.
 *
 * <p>When a {@code --filter} leaves out names stored shortened, their tails could have matched:
 * {@link #note} says so in one line, so that a long kernel never drops out of a listing or an
 * export silently.
 */
final class RegionFilter {
    @Option(names = "--filter", paramLabel = "REGEX", converter = PatternConverter.class,
            description = "only regions whose stored name contains a match of the Java regular expression REGEX (as"
                    + " grep; ^...$ for the whole name), or is REGEX itself read as an exact name (a whole kernel name"
                    + " pasted here selects it, stored shortened or not). A name longer than the file's max-name-bytes"
                    + " is stored as its first bytes, ~ and a hash: its tail cannot match (a note on standard error"
                    + " says how many such names were left out).")
    Pattern pattern;

    @Option(names = "--name", paramLabel = "NAME",
            description = "only the region NAME, exactly (repeatable); a kernel name longer than the file's"
                    + " max-name-bytes is found by its stored form, as the libraries look it up")
    List<String> names = List.of();

    /** Whether any selection was asked for. */
    boolean isActive() {
        return pattern != null || !names.isEmpty();
    }

    /**
     * The selection for a file of limit {@code maxNameBytes}: a stored name is selected when it
     * matches {@code --filter} (if given: the expression, or the pattern as an exact name) and is
     * one of the {@code --name}s' stored forms (if any).
     */
    Predicate<String> selector(int maxNameBytes) {
        Set<String> stored = new HashSet<>();
        for (String name : names) {
            storedForm(name, maxNameBytes).ifPresent(stored::add);
        }
        String literal = pattern == null ? null : storedForm(pattern.pattern(), maxNameBytes).orElse(null);
        return name -> (pattern == null || name.equals(literal) || pattern.matcher(name).find())
                && (names.isEmpty() || stored.contains(name));
    }

    /** The selected regions of a file of limit {@code maxNameBytes}, in their order. */
    List<RegionRecord> apply(List<RegionRecord> regions, int maxNameBytes) {
        if (!isActive()) {
            return regions;
        }
        Predicate<String> selected = selector(maxNameBytes);
        return regions.stream().filter(r -> selected.test(r.name())).toList();
    }

    /**
     * One line for standard error when {@code --filter} left out regions of {@code stored} (a
     * file's stored names, limit {@code maxNameBytes}) whose names are stored shortened: how many
     * names the file holds shortened, that their tails are not searchable, and what keeps longer
     * names. Empty when there is no {@code --filter}, when it selected every shortened name, or when
     * it is the exact name of a region of the file (it asked for that one kernel, and found it).
     */
    Optional<String> note(Collection<String> stored, int maxNameBytes) {
        if (pattern == null) {
            return Optional.empty();
        }
        Predicate<String> selected = selector(maxNameBytes);
        String literal = storedForm(pattern.pattern(), maxNameBytes).orElse(null);
        if (stored.contains(literal)) {
            return Optional.empty(); // the filter is a kernel's exact name, and found it: nothing else was asked for
        }
        long shortened = 0;
        long leftOut = 0;
        for (String name : stored) {
            if (StoredName.isShortened(name, maxNameBytes)) {
                shortened++;
                leftOut += selected.test(name) ? 0 : 1;
            }
        }
        if (leftOut == 0) {
            return Optional.empty();
        }
        int longest = HintStoreOptions.MAX_NAME_BYTES_LIMIT;
        String keep = maxNameBytes < longest
                ? "`create --max-name-bytes " + longest + "` keeps longer ones"
                : "no file keeps names over " + longest + " bytes";
        return Optional.of(shortened + (shortened == 1 ? " name is" : " names are") + " stored shortened; their tails"
                + " are not searchable; " + keep + " (--name NAME finds a region by its whole name)");
    }

    /** The stored form of {@code name}, or empty for a name no file can hold (empty, unencodable). */
    private static Optional<String> storedForm(String name, int maxNameBytes) {
        try {
            return Optional.of(StoredName.of(name, maxNameBytes));
        } catch (IllegalArgumentException noStoreHoldsIt) {
            return Optional.empty();
        }
    }

    /** Compiles the expression; PatternSyntaxException's own message spans three lines (it draws a caret). */
    static final class PatternConverter implements CommandLine.ITypeConverter<Pattern> {
        @Override
        public Pattern convert(String value) {
            try {
                return Pattern.compile(value);
            } catch (PatternSyntaxException e) {
                String where = e.getIndex() >= 0 ? " at index " + e.getIndex() : "";
                throw new CommandLine.TypeConversionException("not a Java regular expression: "
                        + e.getDescription() + where + " (for an exact region name, use --name NAME)");
            }
        }
    }
}
