package dev.hintmap.cli;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.hintmap.HintFileException;
import dev.hintmap.HintFileInfo;
import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.RegionRecord;
import dev.hintmap.format.StoredName;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * One profile read whole for {@code merge} and {@code diff}: a hint file, or the JSON that
 * {@code dump --format json} writes (a text profile that round-trips, as llvm-profdata's text format
 * does). A JSON dump is recognised by its name ending in {@code .json} or by its first non-blank
 * byte being <code>{</code> (a hint file starts with its magic, FORMAT.md §3.1).
 *
 * <p>A JSON dump is read strictly: one object, no trailing content, no duplicate keys, a
 * {@code regions} array whose every element has {@code name}, {@code dispatch_count},
 * {@code kernel_ns_total}, {@code kernel_ns_max} and {@code bytes_total} as a record a sequence of
 * samples can produce (count at least 1, total / count &lt;= max &lt;= total), each name once. The
 * derived fields ({@code mean_kernel_ns}, {@code mean_bytes}, {@code hot}) and {@code file} and
 * {@code taken_at} are ignored. Anything else is a {@link HintFileException} of problem
 * {@code NOT_A_HINT_FILE}: the input is not a usable profile (exit 3), as a damaged hint file is.
 *
 * <p>Keys are snake_case, as {@code dump} writes them and as FORMAT.md, C and Python name the
 * fields; each is also read in the camelCase that hintmap 0.1.0's {@code dump} wrote
 * ({@code dispatchCount}, {@code hotThresholdNs}, ...), so that profiles kept from then still merge.
 * One object giving a field in both spellings is refused: which one would count is not clear.
 *
 * @param capacity the capacity the profile was recorded with
 * @param maxNameBytes the longest region name its file stores whole (a JSON dump: its {@code maxNameBytes},
 *     else the longest name, at least
 *     the default)
 * @param hotThresholdNs its hot threshold
 * @param regions its regions
 */
record ProfileInput(int capacity, int maxNameBytes, long hotThresholdNs, List<RegionRecord> regions) {
    private static final JsonMapper JSON = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    /**
     * These regions as a file of limit {@code limit}, at most this profile's, would hold them: each
     * name in its stored form there, computed from the form this profile holds
     * ({@link StoredName#atSmallerLimit}, FORMAT.md §1.1 "Across limits"), two regions that come to
     * one stored name combined as one region's records are ({@link RegionRecord#merge}). {@code diff}
     * compares two profiles at the smaller of their limits, so that a kernel is one region whether
     * the files store it whole or shortened, at whichever limits.
     */
    List<RegionRecord> regionsAtNameLimit(int limit) {
        Map<String, RegionRecord> byName = new LinkedHashMap<>();
        for (RegionRecord r : regions) {
            String stored = StoredName.atSmallerLimit(r.name(), maxNameBytes, limit);
            RegionRecord named = stored.equals(r.name()) ? r
                    : new RegionRecord(stored, r.dispatchCount(), r.kernelNsTotal(), r.kernelNsMax(), r.bytesTotal());
            byName.merge(stored, named, RegionRecord::merge);
        }
        return List.copyOf(byName.values());
    }

    /**
     * Reads {@code path}, a hint file (opened read-only by {@code files}, each region once:
     * {@link RegionsOnce}, warning on {@code err}) or a JSON dump.
     */
    static ProfileInput read(Path path, FileArgs files, String command, PrintWriter err, Consumer<Integer> progress)
            throws IOException {
        if (isJsonDump(path, files)) {
            return readJson(path, files);
        }
        List<RegionRecord> regions = new ArrayList<>();
        try (HintStore store = files.openReadOnly(path)) {
            HintFileInfo info = store.info();
            store.forEachView(v -> {
                regions.add(v.toRecord());
                progress.accept(regions.size());
            });
            return new ProfileInput(info.capacity(), info.maxNameBytes(), info.hotThresholdNs(),
                    RegionsOnce.of(regions, path, command, err));
        }
    }

    /**
     * Whether {@code path} holds a JSON dump. A path that cannot be read here (missing, a symbolic link
     * not accepted, a FIFO, another user's file) is left to the hint-file opener, which names the problem.
     */
    static boolean isJsonDump(Path path, FileArgs files) {
        if (!files.followSymlinks && Files.isSymbolicLink(path)) {
            return false;
        }
        if (path.getFileName() != null && path.getFileName().toString().endsWith(".json")) {
            return true;
        }
        // Opened as every input is (CommandFiles.openInput): never a FIFO, which would block this probe.
        try (InputStream in = CommandFiles.openInput(path, files.options())) {
            byte[] head = in.readNBytes(256);
            for (byte b : head) {
                if (b == '{') {
                    return true;
                }
                if (b != ' ' && b != '\t' && b != '\n' && b != '\r') {
                    return false;
                }
            }
            return false;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Reads a JSON dump, opened under the rules of every input ({@link CommandFiles#openInput}: no
     * symbolic link, no other user's file unless {@code files} relax that, and only a regular
     * file, refused without blocking when it is a FIFO).
     */
    static ProfileInput readJson(Path path, FileArgs files) throws IOException {
        JsonNode root;
        try (InputStream in = CommandFiles.openInput(path, files.options())) {
            root = JSON.readTree(in);
        } catch (JacksonException e) {
            JsonLocation at = e.getLocation();
            String where = at == null ? "" : " at line " + at.getLineNr() + ", column " + at.getColumnNr();
            throw bad(path, null, "not a valid JSON dump: " + plain(e.getOriginalMessage()) + where, e);
        }
        if (root == null || !root.isObject()) {
            throw bad(path, null, "not a JSON dump: expected one object as written by dump --format json");
        }
        int capacity = (int) number(path, root, "capacity", 0, HintStoreOptions.MAX_CAPACITY,
                HintStoreOptions.DEFAULT_CAPACITY);
        long threshold = number(path, root, "hot_threshold_ns", 0, Long.MAX_VALUE, HintStoreOptions.DEFAULT_HOT_THRESHOLD_NS);
        JsonNode array = root.get("regions");
        if (array == null || !array.isArray()) {
            throw bad(path, "regions", "not a JSON dump: no \"regions\" array");
        }
        List<RegionRecord> regions = new ArrayList<>(array.size());
        Set<String> seen = new HashSet<>();
        int longest = HintStoreOptions.DEFAULT_MAX_NAME_BYTES;
        for (int i = 0; i < array.size(); i++) {
            JsonNode r = array.get(i);
            String field = "regions[" + i + "]";
            if (!r.isObject() || r.get("name") == null || !r.get("name").isTextual()) {
                throw bad(path, field, "a region must be an object with a string \"name\"");
            }
            String name = r.get("name").asText();
            int utf8Bytes;
            try {
                utf8Bytes = StoredName.utf8Length(name); // the library's own name rule: non-empty, no unpaired surrogate
            } catch (IllegalArgumentException notAName) {
                throw bad(path, field + ".name", "a region name must be well-formed text of at least 1 UTF-8 byte");
            }
            if (!seen.add(name)) {
                throw bad(path, field + ".name", "region " + name + " appears twice");
            }
            long count = number(path, r, "dispatch_count", field);
            long total = number(path, r, "kernel_ns_total", field);
            long max = number(path, r, "kernel_ns_max", field);
            long bytes = number(path, r, "bytes_total", field);
            RegionRecord record = new RegionRecord(name, count, total, max, bytes);
            if (!record.isSound()) { // what HintStore.add would refuse, said with the JSON field
                throw bad(path, field, "region " + name + " cannot come from any sequence of samples:"
                        + " it needs dispatch_count >= 1 and kernel_ns_total / dispatch_count <= kernel_ns_max <= kernel_ns_total");
            }
            regions.add(record);
            longest = Math.max(longest, Math.min(utf8Bytes, HintStoreOptions.MAX_NAME_BYTES_LIMIT)); // longer: stored form
        }
        // The file's own limit when the dump says it (FORMAT.md §1.1: the stored forms depend on it). A dump
        // of a version-2 file may say less than today's minimum; its names, at most that long, fit the minimum.
        int maxNameBytes = Math.max(HintStoreOptions.MIN_NAME_BYTES,
                (int) number(path, root, "max_name_bytes", 1, HintStoreOptions.MAX_NAME_BYTES_LIMIT, longest));
        return new ProfileInput(capacity, maxNameBytes, threshold, regions);
    }

    /** Jackson's first message line without its notes on Java types and features (not the user's words). */
    static String plain(String message) {
        String line = message == null ? "" : message.lines().findFirst().orElse("");
        return line.replaceAll(" \\(start marker at \\[Source: [^;]*; (line: \\d+, column: \\d+)\\]\\)", " (opened at $1)")
                .replaceAll(" \\(bound as `[^`]*`\\)", "")
                .replaceAll(": not allowed as per `[^`]*`", "");
    }

    /**
     * The value of the field {@code key} (snake_case) of {@code node}, under that key or its
     * camelCase spelling of hintmap 0.1.0; null when absent; refused when given in both spellings.
     */
    private static JsonNode field(Path path, JsonNode node, String key, String prefix) throws HintFileException {
        String camel = camelCase(key);
        JsonNode snake = node.get(key);
        JsonNode old = camel.equals(key) ? null : node.get(camel);
        if (snake != null && old != null) {
            throw bad(path, prefix + key, "given twice, as \"" + key + "\" and as \"" + camel + "\"");
        }
        return snake != null ? snake : old;
    }

    /** {@code dispatch_count} as hintmap 0.1.0's JSON spelled it: {@code dispatchCount}. */
    static String camelCase(String snake) {
        StringBuilder b = new StringBuilder(snake.length());
        for (int i = 0; i < snake.length(); i++) {
            char c = snake.charAt(i);
            if (c == '_' && i + 1 < snake.length()) {
                b.append(Character.toUpperCase(snake.charAt(++i)));
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    /** A required non-negative integer field of a region. */
    private static long number(Path path, JsonNode region, String name, String where) throws HintFileException {
        JsonNode v = field(path, region, name, where + ".");
        if (v == null) {
            throw bad(path, where + "." + name, "a required field is missing");
        }
        return number(path, region, name, 0, Long.MAX_VALUE, 0, where + ".");
    }

    /** An optional integer field of the dump itself. */
    private static long number(Path path, JsonNode node, String name, long min, long max, long absent)
            throws HintFileException {
        return number(path, node, name, min, max, absent, "");
    }

    private static long number(Path path, JsonNode node, String name, long min, long max, long absent, String prefix)
            throws HintFileException {
        JsonNode v = field(path, node, name, prefix);
        if (v == null) {
            return absent;
        }
        if (!v.isIntegralNumber() || !v.canConvertToLong() || v.asLong() < min || v.asLong() > max) {
            throw bad(path, prefix + name, "must be an integer in [" + min + ", " + max + "], not " + v);
        }
        return v.asLong();
    }

    private static HintFileException bad(Path path, String field, String detail) {
        return bad(path, field, detail, null);
    }

    private static HintFileException bad(Path path, String field, String detail, Throwable cause) {
        return new HintFileException(path, HintFileException.Problem.NOT_A_HINT_FILE, field, detail, cause);
    }
}
