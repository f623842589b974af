package dev.hintmap.cli;

import dev.hintmap.RegionOrder;
import java.util.List;
import java.util.Locale;

/**
 * What the keys of the live view ({@code top --watch}) do, as a pure state machine: the state is
 * the sort order, whether refreshing is paused and whether the user asked to quit; {@link #onKey}
 * gives the state after one key. {@link WatchScreen} only reads keys and draws, so this can be
 * tested without a terminal.
 *
 * <ul>
 *   <li>{@code t}, {@code m}, {@code c}, {@code x}: rank by total kernel time, mean kernel time,
 *       dispatch count, longest dispatch (as {@code --by});</li>
 *   <li>{@code p} or space: pause (keep the current snapshot on screen) or resume;</li>
 *   <li>{@code q}, {@code Q}, Ctrl-C: quit. Any other key changes nothing.</li>
 * </ul>
 */
record WatchKeys(RegionOrder order, boolean paused, boolean quit) {
    /** Ctrl-C as a character (raw mode delivers it so when the terminal does not turn it into SIGINT). */
    static final int CTRL_C = 3;

    /** The state at start: refreshing, ranked by {@code order}. */
    static WatchKeys start(RegionOrder order) {
        return new WatchKeys(order, false, false);
    }

    /** The state after {@code key}. */
    WatchKeys onKey(int key) {
        return switch (key) {
            case 't' -> withOrder(RegionOrder.TOTAL_NS);
            case 'm' -> withOrder(RegionOrder.MEAN_NS);
            case 'c' -> withOrder(RegionOrder.COUNT);
            case 'x' -> withOrder(RegionOrder.MAX_NS);
            case 'p', ' ' -> new WatchKeys(order, !paused, quit);
            case 'q', 'Q', CTRL_C -> new WatchKeys(order, paused, true);
            default -> this;
        };
    }

    private WatchKeys withOrder(RegionOrder newOrder) {
        return new WatchKeys(newOrder, paused, quit);
    }

    /**
     * The footer line, at most {@code width} columns (0: no limit): the keys and the order in
     * effect, then PAUSED while paused and the refresh count when {@code --iterations} bounds
     * them. The state is what the footer is for, so it stays whole: where the line is too wide
     * (80 columns), the keys are said shorter, and only then cut.
     */
    String footer(int refresh, int iterations, int width) {
        String state = (paused ? "   PAUSED" : "") + (iterations > 0 ? "   (refresh " + refresh + " of " + iterations + ")" : "");
        String now = "(now " + orderName(order) + ")";
        List<String> keys = List.of("q quit  p pause  sort: t total, m mean, c count, x max " + now,
                "q quit  p pause  sort t/m/c/x " + now, "q quit  p pause  " + now, "q quit " + now);
        for (String k : keys) {
            if (width <= 0 || Table.columns(k + state) <= width) {
                return k + state;
            }
        }
        return Table.cut(state.strip(), width);
    }

    /** The name {@code --by} and the keys use for an order. */
    static String orderName(RegionOrder order) {
        return order.name().toLowerCase(Locale.ROOT).replace("_ns", "");
    }
}
