package dev.hintmap.cli;

import dev.hintmap.RegionRecord;
import java.util.List;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * {@code --filter REGEX} of {@code top}, {@code dump} and {@code export} (a picocli mixin): keeps the
 * regions whose name contains a match of the Java regular expression ({@link java.util.regex.Matcher#find()},
 * as grep does; anchor with {@code ^...$} for a whole-name match). A bad expression is a usage error
 * (exit 2) reported on one line.
 */
final class RegionFilter {
    @Option(names = "--filter", paramLabel = "REGEX", converter = PatternConverter.class,
            description = "only regions whose name contains a match of the Java regular expression REGEX"
                    + " (as grep; ^...$ for the whole name)")
    Pattern pattern;

    /** Whether the region is selected: every region when no filter was given. */
    boolean test(String name) {
        return pattern == null || pattern.matcher(name).find();
    }

    /** The selected regions, in their order. */
    List<RegionRecord> apply(List<RegionRecord> regions) {
        return pattern == null ? regions : regions.stream().filter(r -> test(r.name())).toList();
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
