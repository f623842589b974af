package dev.hintmap.store;

import dev.hintmap.format.FileGeometry;
import dev.hintmap.format.Layouts;
import dev.hintmap.os.MappedFileSighting;
import dev.hintmap.os.ProcessIdentity;

/**
 * The per-run table of attached writers (§3.5, §6.1). Each writer claims one entry; its owner
 * word, stored in the locks it holds, names the entry and the entry's generation, so that a lock
 * left by a dead process is recognised as dead even after its entry has been reused.
 */
final class WriterTable {
    private static final long ENTRY_BYTES = Layouts.WRITER_ENTRY.byteSize();
    private static final long INDEX_MASK = 0xFFFF_FFFFL;

    private final Memory memory;
    private final long base;
    private final int entries;
    /** Which processes map this file (§6.3 last rule); null for anonymous memory. */
    private final MappedFileSighting sighting;

    WriterTable(Memory memory, FileGeometry geometry, MappedFileSighting sighting) {
        this.memory = memory;
        this.base = geometry.writerTableOffset();
        this.entries = geometry.writerEntries();
        this.sighting = sighting;
    }

    /** Whether the writer holding {@code token} is alive and uses this file (§6.3). */
    boolean isAlive(long token) {
        return ProcessIdentity.isAlive(token, sighting);
    }

    long entryOffset(int index) {
        return base + index * ENTRY_BYTES;
    }

    int entries() {
        return entries;
    }

    /** Entry {@code index}'s token: 0 when free, else the holder's (§3.5). */
    long token(int index) {
        return Memory.acquireLong(memory.segment, entryOffset(index) + Layouts.WRITER_TOKEN);
    }

    /** Entry {@code index}'s generation: how many writers have claimed it. */
    long generation(int index) {
        return Memory.acquireLong(memory.segment, entryOffset(index) + Layouts.WRITER_GENERATION);
    }

    /** Result of a claim: the entry's index and the owner word for the locks its holder takes. */
    record Claim(int index, long owner) {}

    /**
     * Reclaims entries of dead processes, then claims a free entry for {@code token}.
     *
     * @return the claim, or {@code null} when every entry is held by a live process
     */
    Claim claim(long token) {
        for (int i = 0; i < entries; i++) {
            long held = Memory.acquireLong(memory.segment, entryOffset(i) + Layouts.WRITER_TOKEN);
            // Only a process that is not running loses its entry here: §6.3 without its maps rule.
            // The CAS below compares the token alone, and a writer that closes and reopens the
            // file between our check and our CAS claims the same entry with the same token; had
            // we judged it by its mappings (none in that gap), we would clear its fresh claim.
            // Entries of running processes that do not map this file (a copy's) cost nothing:
            // their locks are judged by the full rule (isDead) when someone waits for them.
            if (held != 0 && held != token && !ProcessIdentity.isAlive(held, null)) {
                Memory.casLong(memory.segment, entryOffset(i) + Layouts.WRITER_TOKEN, held, 0L); // losing the race is fine
            }
        }
        for (int i = 0; i < entries; i++) {
            long entry = entryOffset(i);
            if (Memory.acquireLong(memory.segment, entry + Layouts.WRITER_TOKEN) == 0
                    && Memory.casLong(memory.segment, entry + Layouts.WRITER_TOKEN, 0L, token)) {
                // Only the holder writes the generation: a lock stamped with the old one now reads as dead.
                long generation = Memory.plainLong(memory.segment, entry + Layouts.WRITER_GENERATION) + 1;
                Memory.releaseLong(memory.segment, entry + Layouts.WRITER_GENERATION, generation);
                return new Claim(i, ownerWord(i, generation));
            }
        }
        return null;
    }

    static long ownerWord(int index, long generation) {
        return (generation & INDEX_MASK) << 32 | (index + 1L);
    }

    /**
     * Whether the holder named by {@code owner} is dead (§6.3). {@code selfToken} short-cuts the
     * check for locks held by this process.
     */
    boolean isDead(long owner, long selfToken) {
        long index = (owner & INDEX_MASK) - 1;
        if (index < 0 || index >= entries) {
            return true; // corrupt owner word: no live writer can hold it
        }
        long entry = entryOffset((int) index);
        long generation = Memory.acquireLong(memory.segment, entry + Layouts.WRITER_GENERATION);
        if ((generation & INDEX_MASK) != owner >>> 32) {
            return true;
        }
        long token = Memory.acquireLong(memory.segment, entry + Layouts.WRITER_TOKEN);
        if (token == 0) {
            return true;
        }
        return token != selfToken && !isAlive(token);
    }
}
