package dev.hintmap.store;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;

/**
 * Template of {@link SegmentConstant}'s hidden classes: only its bytes are used, each definition
 * with one store's segment as class data. Never loaded as an ordinary class (it has no class data).
 */
final class SegmentConstantTemplate implements SegmentConstant {
    private static final MemorySegment SEGMENT;

    static {
        try {
            SEGMENT = MethodHandles.classData(MethodHandles.lookup(), "_", MemorySegment.class);
        } catch (IllegalAccessException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    SegmentConstantTemplate() {}

    @Override
    public MemorySegment segment() {
        return SEGMENT;
    }
}
