package dev.hintmap.store;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * One store's mapping as a compile-time constant: an instance of a hidden class, defined per
 * store from the bytes of {@link SegmentConstantTemplate}, whose {@code static final} field holds
 * the segment (class data). Where a call site of {@link #segment()} sees one store (monomorphic),
 * C2 inlines it and folds the segment's null, read-only, bounds-base and alignment checks; the
 * shared arena's liveness check stays, so a closed store still throws
 * {@link IllegalStateException} and a truncated page still faults into an {@link InternalError}
 * (docs/archive/PERF-READ.md).
 */
interface SegmentConstant {
    MemorySegment segment();

    /**
     * The constant for {@code segment}; where the hidden class cannot be defined (a repackaged jar
     * that dropped the template, a JVM that refuses), the plain field read it replaces: only slower.
     */
    static SegmentConstant of(MemorySegment segment) {
        byte[] template = TemplateBytes.BYTES;
        if (template != null) {
            try {
                MethodHandles.Lookup lookup = MethodHandles.lookup().defineHiddenClassWithClassData(template, segment, true);
                return (SegmentConstant) lookup.findConstructor(lookup.lookupClass(),
                        MethodType.methodType(void.class)).invoke();
            } catch (Throwable e) {
                // fall through: hints must not fail to open for the sake of a faster access
            }
        }
        return () -> segment;
    }

    /** The template's class file, read once (never loaded as an ordinary class). */
    final class TemplateBytes {
        static final byte[] BYTES = read();

        private TemplateBytes() {}

        /** null where the class file cannot be read (SegmentConstant.of then falls back). */
        private static byte[] read() {
            // The class literal, not a string alone, so that a shrinking tool sees the class is used.
            try (InputStream in = SegmentConstant.class.getResourceAsStream(
                    SegmentConstantTemplate.class.getSimpleName() + ".class")) {
                return in == null ? null : in.readAllBytes();
            } catch (IOException e) {
                return null;
            }
        }
    }
}
