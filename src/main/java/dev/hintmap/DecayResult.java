package dev.hintmap;

import java.util.List;
import java.util.Objects;

/**
 * What {@link HintStore#decay(double)} did.
 *
 * @param aged the number of regions aged
 * @param skipped the names of the LIVE regions that were not aged because a live process held
 *     their slot lock past the lock wait limit (FORMAT.md §6.2: a stopped or stuck writer), in
 *     slot order; immutable, empty when every region was aged. Such a region keeps its old
 *     record; decaying again once its holder lets go ages it.
 */
public record DecayResult(int aged, List<String> skipped) {
    /**
     * Checks the count and keeps an immutable copy of the names.
     *
     * @param aged the number of regions aged, {@code >= 0}
     * @param skipped the names of the regions skipped, copied
     * @throws IllegalArgumentException if {@code aged} is negative
     * @throws NullPointerException if {@code skipped} or one of its names is null
     */
    public DecayResult {
        if (aged < 0) {
            throw new IllegalArgumentException("aged " + aged + " is negative");
        }
        skipped = List.copyOf(Objects.requireNonNull(skipped, "skipped"));
    }
}
