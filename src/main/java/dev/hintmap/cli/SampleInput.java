package dev.hintmap.cli;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvParser;
import dev.hintmap.HintFileException;
import dev.hintmap.format.StoredName;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The samples {@code hintmap record --samples IN} records: one per dispatch, a region name, its
 * kernel time in ns and the bytes it touched, the three arguments of {@code HintStore.record}.
 * Read whole and checked before anything is recorded, so that a bad line records nothing.
 *
 * <p>Two forms, told apart by the first character that is not blank: <code>{</code> starts JSON
 * Lines (one object per line, {@code {"name": ..., "kernel_ns": ..., "bytes_touched": ...}}),
 * anything else is CSV (RFC 4180, as {@code dump --format csv} writes it: a header line naming the
 * three columns, in any order, then one row per sample; a name holding commas or quotes is
 * quoted). Keys and columns are snake_case, as every output of the command. The text is UTF-8,
 * strictly (a line that is not is an error, as the C library refuses such a name); a name follows
 * the library's rules (not empty; longer than the file's limit: stored shortened, FORMAT.md §1.1);
 * the numbers are integers in [0, 2^63-1]. Every problem is a {@link HintFileException} of
 * problem {@code NOT_A_HINT_FILE} (exit 3: the input is not usable, as a malformed JSON profile
 * is for {@code merge}) whose message names the line.
 */
final class SampleInput {
    private SampleInput() {}

    /** One dispatch. */
    record Sample(String name, long kernelNs, long bytesTouched) {}

    /** The keys of a sample, in the CSV header's order. */
    static final List<String> KEYS = List.of("name", "kernel_ns", "bytes_touched");

    private static final JsonMapper JSON = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    /** The samples of {@code bytes}, the contents of {@code path} ({@code -}: standard input). */
    static List<Sample> read(Path path, byte[] bytes) throws HintFileException {
        List<String> lines = lines(path, bytes);
        for (String line : lines) {
            if (!line.isBlank()) {
                return line.strip().startsWith("{") ? jsonLines(path, lines) : csv(path, String.join("\n", lines));
            }
        }
        return List.of();
    }

    /** The lines of {@code bytes}, each checked to be UTF-8 on its own, so that an error names its line. */
    private static List<String> lines(Path path, byte[] bytes) throws HintFileException {
        List<String> lines = new ArrayList<>();
        int start = 0;
        for (int i = 0; i <= bytes.length; i++) {
            if (i == bytes.length || bytes[i] == '\n') {
                if (i == bytes.length && start == i && !lines.isEmpty()) {
                    break; // the final newline ends the last line; it starts none
                }
                int end = i > start && bytes[i - 1] == '\r' ? i - 1 : i;
                try {
                    lines.add(StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                            .onUnmappableCharacter(CodingErrorAction.REPORT)
                            .decode(ByteBuffer.wrap(bytes, start, end - start)).toString());
                } catch (CharacterCodingException e) {
                    throw bad(path, lines.size() + 1, "not valid UTF-8 (region names are UTF-8 text)");
                }
                start = i + 1;
            }
        }
        return lines;
    }

    private static List<Sample> jsonLines(Path path, List<String> lines) throws HintFileException {
        List<Sample> samples = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).isBlank()) {
                continue;
            }
            int line = i + 1;
            JsonNode o;
            try {
                o = JSON.readTree(lines.get(i));
            } catch (JacksonException e) {
                JsonLocation at = e.getLocation();
                throw bad(path, line, "not a JSON object on one line: " + ProfileInput.plain(e.getOriginalMessage())
                        + (at == null ? "" : " (column " + at.getColumnNr() + ")"));
            }
            if (o == null || !o.isObject()) {
                throw bad(path, line, "expected one JSON object per line, with the keys " + String.join(", ", KEYS));
            }
            Set<String> keys = new TreeSet<>();
            o.fieldNames().forEachRemaining(keys::add);
            if (!keys.equals(new TreeSet<>(KEYS))) {
                throw bad(path, line, "the keys are " + String.join(", ", keys) + "; a sample has exactly "
                        + String.join(", ", KEYS));
            }
            if (!o.get("name").isTextual()) {
                throw bad(path, line, "name must be a string, not " + o.get("name"));
            }
            samples.add(sample(path, line, o.get("name").asText(), number(path, line, "kernel_ns", o.get("kernel_ns")),
                    number(path, line, "bytes_touched", o.get("bytes_touched"))));
        }
        return samples;
    }

    private static long number(Path path, int line, String key, JsonNode v) throws HintFileException {
        if (!v.isIntegralNumber() || !v.canConvertToLong() || v.asLong() < 0) {
            throw bad(path, line, key + " must be an integer in [0, " + Long.MAX_VALUE + "], not " + v);
        }
        return v.asLong();
    }

    private static List<Sample> csv(Path path, String text) throws HintFileException {
        List<Sample> samples = new ArrayList<>();
        int line = 1;
        try (JsonParser p = new CsvMapper().getFactory().createParser(text)) {
            ((CsvParser) p).enable(CsvParser.Feature.WRAP_AS_ARRAY);
            Map<String, Integer> column = null;
            List<String> row = null;
            for (JsonToken t = p.nextToken(); t != null; t = p.nextToken()) {
                if (t == JsonToken.START_ARRAY && p.getParsingContext().getParent().inArray()) {
                    row = new ArrayList<>(KEYS.size()); // a row; the outer array holds them all
                } else if (t == JsonToken.VALUE_STRING && row != null) {
                    if (row.isEmpty()) {
                        line = p.currentTokenLocation().getLineNr(); // where the row starts: its first field
                    }
                    row.add(p.getText());
                } else if (t == JsonToken.END_ARRAY && row != null) {
                    if (row.size() == 1 && row.get(0).isBlank()) {
                        row = null; // a blank line
                        continue;
                    }
                    if (column == null) {
                        column = header(path, line, row);
                    } else if (row.size() != KEYS.size()) {
                        throw bad(path, line, row.size() + (row.size() == 1 ? " field" : " fields") + "; a sample has "
                                + KEYS.size() + " (" + String.join(",", KEYS) + "): quote a name that holds a comma");
                    } else {
                        samples.add(sample(path, line, row.get(column.get("name")),
                                number(path, line, "kernel_ns", row.get(column.get("kernel_ns"))),
                                number(path, line, "bytes_touched", row.get(column.get("bytes_touched")))));
                    }
                    row = null;
                }
            }
        } catch (HintFileException e) {
            throw e;
        } catch (JacksonException e) {
            JsonLocation at = e.getLocation();
            throw bad(path, at == null || at.getLineNr() < 1 ? line : at.getLineNr(), "not CSV: "
                    + ProfileInput.plain(e.getOriginalMessage()));
        } catch (java.io.IOException e) {
            throw new IllegalStateException("reading a String", e); // a String reader does no I/O
        }
        return samples;
    }

    /** The CSV header: the three keys, each once, in any order; the column of each. */
    private static Map<String, Integer> header(Path path, int line, List<String> row) throws HintFileException {
        Map<String, Integer> column = new java.util.HashMap<>();
        for (int i = 0; i < row.size(); i++) {
            column.put(row.get(i).strip(), i);
        }
        if (row.size() != KEYS.size() || !column.keySet().equals(Set.copyOf(KEYS))) {
            throw bad(path, line, "the first line must name the columns " + String.join(",", KEYS) + ", not "
                    + String.join(",", row));
        }
        return column;
    }

    private static long number(Path path, int line, String key, String text) throws HintFileException {
        try {
            long v = Long.parseLong(text.strip());
            if (v >= 0) {
                return v;
            }
        } catch (NumberFormatException e) {
            // said below, with the range
        }
        throw bad(path, line, key + " must be an integer in [0, " + Long.MAX_VALUE + "], not '" + text + "'");
    }

    /** A sample whose name follows the library's rule ({@link StoredName#utf8Length}). */
    private static Sample sample(Path path, int line, String name, long kernelNs, long bytes) throws HintFileException {
        try {
            StoredName.utf8Length(name);
        } catch (IllegalArgumentException e) {
            throw bad(path, line, e.getMessage());
        }
        return new Sample(name, kernelNs, bytes);
    }

    private static HintFileException bad(Path path, int line, String detail) {
        return new HintFileException(path, HintFileException.Problem.NOT_A_HINT_FILE, null, "line " + line + ": " + detail);
    }
}
