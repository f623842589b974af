package dev.hintmap.torture;

/**
 * Whether one round of {@link TruncationUnderWriterTest} ended as {@code HintStore} promises
 * (docs/archive/RELIABILITY.md "Truncation under a writer", the decision of issue 32): the three lines the
 * child printed after the file was truncated under it, {@code caught}, {@code check} and
 * {@code then} ({@link TruncationChild#describe}: {@code TYPE PROBLEM MESSAGE}).
 *
 * <ul>
 *   <li>{@code caught}, the first call that failed: {@code UncheckedIOException TRUNCATED}; for
 *       JIT-compiled writers also exactly the JVM's {@link InternalError} for a fault in an unsafe
 *       access, {@link #JVM_FAULT}, which HotSpot raises asynchronously, at the next safepoint poll
 *       after the faulting access, and so possibly after the library's {@code try} has ended (the
 *       access inlined into the caller's loop). Any other InternalError, or this one from the
 *       interpreter (which raises it synchronously, inside the {@code try}), fails;</li>
 *   <li>{@code check}, {@code checkFile()} then: always {@code HintFileException TRUNCATED} (two
 *       system calls, no access to the mapping), which also marks the store failed;</li>
 *   <li>{@code then}, the next record: always {@code UncheckedIOException TRUNCATED}.</li>
 * </ul>
 */
final class TruncationOutcome {
    /** HotSpot's message for a fault in an unsafe memory access (JDK 25: {@code thread.cpp}); the test's only exception. */
    static final String JVM_FAULT = "InternalError - a fault occurred in an unsafe memory access operation";

    private TruncationOutcome() {}

    /**
     * @param compiled whether the writer ran JIT-compiled code (not {@code -Xint})
     * @return null when the round is as promised, else what is wrong with it
     */
    static String problem(boolean compiled, String caught, String check, String then) {
        boolean clear = caught.startsWith("UncheckedIOException TRUNCATED");
        boolean jvmFault = compiled && (caught.equals(JVM_FAULT) || caught.startsWith(JVM_FAULT + " "));
        if (!clear && !jvmFault) {
            return "caught " + caught + (compiled ? "" : " (interpreted: only the clear exception)");
        }
        if (!check.startsWith("HintFileException TRUNCATED")) {
            return "checkFile() after " + caught + ": " + check;
        }
        if (!then.startsWith("UncheckedIOException TRUNCATED")) {
            return "the next call after " + caught + ": " + then;
        }
        return null;
    }
}
