package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.hintmap.HintFileInfo;
import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code hintmap create}: a file set up before the runtime starts, with the layout asked for. */
class CreateCommandTest {
    @TempDir
    Path dir;

    @Test
    void theCreatedFileReadsBackWithTheOptionsGiven() throws Exception {
        Path file = dir.resolve("c.hints");
        Cli.Result r = Cli.run("create", file.toString(), "--capacity", "100", "--hot-threshold-ns", "5000",
                "--max-name-bytes", "40").expect(ExitCode.OK);
        assertEquals("created " + file + ": capacity 100, names up to 40 bytes, hot threshold 5000 ns\n", r.out());
        JsonNode stat = new ObjectMapper().readTree(Cli.run("stat", "--json", file.toString()).expect(0).out());
        assertEquals(100, stat.get("capacity").asInt());
        assertEquals(40, stat.get("max_name_bytes").asInt());
        assertEquals(5000, stat.get("hot_threshold_ns").asLong());
        assertEquals(0, stat.get("regions").asInt());
        assertEquals(0, stat.get("writers_attached").asInt(), "create leaves no writer attached");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        Cli.run("verify", file.toString()).expect(ExitCode.OK);
        // A runtime that opens it with its defaults gets the file's layout (an existing file's layout wins).
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults())) {
            HintFileInfo info = store.info();
            assertEquals(100, info.capacity());
            assertEquals(40, info.maxNameBytes());
            assertEquals(5000, info.hotThresholdNs());
        }
    }

    @Test
    void withoutOptionalValuesTheLibraryDefaultsApply() throws Exception {
        Path file = dir.resolve("d.hints");
        Cli.run("create", file.toString(), "--capacity", "7").expect(ExitCode.OK);
        JsonNode stat = new ObjectMapper().readTree(Cli.run("stat", "--json", file.toString()).expect(0).out());
        assertEquals(7, stat.get("capacity").asInt());
        assertEquals(HintStoreOptions.DEFAULT_MAX_NAME_BYTES, stat.get("max_name_bytes").asInt());
        assertEquals(HintStoreOptions.DEFAULT_HOT_THRESHOLD_NS, stat.get("hot_threshold_ns").asLong());
    }

    @Test
    void groupSharedCreatesTheFileForTheGroup() throws Exception {
        Path file = dir.resolve("g.hints");
        Cli.Result r = Cli.run("create", file.toString(), "--capacity", "8", "--group-shared").expect(ExitCode.OK);
        assertTrue(r.out().contains("group-shared (0660)"), r.out());
        assertEquals("rw-rw----", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
    }

    @Test
    void anExistingFileIsRefusedAndLeftAsItWas() throws Exception {
        Path hints = Cli.writtenByJava(dir.resolve("h.hints"));
        byte[] before = Files.readAllBytes(hints);
        Cli.Result r = Cli.run("create", hints.toString(), "--capacity", "8").expect(ExitCode.PROBLEMS);
        assertEquals(List.of("hintmap create: " + hints + " exists: create never replaces a file (merge or copy with"
                + " --force do, with their checks for live writers)"), r.err().lines().toList());
        assertTrue(java.util.Arrays.equals(before, Files.readAllBytes(hints)));
        Path text = Files.writeString(dir.resolve("notes.txt"), "keep me");
        Cli.run("create", text.toString(), "--capacity", "8").expect(ExitCode.PROBLEMS);
        assertEquals("keep me", Files.readString(text));
    }

    @Test
    void badValuesAreUsageErrorsAndCreateNothing() {
        Path file = dir.resolve("bad.hints");
        for (String[] args : List.of(
                new String[] {"--capacity", "0"}, new String[] {"--capacity", "-1"},
                new String[] {"--capacity", Integer.toString(HintStoreOptions.MAX_CAPACITY + 1)},
                new String[] {"--capacity", "ten"}, new String[] {},
                new String[] {"--capacity", "8", "--hot-threshold-ns", "-1"},
                new String[] {"--capacity", "8", "--max-name-bytes", "0"},
                new String[] {"--capacity", "8", "--max-name-bytes", "1"}, // issue 32 finding 2: 1..32 merged names
                new String[] {"--capacity", "8", "--max-name-bytes", "16"},
                new String[] {"--capacity", "8", "--max-name-bytes", "32"},
                new String[] {"--capacity", "8", "--max-name-bytes", Integer.toString(HintStoreOptions.MAX_NAME_BYTES_LIMIT + 1)})) {
            String[] command = new String[args.length + 2];
            command[0] = "create";
            command[1] = file.toString();
            System.arraycopy(args, 0, command, 2, args.length);
            Cli.Result r = Cli.run(command).expect(ExitCode.USAGE);
            assertEquals(2, r.err().lines().count(), "one line and where the help is:\n" + r.err());
            assertFalse(Files.exists(file), String.join(" ", command) + " created nothing");
        }
    }

    /** Issue 32 finding 2: limits 1..32 cannot hold a stored form's '~' and 32 hex digits; the refusal says the minimum. */
    @Test
    void aNameLimitBelowTheMinimumIsRefusedNamingIt() {
        Path file = dir.resolve("tiny.hints");
        Cli.Result r = Cli.run("create", file.toString(), "--capacity", "8", "--max-name-bytes", "16").expect(ExitCode.USAGE);
        assertTrue(r.err().contains("--max-name-bytes 16 is outside [33, 1024]") && r.err().contains("at least 33 bytes"),
                r.err());
        assertFalse(Files.exists(file));
        Cli.run("create", file.toString(), "--capacity", "8", "--max-name-bytes", "33").expect(ExitCode.OK);
    }
}
