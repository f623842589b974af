package dev.hintmap.store;

import dev.hintmap.format.FileGeometry;
import dev.hintmap.format.Header;
import dev.hintmap.format.Layouts;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Cleaner;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Fresh stores for jcstress states: the same anonymous, page-aligned native memory and engine
 * that {@code MappedStore.inMemory} builds (header written, magic published, one writer entry
 * claimed). Every access goes through {@link Memory} on a real {@link MemorySegment}, exactly as
 * on a mapped file.
 *
 * <p>jcstress creates hundreds of thousands of states per second and never closes them. A fresh
 * 28 KiB native allocation per state costs 7 page faults on this class of VM (5–100 µs, so
 * jcstress sampled only ~10 K states/s), and closing a shared arena per state would cost a
 * thread handshake. So segments are recycled: when the engine of a state becomes unreachable
 * (no actor can touch it any more), a {@link Cleaner} returns its segment to a pool, and the
 * next state zeroes it completely before it initialises it again, so every state still starts
 * from an all-zero file, as a new store does.
 */
final class StressStores {
    private StressStores() {}

    /** Hot threshold of the stress stores; irrelevant to the protocol. */
    private static final long HOT_NS = 100_000;
    static final int MAX_NAME_BYTES = 33; // the format's smallest limit (FORMAT.md §2): the names here are short

    private static final Cleaner CLEANER = Cleaner.create();
    /** Never closed: the pool lives as long as the forked test JVM. */
    private static final Arena ARENA = Arena.ofShared();
    private static final Map<Long, Queue<MemorySegment>> POOLS = new ConcurrentHashMap<>();

    static StoreEngine engine(int capacity) {
        Header header = new Header(new FileGeometry(capacity, MAX_NAME_BYTES), HOT_NS, 0L);
        long bytes = header.geometry().fileBytes();
        Queue<MemorySegment> pool = POOLS.computeIfAbsent(bytes, b -> new ConcurrentLinkedQueue<>());
        MemorySegment data = pool.poll();
        if (data == null) {
            data = ARENA.allocate(bytes, Layouts.PAGE);
        } else {
            data.fill((byte) 0);
        }
        StoreEngine engine = MappedStore.anonymousEngine(data, header);
        MemorySegment recycled = data;
        CLEANER.register(engine, () -> pool.offer(recycled));
        return engine;
    }

    /** An encoded copy of {@code name}, as a {@code Region} handle keeps it. */
    static EncodedName name(String name) {
        EncodedName scratch = new EncodedName();
        scratch.encodeChecked(name, MAX_NAME_BYTES, true);
        return scratch.copy();
    }
}
