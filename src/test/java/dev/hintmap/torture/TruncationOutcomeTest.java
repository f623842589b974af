package dev.hintmap.torture;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/**
 * The acceptance rule of {@link TruncationUnderWriterTest}'s rounds ({@link TruncationOutcome}).
 * A verify run under load once failed compiled round 3 on {@code caught 3 InternalError - a fault
 * occurred in an unsafe memory access operation}, which HintStore's Javadoc allows and the test did
 * not (issue 32): the rule now accepts exactly that, for compiled writers, when {@code checkFile()}
 * and the next call then say TRUNCATED, and still rejects anything else.
 */
class TruncationOutcomeTest {
    private static final String TRUNCATED = "UncheckedIOException TRUNCATED hintmap: /tmp/victim-3.hints: file truncated to 4096 bytes";
    private static final String CHECK = "HintFileException TRUNCATED hintmap: /tmp/victim-3.hints: file truncated to 4096 bytes";
    private static final String RAW = "InternalError - a fault occurred in an unsafe memory access operation";

    @Test
    void theClearExceptionIsAcceptedCompiledAndInterpreted() {
        assertNull(TruncationOutcome.problem(true, TRUNCATED, CHECK, TRUNCATED));
        assertNull(TruncationOutcome.problem(false, TRUNCATED, CHECK, TRUNCATED));
    }

    @Test
    void theJvmsUnsafeAccessFaultIsAcceptedForCompiledWritersWhenCheckFileThenSaysTruncated() {
        assertNull(TruncationOutcome.problem(true, RAW, CHECK, TRUNCATED), "the verify failure's line");
        assertNotNull(TruncationOutcome.problem(true, RAW, "none", TRUNCATED), "checkFile() must tell the caller");
        assertNotNull(TruncationOutcome.problem(true, RAW, CHECK, RAW), "later calls throw the clear exception");
    }

    @Test
    void everythingElseFails() {
        assertNotNull(TruncationOutcome.problem(false, RAW, CHECK, TRUNCATED), "the interpreter raises it inside the try");
        assertNotNull(TruncationOutcome.problem(true, "InternalError - Internal Error (assembler_x86.cpp:1175)", CHECK, TRUNCATED));
        assertNotNull(TruncationOutcome.problem(true, "InternalError - a fault occurred in an unsafe memory access operationX",
                CHECK, TRUNCATED));
        assertNotNull(TruncationOutcome.problem(true, "none", CHECK, TRUNCATED), "no call failed within the minute");
        assertNotNull(TruncationOutcome.problem(true, "IllegalStateException - Already closed", CHECK, TRUNCATED));
        assertNotNull(TruncationOutcome.problem(true, "UncheckedIOException IO hintmap: a page could not be allocated",
                CHECK, TRUNCATED));
        assertNotNull(TruncationOutcome.problem(true, TRUNCATED, CHECK, "none"), "the store stays unusable");
    }
}
