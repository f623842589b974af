package dev.hintmap;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The reference semantics as a plain sequential model: per-region running sums, saturating,
 * capacity-bounded with exact CLOCK as docs/FORMAT.md §7.4 describes it (fresh slots first,
 * then the hand; a region's bit is set by every record after its insertion, cleared when the
 * hand passes). Deliberately written with arrays and maps, sharing no code with the store.
 */
final class ReferenceModel {
    private final int capacity;
    private final long threshold;
    private final String[] slotName;
    private final boolean[] referenced;
    private final Map<String, Integer> slotOf = new HashMap<>();
    private final Map<String, long[]> stats = new HashMap<>();
    private int used;
    private int hand;
    long evictions;

    ReferenceModel(int capacity, long threshold) {
        this.capacity = capacity;
        this.threshold = threshold;
        this.slotName = new String[capacity];
        this.referenced = new boolean[capacity];
    }

    private static long sat(long a, long b) {
        long s = a + b;
        return s < 0 ? Long.MAX_VALUE : s;
    }

    void record(String name, long ns, long bytes) {
        if (capacity == 0) {
            return;
        }
        long[] s = stats.get(name);
        if (s != null) {
            s[0] = sat(s[0], 1);
            s[1] = sat(s[1], ns);
            s[2] = Math.max(s[2], ns);
            s[3] = sat(s[3], bytes);
            referenced[slotOf.get(name)] = true;
            return;
        }
        int slot;
        if (used < capacity) {
            slot = used++;
        } else {
            while (referenced[hand]) {
                referenced[hand] = false;
                hand = (hand + 1) % capacity;
            }
            slot = hand;
            hand = (hand + 1) % capacity;
            String victim = slotName[slot];
            slotOf.remove(victim);
            stats.remove(victim);
            evictions++;
        }
        slotName[slot] = name;
        referenced[slot] = false;
        slotOf.put(name, slot);
        stats.put(name, new long[] {1, ns, ns, bytes});
    }

    Optional<RegionRecord> recordFor(String name) {
        long[] s = stats.get(name);
        return s == null ? Optional.empty() : Optional.of(new RegionRecord(name, s[0], s[1], s[2], s[3]));
    }

    boolean isHot(String name) {
        return recordFor(name).map(r -> r.meanKernelNs() >= threshold).orElse(false);
    }

    int size() {
        return stats.size();
    }
}
