package dev.hintmap.store;

import dev.hintmap.format.FileGeometry;
import dev.hintmap.format.Layouts;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Plants a slot lock held by another process into a closed hint file, through a raw mapping (as
 * {@code LockGiveUpTest} does), for benchmarks and tests outside this package.
 */
public final class StuckLocks {
    /** The writer entry planted for the holder: far from the entries that opens claim first. */
    public static final int ENTRY = 1010;

    private StuckLocks() {}

    /**
     * Writes {@code holderToken} at generation 1 into writer entry {@link #ENTRY} and that entry's
     * owner word (§6.1) into the lock of slot {@code slot}; returns the owner word.
     */
    public static long plantSlotLock(Path file, FileGeometry geometry, int slot, long holderToken) throws IOException {
        long owner = WriterTable.ownerWord(ENTRY, 1);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
                Arena arena = Arena.ofConfined()) {
            Memory m = new Memory(channel.map(FileChannel.MapMode.READ_WRITE, 0, channel.size(), arena));
            long entry = geometry.writerTableOffset() + ENTRY * Layouts.WRITER_ENTRY.byteSize();
            Memory.plainLong(m.segment, entry + Layouts.WRITER_TOKEN, holderToken);
            Memory.plainLong(m.segment, entry + Layouts.WRITER_GENERATION, 1);
            Memory.plainLong(m.segment, Slots.lock(new Slots(geometry).slot(slot)), owner);
        }
        return owner;
    }

    /** The owner word now in the lock of slot {@code slot}. */
    public static long slotLockWord(Path file, FileGeometry geometry, int slot) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
                Arena arena = Arena.ofConfined()) {
            MemorySegment segment = channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size(), arena);
            return Memory.plainLong(segment, Slots.lock(new Slots(geometry).slot(slot)));
        }
    }
}
