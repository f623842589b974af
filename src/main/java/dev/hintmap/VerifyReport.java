package dev.hintmap;

import java.nio.file.Path;
import java.util.List;

/**
 * The result of checking every invariant of a hint file (FORMAT.md): {@link HintFiles#verify}.
 *
 * @param file the file checked
 * @param findings every problem found, in file order (header, coordination words, writer table,
 *     slots, index); empty for a sound file
 * @param regions LIVE regions seen
 * @param indexEntries non-empty index entries seen
 * @param stable whether the file's set of regions stayed the same while it was checked (false
 *     only when writers kept inserting or evicting through every attempt: findings may then
 *     include states that were transient)
 */
public record VerifyReport(Path file, List<Finding> findings, int regions, int indexEntries, boolean stable) {

    /**
     * Keeps an immutable copy of the findings; the other components are taken as they are (see
     * the class comment for each).
     *
     * @param findings every problem found, in file order, copied
     * @throws NullPointerException if {@code findings} or one of its elements is null
     */
    public VerifyReport {
        findings = List.copyOf(findings);
    }

    /**
     * Whether the file is sound: it may still have {@link Severity#NOTE} findings.
     *
     * @return true when no finding is an {@link Severity#ERROR}
     */
    public boolean ok() {
        return errors().isEmpty();
    }

    /**
     * The findings that make the file unsound.
     *
     * @return a new immutable list of the {@link Severity#ERROR} findings, in file order; empty
     *     when {@link #ok()}
     */
    public List<Finding> errors() {
        return findings.stream().filter(f -> f.severity() == Severity.ERROR).toList();
    }

    /** How bad a finding is. */
    public enum Severity {
        /** An invariant of the format does not hold: the file is damaged or was written by a faulty writer. */
        ERROR,
        /** A state that is legal but worth knowing, e.g. a lock left by a crashed writer (taken over on next use). */
        NOTE
    }

    /**
     * One problem.
     *
     * @param severity how bad it is
     * @param area {@code header}, {@code coordination}, {@code writer-table}, {@code slot} or {@code index}
     * @param slot the slot concerned, or -1
     * @param indexEntry the index entry concerned, or -1
     * @param field the field of FORMAT.md §3 concerned
     * @param message what is wrong and what was expected
     */
    public record Finding(Severity severity, String area, long slot, long indexEntry, String field, String message) {
        @Override
        public String toString() {
            StringBuilder where = new StringBuilder(area);
            if (slot >= 0) {
                where.append(area.equals("slot") ? " " : " slot ").append(slot);
            }
            if (indexEntry >= 0) {
                where.append(" index entry ").append(indexEntry);
            }
            return severity + " " + where + " [" + field + "]: " + message;
        }
    }
}
