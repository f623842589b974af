package dev.hintmap.eviction;

/**
 * CLOCK (second-chance) choice of the slot a new region goes into (§7.4 step 3).
 *
 * <p>Slots never used yet are handed out first, in order. Once all are used the hand sweeps:
 * a slot whose reference bit is clear is taken; a set bit is cleared and the hand moves on. The
 * hand reads the dense reference bytes only, never a slot (FORMAT.md §3.9): a FREE slot's bit is
 * always clear, since freeing and inserting clear it and a record needs a LIVE slot. Every bit the hand clears was set by one record, so the sweep costs amortised O(1)
 * per insertion. After one full turn all bits are clear, so two turns always end; only writers
 * racing to set bits again could exhaust them, and then the slot under the hand is taken.
 */
public final class ClockHand {
    private ClockHand() {}

    /** The frames the hand sweeps over; the store implements it over the mapping, tests over arrays. */
    public interface Frames {
        int capacity();

        long highWater();

        void highWater(long value);

        long hand();

        void hand(long value);

        /** Clears the slot's reference bit and reports whether it was set. */
        boolean clearReferenced(int slot);
    }

    /** Chooses a slot for a new region; requires {@code capacity() > 0}. */
    public static int choose(Frames frames) {
        int capacity = frames.capacity();
        long highWater = frames.highWater();
        if (highWater >= 0 && highWater < capacity) {
            frames.highWater(highWater + 1);
            return (int) highWater;
        }
        long hand = frames.hand();
        if (hand < 0 || hand >= capacity) {
            hand = 0; // a damaged hand is only a position: restart the sweep
        }
        for (long step = 0; step < 2L * capacity; step++) {
            int slot = (int) hand;
            hand = hand + 1 == capacity ? 0 : hand + 1;
            if (!frames.clearReferenced(slot)) {
                frames.hand(hand);
                return slot;
            }
        }
        int slot = (int) hand;
        frames.hand(hand + 1 == capacity ? 0 : hand + 1);
        return slot;
    }
}
