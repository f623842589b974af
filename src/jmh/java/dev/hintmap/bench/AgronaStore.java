package dev.hintmap.bench;

import dev.hintmap.RegionRecord;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.MappedByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.concurrent.ConcurrentHashMap;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersManager;
import org.agrona.concurrent.status.CountersReader;

/**
 * Aeron-style shared counters (Agrona {@link CountersManager}) on a mapped file: four counters per
 * region (count, kernel ns total, kernel ns max, bytes), labelled with the region name, updated
 * with atomic adds and a CAS-max on the mapped values buffer. Other processes can read them with
 * a {@link CountersReader} over the same file. Counters have no name lookup and no eviction: the
 * adapter keeps an on-heap {@code ConcurrentHashMap} name index and, at capacity, frees the
 * oldest region's counters (FIFO, O(1)) under one lock taken only for inserts. Reads are not a
 * consistent snapshot of the four counters.
 *
 * <p>Both buffers are int-indexed, so at most {@link #MAX_CAPACITY} regions fit (2 GiB of metadata).
 */
final class AgronaStore implements BenchStore {
    /** 4 counters x 512 B metadata per region must stay below 2 GiB. */
    static final int MAX_CAPACITY = (Integer.MAX_VALUE / (4 * CountersReader.METADATA_LENGTH)) & ~1023;
    private static final int COUNT = 0;
    private static final int TOTAL = 1;
    private static final int MAX = 2;
    private static final int BYTES = 3;

    private final Path metaFile;
    private final Path valuesFile;
    private final MappedByteBuffer metaMap;
    private final MappedByteBuffer valuesMap;
    private final UnsafeBuffer values;
    private final CountersManager counters;
    private final int capacity;
    private final ConcurrentHashMap<String, Entry> index;
    private final ArrayDeque<String> insertion;

    AgronaStore(Path dir, String stem, int capacity) {
        if (capacity > MAX_CAPACITY) {
            throw new IllegalArgumentException("Agrona counters: capacity " + capacity + " > " + MAX_CAPACITY
                    + " (4 counters x 640 B per region in int-indexed buffers)");
        }
        this.capacity = capacity;
        this.metaFile = dir.resolve(stem + ".meta");
        this.valuesFile = dir.resolve(stem + ".values");
        int valuesLength = Math.max(1, capacity) * 4 * CountersReader.COUNTER_LENGTH;
        int metaLength = valuesLength * (CountersReader.METADATA_LENGTH / CountersReader.COUNTER_LENGTH);
        try {
            Files.deleteIfExists(metaFile);
            Files.deleteIfExists(valuesFile);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        metaMap = IoUtil.mapNewFile(metaFile.toFile(), metaLength, false);
        valuesMap = IoUtil.mapNewFile(valuesFile.toFile(), valuesLength, false);
        values = new UnsafeBuffer(valuesMap);
        counters = new CountersManager(new UnsafeBuffer(metaMap), values, StandardCharsets.US_ASCII);
        index = new ConcurrentHashMap<>(Math.max(16, capacity * 2));
        insertion = new ArrayDeque<>(Math.max(16, capacity));
    }

    @Override
    public void record(String name, long kernelNs, long bytes) {
        Entry e = index.get(name);
        if (e == null) {
            e = insert(name);
            if (e == null) {
                return;
            }
        }
        UnsafeBuffer v = values;
        v.getAndAddLong(e.count, 1);
        v.getAndAddLong(e.total, kernelNs);
        long m;
        while (kernelNs > (m = v.getLongVolatile(e.max)) && !v.compareAndSetLong(e.max, m, kernelNs)) {
            // retry
        }
        v.getAndAddLong(e.bytes, bytes);
    }

    private Entry insert(String name) {
        if (capacity == 0) {
            return null;
        }
        synchronized (insertion) {
            Entry e = index.get(name);
            if (e != null) {
                return e;
            }
            if (insertion.size() >= capacity) {
                Entry victim = index.remove(insertion.pollFirst());
                for (int id : victim.ids) {
                    counters.free(id);
                }
            }
            int[] ids = new int[4];
            ids[COUNT] = counters.allocate(name, 1);
            ids[TOTAL] = counters.allocate(name, 2);
            ids[MAX] = counters.allocate(name, 3);
            ids[BYTES] = counters.allocate(name, 4);
            e = new Entry(ids);
            index.put(name, e);
            insertion.addLast(name);
            return e;
        }
    }

    @Override
    public Recorder recorder(String name) {
        return (ns, b) -> record(name, ns, b);
    }

    @Override
    public boolean isHot(String name) {
        Entry e = index.get(name);
        if (e == null) {
            return false;
        }
        long count = values.getLongVolatile(e.count);
        return count > 0 && values.getLongVolatile(e.total) / count >= HOT_THRESHOLD_NS;
    }

    @Override
    public long dispatchCount(String name, Fields scratch) {
        Entry e = index.get(name);
        return e == null ? 0 : values.getLongVolatile(e.count);
    }

    @Override
    public long meanKernelNs(String name, Fields scratch) {
        Entry e = index.get(name);
        if (e == null) {
            return 0;
        }
        long count = values.getLongVolatile(e.count);
        return count == 0 ? 0 : values.getLongVolatile(e.total) / count;
    }

    @Override
    public RegionRecord recordFor(String name) {
        Entry e = index.get(name);
        if (e == null) {
            return null;
        }
        return new RegionRecord(name, values.getLongVolatile(e.count), values.getLongVolatile(e.total),
                values.getLongVolatile(e.max), values.getLongVolatile(e.bytes));
    }

    @Override
    public boolean readInto(String name, Fields into) {
        Entry e = index.get(name);
        return e != null && read(e, into);
    }

    @Override
    public Reader reader(String name) {
        Entry e = index.get(name); // resolved once: the query benchmarks never evict
        return e == null ? into -> false : into -> read(e, into);
    }

    private boolean read(Entry e, Fields into) {
        UnsafeBuffer v = values;
        return into.set(v.getLongVolatile(e.count), v.getLongVolatile(e.total), v.getLongVolatile(e.max),
                v.getLongVolatile(e.bytes));
    }

    /**
     * {@link #iterate()} without a label {@code String} per counter: the label's length is read
     * from the metadata record, as a reader comparing names in place would.
     */
    @Override
    public long visit() {
        long sum = 0;
        int maxId = counters.maxCounterId();
        org.agrona.concurrent.AtomicBuffer meta = counters.metaDataBuffer();
        for (int id = 0; id <= maxId; id++) {
            int state = counters.getCounterState(id);
            if (state == CountersReader.RECORD_UNUSED) {
                break;
            }
            if (state == CountersReader.RECORD_ALLOCATED) {
                int type = counters.getCounterTypeId(id);
                if (type == 1 || type == 3) {
                    sum += counters.getCounterValue(id) + meta.getInt(CountersReader.metaDataOffset(id) + CountersReader.LABEL_OFFSET);
                }
            }
        }
        return sum;
    }

    /** What a reader in another process does: walk the counters' metadata (labels) and values. */
    @Override
    public long iterate() {
        long[] sum = new long[1];
        counters.forEach((counterId, typeId, keyBuffer, label) -> {
            if (typeId == 1 || typeId == 3) {
                sum[0] += counters.getCounterValue(counterId) + label.length();
            }
        });
        return sum[0];
    }

    @Override
    public int size() {
        return index.size();
    }

    @Override
    public void close() {
        IoUtil.unmap(metaMap);
        IoUtil.unmap(valuesMap);
        try {
            Files.deleteIfExists(metaFile);
            Files.deleteIfExists(valuesFile);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static final class Entry {
        final int[] ids;
        final int count;
        final int total;
        final int max;
        final int bytes;

        Entry(int[] ids) {
            this.ids = ids;
            this.count = CountersReader.counterOffset(ids[COUNT]);
            this.total = CountersReader.counterOffset(ids[TOTAL]);
            this.max = CountersReader.counterOffset(ids[MAX]);
            this.bytes = CountersReader.counterOffset(ids[BYTES]);
        }
    }
}
