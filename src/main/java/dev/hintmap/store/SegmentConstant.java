package dev.hintmap.store;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;

/**
 * One store's mapping as a compile-time constant: an instance of a hidden class, defined per
 * store from the bytes of {@link SegmentConstantTemplate}, whose {@code static final} field holds
 * the segment (class data). Where a call site of {@link #segment()} sees one store (monomorphic),
 * C2 inlines it and folds the segment's null, read-only, bounds-base and alignment checks; the
 * shared arena's liveness check stays, so a closed store still throws
 * {@link IllegalStateException} and a truncated page still faults into an {@link InternalError}
 * (docs/PERF-READ.md).
 */
interface SegmentConstant {
    MemorySegment segment();

    static SegmentConstant of(MemorySegment segment) {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup()
                    .defineHiddenClassWithClassData(TemplateBytes.BYTES, segment, true);
            return (SegmentConstant) lookup.findConstructor(lookup.lookupClass(),
                    java.lang.invoke.MethodType.methodType(void.class)).invoke();
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("cannot define the segment constant of a store", e);
        }
    }

    /** The template's class file, read once (never loaded as an ordinary class). */
    final class TemplateBytes {
        static final byte[] BYTES = read();

        private TemplateBytes() {}

        private static byte[] read() {
            try (InputStream in = SegmentConstant.class.getResourceAsStream("SegmentConstantTemplate.class")) {
                if (in == null) {
                    throw new IllegalStateException("SegmentConstantTemplate.class is missing");
                }
                return in.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
