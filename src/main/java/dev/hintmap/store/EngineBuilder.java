package dev.hintmap.store;

import dev.hintmap.format.FileGeometry;

/**
 * How a store builds its writer's engine and lock: {@link #PRODUCTION}, the constructors, outside
 * tests. A test sets, around its open ({@link TestSeams#ENGINE}), a builder of subclasses of
 * {@link OwnerLock}, {@link StoreEngine}, {@link StoreRecovery} and {@link WholeRecords} that act
 * inside a critical section (throw there, publish there) with its lock held: the seam through which
 * tests reach those windows, as C's tests do through {@code HM_TEST_HOOKS}, while production code
 * carries no test hook inside a critical section.
 */
@FunctionalInterface
interface EngineBuilder {
    /** The engine and lock of a writer whose lock protocol uses {@code owner} (§6.1) and {@code token} (§3.5). */
    StoreEngine writer(Memory memory, FileGeometry geometry, long hotThresholdNs, boolean rejectLongNames,
            WriterTable writers, long owner, long token, StoreSettings settings);

    EngineBuilder PRODUCTION = (memory, geometry, hotThresholdNs, rejectLongNames, writers, owner, token, settings) ->
            new StoreEngine(memory, geometry, hotThresholdNs, rejectLongNames,
                    new OwnerLock(memory, writers, owner, token, settings));
}
