package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.RegionOrder;
import org.junit.jupiter.api.Test;

/** The keys of {@code top --watch}, without a terminal: each key's effect on the view's state and footer. */
class WatchKeysTest {
    private static WatchKeys press(WatchKeys state, String keys) {
        for (char c : keys.toCharArray()) {
            state = state.onKey(c);
        }
        return state;
    }

    @Test
    void sortKeysChooseTheOrderAndKeepPause() {
        WatchKeys start = WatchKeys.start(RegionOrder.TOTAL_NS);
        assertEquals(RegionOrder.MEAN_NS, press(start, "m").order());
        assertEquals(RegionOrder.COUNT, press(start, "c").order());
        assertEquals(RegionOrder.MAX_NS, press(start, "x").order());
        assertEquals(RegionOrder.TOTAL_NS, press(start, "mt").order());
        WatchKeys paused = press(start, "pc");
        assertTrue(paused.paused(), "sorting while paused stays paused");
        assertEquals(RegionOrder.COUNT, paused.order());
    }

    @Test
    void pOrSpacePausesAndResumes() {
        WatchKeys start = WatchKeys.start(RegionOrder.COUNT);
        assertTrue(press(start, "p").paused());
        assertTrue(press(start, " ").paused());
        assertFalse(press(start, "p ").paused());
        assertFalse(press(start, "pp").paused());
    }

    @Test
    void qAndCtrlCQuitAndOtherKeysChangeNothing() {
        WatchKeys start = WatchKeys.start(RegionOrder.TOTAL_NS);
        assertTrue(start.onKey('q').quit());
        assertTrue(start.onKey('Q').quit());
        assertTrue(start.onKey(WatchKeys.CTRL_C).quit());
        assertFalse(start.quit());
        for (int key : new int[] {'z', 'T', '\r', 27}) {
            assertSame(start, start.onKey(key), "key " + key);
        }
    }

    @Test
    void theFooterShowsTheKeysTheOrderAndPause() {
        WatchKeys start = WatchKeys.start(RegionOrder.TOTAL_NS);
        assertEquals("q quit  p pause  sort: t total, m mean, c count, x max (now total)", start.footer(1, 0, 0));
        assertEquals("q quit  p pause  sort: t total, m mean, c count, x max (now max)   PAUSED   (refresh 2 of 5)",
                press(start, "xp").footer(2, 5, 0));
    }
}
