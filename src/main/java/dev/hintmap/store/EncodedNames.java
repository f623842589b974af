package dev.hintmap.store;

/**
 * Per-thread scratch space for the record and query paths, and the resolution a
 * {@code Region} handle caches. Keeping these here lets the API classes stay free of
 * {@code MemorySegment} plumbing while the hot path allocates nothing.
 */
public final class EncodedNames {
    private EncodedNames() {}

    /** One thread's reusable encoding buffer and snapshot. */
    public static final class Scratch {
        public final EncodedName name = new EncodedName();
        public final Snapshot snapshot = new Snapshot();
    }

    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

    public static Scratch scratch() {
        return SCRATCH.get();
    }

    /** A slot and the generation it had when resolved. */
    public record Resolution(int slot, long gen) {}

    /** Validates and encodes {@code name} into a new exact-size instance. */
    public static EncodedName encodeCopy(String name, int maxNameBytes) {
        EncodedName scratchName = scratch().name;
        scratchName.encodeChecked(name, maxNameBytes);
        return scratchName.copy();
    }

    /** Records by name and returns where the sample went, or null when it was dropped. */
    public static Resolution recordResolving(StoreEngine engine, EncodedName name, long kernelNs, long bytes) {
        Snapshot s = scratch().snapshot;
        engine.record(name, kernelNs, bytes, s);
        return s.slot >= 0 ? new Resolution(s.slot, s.gen) : null;
    }
}
