package dev.hintmap.bench;

/** The value of {@link ChronicleStore}'s map: a Chronicle Values interface, stored off-heap in the map's file. */
public interface ChronicleHintValue {
    long getCount();

    void setCount(long value);

    long getTotal();

    void setTotal(long value);

    long getMax();

    void setMax(long value);

    long getBytes();

    void setBytes(long value);
}
