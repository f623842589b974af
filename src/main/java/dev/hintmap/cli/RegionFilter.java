package dev.hintmap.cli;

import dev.hintmap.RegionRecord;
import dev.hintmap.format.StoredName;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * {@code --filter REGEX} and {@code --name NAME} of {@code top}, {@code dump} and {@code export} (a
 * picocli mixin). {@code --filter} keeps the regions whose stored name contains a match of the Java
 * regular expression ({@link java.util.regex.Matcher#find()}, as grep does; anchor with {@code ^...$}
 * for a whole-name match); a bad expression is a usage error (exit 2) reported on one line.
 * {@code --name} keeps the regions named exactly so, a name longer than the file's
 * {@code max_name_bytes} found by its stored form (FORMAT.md §1.1), as every library looks it up:
 * the way to ask about a kernel whose long name is full of regular-expression characters.
 */
final class RegionFilter {
    @Option(names = "--filter", paramLabel = "REGEX", converter = PatternConverter.class,
            description = "only regions whose name contains a match of the Java regular expression REGEX"
                    + " (as grep; ^...$ for the whole name)")
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
     * matches {@code --filter} (if given) and is one of the {@code --name}s' stored forms (if any).
     */
    Predicate<String> selector(int maxNameBytes) {
        Set<String> stored = new HashSet<>();
        for (String name : names) {
            try {
                stored.add(StoredName.of(name, maxNameBytes));
            } catch (IllegalArgumentException noStoreHoldsIt) {
                // an empty or unencodable name selects nothing
            }
        }
        return name -> (pattern == null || pattern.matcher(name).find()) && (names.isEmpty() || stored.contains(name));
    }

    /** The selected regions of a file of limit {@code maxNameBytes}, in their order. */
    List<RegionRecord> apply(List<RegionRecord> regions, int maxNameBytes) {
        if (!isActive()) {
            return regions;
        }
        Predicate<String> selected = selector(maxNameBytes);
        return regions.stream().filter(r -> selected.test(r.name())).toList();
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
                        + e.getDescription() + where);
            }
        }
    }
}
