package dev.hintmap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.format.NameArbitraries;
import dev.hintmap.format.StoredName;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * Every path that turns a name into UTF-8 — recording by name (the record path's encoder and the
 * stored-name rule), a {@link Region} handle, the queries by name, {@link HintStore#storedName},
 * a snapshot's lookups and a {@link RegionView}'s allocation-free compares — agrees with
 * {@code String.getBytes(UTF_8)} for every name without an unpaired surrogate, and refuses, or
 * matches nothing for, every name with one: they share one encoder ({@code format.Utf8}).
 */
class NamePathsEncodingProperties {
    @Provide
    Arbitrary<String> names() {
        return NameArbitraries.names(60);
    }

    @Property(tries = 400)
    void everyNamePathEncodesAsTheJdkAndRefusesAnUnpairedSurrogate(@ForAll("names") String name,
            @ForAll @IntRange(min = 33, max = 300) int maxNameBytes) {
        try (HintStore store = HintStore.inMemory(HintStoreOptions.defaults().capacity(4).maxNameBytes(maxNameBytes))) {
            if (name.isEmpty()) {
                assertThrows(IllegalArgumentException.class, () -> store.record(name, 1, 1));
                return;
            }
            if (!NameArbitraries.encodable(name)) {
                assertRefusedEverywhere(store, name);
                return;
            }
            byte[] utf8 = name.getBytes(StandardCharsets.UTF_8);
            String stored = store.storedName(name);
            assertEquals(StoredName.of(name, maxNameBytes), stored);
            if (utf8.length <= maxNameBytes) {
                assertEquals(name, stored);
            } else {
                assertTrue(StoredName.isShortened(stored, maxNameBytes), stored);
            }
            store.record(name, 300_000, 4096);
            store.region(new String(name)).record(200_000, 4096); // a handle, from another String of the name
            assertEquals(2, store.dispatchCount(new String(name)), "one region for the name, by every path");
            assertTrue(store.isHot(name));
            assertEquals(2, store.snapshot().recordFor(name).orElseThrow().dispatchCount());
            assertEquals(name, store.recordFor(name).orElseThrow().name(), "named as asked (its Javadoc), found by the stored form");
            byte[] storedBytes = stored.getBytes(StandardCharsets.UTF_8);
            String half = stored.substring(0, stored.offsetByCodePoints(0, stored.codePointCount(0, stored.length()) / 2));
            AtomicInteger views = new AtomicInteger();
            store.forEachView(v -> {
                views.incrementAndGet();
                byte[] bytes = new byte[v.nameLength()];
                v.nameBytes(bytes);
                assertArrayEquals(storedBytes, bytes);
                assertTrue(v.nameEquals(stored));
                assertTrue(v.nameStartsWith(half));
                assertFalse(v.nameEquals(stored + "_"));
                assertFalse(v.nameStartsWith(stored + "\u20AC"));
                assertEquals(utf8.length <= maxNameBytes, v.nameEquals(name)); // the whole name is in the file only when it fits
            });
            assertEquals(1, views.get());
        }
    }

    private static void assertRefusedEverywhere(HintStore store, String name) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> store.record(name, 1, 1));
        assertTrue(e.getMessage().contains("unpaired surrogate at index"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> store.storedName(name));
        assertThrows(IllegalArgumentException.class, () -> store.region(name));
        assertThrows(IllegalArgumentException.class, () -> store.isHot(name));
        assertThrows(IllegalArgumentException.class, () -> StoredName.utf8Length(name));
        store.record("void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8>(Params)",
                1, 1);
        store.forEachView(v -> {
            assertFalse(v.nameEquals(name), "no region name is a string with an unpaired surrogate");
            assertFalse(v.nameStartsWith(name));
        });
    }
}
