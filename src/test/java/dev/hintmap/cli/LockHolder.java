package dev.hintmap.cli;

import dev.hintmap.HintFileInfo;
import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.format.FileGeometry;
import dev.hintmap.format.Layouts;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/**
 * A second process that holds the slot lock of one region, as a writer stopped in the middle of a
 * record would: {@code LockHolder FILE NAME} opens FILE as a writer (claiming a writer-table entry
 * through the library), takes the slot lock of region NAME the way FORMAT.md §6.1 says (its owner
 * word, CAS from 0), prints {@code holding SLOT} and keeps the lock and the store until its
 * standard input closes or it is killed. The library has no call that returns with a lock held,
 * so the lock word is written through a mapping of its own; the test then stops this process
 * (SIGSTOP) to make it the stopped writer of the issue.
 */
public final class LockHolder {
    private static final VarHandle LONG = Layouts.U64.varHandle(); // every field is little-endian (FORMAT.md §1)

    private LockHolder() {}

    public static void main(String[] args) throws Exception {
        Path file = Path.of(args[0]);
        byte[] name = args[1].getBytes(StandardCharsets.UTF_8);
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults());
                FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
                Arena arena = Arena.ofShared()) {
            HintFileInfo info = store.info();
            long pid = ProcessHandle.current().pid();
            int entry = info.writers().stream().filter(w -> w.pid() == pid).findFirst().orElseThrow().entry();
            FileGeometry g = new FileGeometry(info.capacity(), info.maxNameBytes());
            MemorySegment m = channel.map(FileChannel.MapMode.READ_WRITE, 0, channel.size(), arena);
            long generation = (long) LONG.getVolatile(m, g.writerTableOffset()
                    + entry * Layouts.WRITER_ENTRY.byteSize() + Layouts.WRITER_GENERATION);
            long owner = (generation & 0xFFFF_FFFFL) << 32 | (entry + 1L); // FORMAT.md §6.1
            int slot = slotOf(m, g, name);
            long lock = g.slotsOffset() + (long) slot * g.slotBytes() + Layouts.SLOT_LOCK;
            if (!LONG.compareAndSet(m, lock, 0L, owner)) {
                throw new IOException("slot lock of " + args[1] + " is taken");
            }
            System.out.println("holding " + slot);
            System.out.flush();
            System.in.read(); // until the test closes our input (or kills us)
            LONG.setVolatile(m, lock, 0L);
        }
    }

    private static int slotOf(MemorySegment m, FileGeometry g, byte[] name) throws IOException {
        for (int k = 0; k < g.capacity(); k++) {
            long slot = g.slotsOffset() + (long) k * g.slotBytes();
            int length = m.get(Layouts.U32, slot + Layouts.SLOT_NAME_LEN);
            if (length == name.length && Arrays.equals(
                    m.asSlice(slot + Layouts.SLOT_NAME, length).toArray(ValueLayout.JAVA_BYTE), name)) {
                return k;
            }
        }
        throw new IOException("no region " + new String(name, StandardCharsets.UTF_8));
    }
}
