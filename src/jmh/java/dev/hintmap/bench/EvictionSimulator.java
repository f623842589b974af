package dev.hintmap.bench;

import dev.hintmap.eviction.ClockHand;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Eviction quality: replays the same key traces through CLOCK exactly as the store implements it
 * ({@link ClockHand#choose} over array-backed {@link ClockHand.Frames}: fresh slots first, a new
 * region inserted with its reference bit clear, every hit sets the bit) and through exact LRU
 * ({@code LinkedHashMap} in access order), and reports both hit ratios. Plain Java, not JMH.
 *
 * <p>Traces (all seeded, so every run replays the same ones): Zipf(s) over a key universe
 * {@value #UNIVERSE_FACTOR} x capacity for s = 0.7, 0.9, 1.1; a loop over 1.1 x capacity keys
 * (LRU's worst case); and a scan mixed with a hot set (half the accesses go to a hot set of
 * capacity / 2 keys, uniformly, the other half to keys never seen before). The first
 * {@value #WARMUP_FACTOR} x capacity accesses only warm the cache and are not counted.
 *
 * <pre>./mvnw -Pjmh clean test-compile exec:exec@perf -Dperf.args=simulate</pre>
 */
public final class EvictionSimulator {
    static final int UNIVERSE_FACTOR = 16;
    static final int WARMUP_FACTOR = 4;
    static final int ACCESSES = 2_000_000;
    static final int[] CAPACITIES = {256, 4096};

    private EvictionSimulator() {}

    /** One trace at one capacity. */
    public record Row(String trace, int capacity, long accesses, double clockHitRatio, double lruHitRatio) {}

    public static void main(String[] args) {
        for (Row r : run()) {
            System.out.printf("%-28s capacity=%6d  CLOCK %6.2f%%  LRU %6.2f%%%n", r.trace(), r.capacity(),
                    100 * r.clockHitRatio(), 100 * r.lruHitRatio());
        }
    }

    public static List<Row> run() {
        List<Row> rows = new ArrayList<>();
        for (int capacity : CAPACITIES) {
            for (double s : new double[] {0.7, 0.9, 1.1}) {
                int[] trace = Workload.zipfKeys(ACCESSES, UNIVERSE_FACTOR * capacity, s, 1000 + capacity);
                rows.add(replay("Zipf s=" + s, capacity, trace));
            }
            rows.add(replay("loop of 1.1 x capacity", capacity, loop(capacity + capacity / 10)));
            rows.add(replay("scan + hot set (cap/2)", capacity, scanWithHotSet(capacity / 2, capacity)));
        }
        return rows;
    }

    static int[] loop(int keys) {
        int[] trace = new int[ACCESSES];
        for (int i = 0; i < trace.length; i++) {
            trace[i] = i % keys;
        }
        return trace;
    }

    static int[] scanWithHotSet(int hot, int seed) {
        SplittableRandom random = new SplittableRandom(seed);
        int[] trace = new int[ACCESSES];
        int next = hot;
        for (int i = 0; i < trace.length; i++) {
            trace[i] = random.nextBoolean() ? random.nextInt(hot) : next++;
        }
        return trace;
    }

    static Row replay(String name, int capacity, int[] trace) {
        int warmup = WARMUP_FACTOR * capacity;
        Clock clock = new Clock(capacity);
        Lru lru = new Lru(capacity);
        long clockHits = 0;
        long lruHits = 0;
        for (int i = 0; i < trace.length; i++) {
            boolean c = clock.access(trace[i]);
            boolean l = lru.access(trace[i]);
            if (i >= warmup) {
                clockHits += c ? 1 : 0;
                lruHits += l ? 1 : 0;
            }
        }
        long counted = trace.length - warmup;
        return new Row(name, capacity, counted, (double) clockHits / counted, (double) lruHits / counted);
    }

    /** The store's CLOCK: {@link ClockHand} over arrays, with the store's bit rules. */
    static final class Clock implements ClockHand.Frames {
        private final int capacity;
        private final int[] keyAt;
        private final boolean[] referenced;
        private final Map<Integer, Integer> slotOf = new HashMap<>();
        private long highWater;
        private long hand;

        Clock(int capacity) {
            this.capacity = capacity;
            this.keyAt = new int[capacity];
            this.referenced = new boolean[capacity];
            Arrays.fill(keyAt, -1);
        }

        boolean access(int key) {
            Integer slot = slotOf.get(key);
            if (slot != null) {
                referenced[slot] = true; // a record sets the bit (FORMAT.md §7.1)
                return true;
            }
            int k = ClockHand.choose(this);
            if (keyAt[k] >= 0) {
                slotOf.remove(keyAt[k]);
            }
            keyAt[k] = key;
            referenced[k] = false; // inserted with a clear bit (FORMAT.md §10)
            slotOf.put(key, k);
            return false;
        }

        @Override
        public int capacity() {
            return capacity;
        }

        @Override
        public long highWater() {
            return highWater;
        }

        @Override
        public void highWater(long value) {
            highWater = value;
        }

        @Override
        public long hand() {
            return hand;
        }

        @Override
        public void hand(long value) {
            hand = value;
        }

        @Override
        public boolean clearReferenced(int slot) {
            boolean was = referenced[slot];
            referenced[slot] = false;
            return was;
        }
    }

    /** Exact LRU. */
    static final class Lru {
        private final LinkedHashMap<Integer, Boolean> map;

        Lru(int capacity) {
            map = new LinkedHashMap<>(2 * capacity, 0.75f, true) {
                private static final long serialVersionUID = 1L;

                @Override
                protected boolean removeEldestEntry(Map.Entry<Integer, Boolean> eldest) {
                    return size() > capacity;
                }
            };
        }

        boolean access(int key) {
            if (map.get(key) != null) {
                return true;
            }
            map.put(key, Boolean.TRUE);
            return false;
        }
    }
}
