package dev.hintmap.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The shared vectors that the C library checks too (docs/FORMAT.md §3.4, §4). */
class HashVectorsTest {

    record Vector(long hash, String name) {}

    static List<Vector> hashVectors() throws IOException {
        List<Vector> vectors = new ArrayList<>();
        for (String line : resource("/vectors/hash.txt").split("\n")) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int tab = line.indexOf('\t');
            String name = line.substring(tab + 1);
            vectors.add(new Vector(HexFormat.fromHexDigitsToLong(line.substring(0, tab)),
                    name.equals("<empty>") ? "" : name));
        }
        return vectors;
    }

    static String resource(String path) throws IOException {
        try (InputStream in = HashVectorsTest.class.getResourceAsStream(path)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void hm64OfUtf8BytesMatchesEveryVector() throws IOException {
        List<Vector> vectors = hashVectors();
        assertTrue(vectors.size() >= 20, "vector file has " + vectors.size() + " vectors");
        for (Vector v : vectors) {
            byte[] bytes = v.name().getBytes(StandardCharsets.UTF_8);
            assertEquals(v.hash(), Hm64.ofBytes(bytes, bytes.length), () -> "hm64 of \"" + v.name() + "\"");
        }
    }

    @Test
    void layoutFingerprintDerivedFromStructLayoutsMatchesTheSharedVector() throws IOException {
        String line = resource("/vectors/layout.txt").lines()
                .filter(l -> l.startsWith("layout_fingerprint")).findFirst().orElseThrow();
        long expected = HexFormat.fromHexDigitsToLong(line.split("\t")[1].trim());
        assertEquals(expected, Layouts.fingerprint());
    }
}
