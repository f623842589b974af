package dev.hintmap.store;

/**
 * A test's view into the critical sections of the store: called with a lock held, so that a test
 * can throw there (a {@code StackOverflowError}, an {@code InternalError}, a runtime exception) and
 * check that every exit releases the lock ({@code LockReleaseOnThrowTest}), or act there as another
 * writer would. Production code carries no call to it: {@link ProbedEngine} builds a store whose
 * engine, lock, recovery and whole-record operations are subclasses that call the probe and then do
 * what production does (EngineBuilder), as C's tests reach the same windows through
 * {@code HM_TEST_HOOKS}, compiled out of the library.
 */
@FunctionalInterface
public interface HeldLockProbe {
    /** The critical sections, named by the operation and the lock it holds. */
    enum Section {
        /** §7.1: a record or whole-record add holds the slot lock. */
        RECORD_SLOT,
        /** §7.6: decay holds the slot lock. */
        DECAY_SLOT,
        /** §7.4 steps 3–4: victim choice holds the structure lock and the candidate's slot lock. */
        VICTIM_SLOT,
        /** §7.4 steps 5–11: an insertion holds the structure lock and the victim's slot lock. */
        INSERT_SLOT,
        /** §7.4: an insertion holds the structure lock, before it looks for a victim. */
        INSERT_STRUCTURE,
        /** §8: recovery holds the structure lock and frees a slot under its lock. */
        RECOVERY_SLOT,
        /**
         * §8 step 2c: a rebuild of the index holds the structure lock and reads a slot's record lock-free,
         * between the loads and the re-check of each attempt (a test publishes there, as a writer would).
         */
        REBUILD_READ,
        /** Any lock, just taken, before its acquire returns. */
        ACQUIRED,
        /** Any lock, at the start of its release, before the store (as a StackOverflowError at the call would). */
        RELEASE
    }

    /** Runs inside {@code section} with its lock held; whatever it throws leaves the section. */
    void whileHeld(Section section);
}
