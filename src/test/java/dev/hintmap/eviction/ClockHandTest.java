package dev.hintmap.eviction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The CLOCK choice of §7.4 step 3 over arrays, and what it reads (§3.9). */
class ClockHandTest {
    /** Frames over arrays that log which reference bytes the hand reads. */
    static final class ArrayFrames implements ClockHand.Frames {
        final boolean[] referenced;
        long highWater;
        long hand;
        final List<Integer> bytesRead = new ArrayList<>();

        ArrayFrames(int capacity) {
            referenced = new boolean[capacity];
            highWater = capacity;
        }

        @Override public int capacity() { return referenced.length; }
        @Override public long highWater() { return highWater; }
        @Override public void highWater(long value) { highWater = value; }
        @Override public long hand() { return hand; }
        @Override public void hand(long value) { hand = value; }

        @Override
        public boolean clearReferenced(int slot) {
            bytesRead.add(slot);
            boolean was = referenced[slot];
            referenced[slot] = false;
            return was;
        }
    }

    @Test
    void theHandClearsSetBitsInOrderAndTakesTheFirstClearOne() {
        ArrayFrames frames = new ArrayFrames(8);
        for (int k = 0; k < 6; k++) {
            frames.referenced[k] = true;
        }
        assertEquals(6, ClockHand.choose(frames));
        assertEquals(List.of(0, 1, 2, 3, 4, 5, 6), frames.bytesRead, "one byte per step, in hand order");
        for (int k = 0; k < 6; k++) {
            assertFalse(frames.referenced[k], "the hand cleared the bit it passed");
        }
        assertEquals(7, frames.hand);
    }

    @Test
    void slotsNeverUsedAreHandedOutFirstInOrder() {
        ArrayFrames frames = new ArrayFrames(4);
        frames.highWater = 1;
        assertEquals(1, ClockHand.choose(frames));
        assertEquals(2, frames.highWater);
        assertEquals(List.of(), frames.bytesRead);
    }

    @Test
    void whenEveryBitIsSetTheSecondTurnTakesTheSlotWhereTheHandStarted() {
        ArrayFrames frames = new ArrayFrames(3);
        java.util.Arrays.fill(frames.referenced, true);
        frames.hand = 1;
        assertEquals(1, ClockHand.choose(frames));
        assertEquals(2, frames.hand);
    }
}
