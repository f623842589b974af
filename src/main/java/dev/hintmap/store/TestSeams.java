package dev.hintmap.store;

/**
 * The windows of a store that only tests reach, as C's tests reach theirs through
 * {@code HM_TEST_HOOKS}, compiled out of the library: hooks of the calling thread, which a test in
 * this package sets around one call (an open, a creation) and production never sets. Inside a
 * critical section a test acts through subclasses instead ({@link EngineBuilder}), so no production
 * class holds a field or takes a parameter for tests.
 */
public final class TestSeams {
    /**
     * The system property that enables the seams of every package (this one's, the API's, the
     * command's): set only by the test JVMs (Surefire's configuration, the tests' child JVMs).
     */
    public static final String PROPERTY = "hintmap.testSeams";
    /** False outside tests: C2 folds this static final and every branch on it away, as C compiles its hooks out. */
    public static final boolean ENABLED = Boolean.getBoolean(PROPERTY);

    /** Builds the writer's engine of a store this thread opens: a test's subclasses (EngineBuilder). */
    static final ThreadLocal<EngineBuilder> ENGINE = new ThreadLocal<>();
    /** Runs in a creation on this thread between allocating and publishing its temporary file (§5 steps 3–5). */
    static final ThreadLocal<Runnable> BEFORE_PUBLISH = new ThreadLocal<>();

    private TestSeams() {}

    /** How a store opened on this thread builds its writer's engine: {@link EngineBuilder#PRODUCTION} outside tests. */
    static EngineBuilder engineBuilder() {
        EngineBuilder builder = ENABLED ? ENGINE.get() : null;
        return builder == null ? EngineBuilder.PRODUCTION : builder;
    }

    /** Runs a test's hook of this thread between allocating and publishing a new file; nothing outside tests. */
    static void beforePublish() {
        Runnable hook = ENABLED ? BEFORE_PUBLISH.get() : null;
        if (hook != null) {
            hook.run();
        }
    }
}
