package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.hintmap.HintFileInfo;
import dev.hintmap.HintFiles;
import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** {@code stat}, {@code --help} of every command, and the exit statuses of bad input. */
class StatAndErrorsTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(Cli.Writer.class)
    void statShowsHeaderLayoutCountersAndWriters(Cli.Writer writer) throws Exception {
        Path file = writer.write(dir.resolve("s.hints"));
        String out = Cli.run("stat", file.toString()).expect(ExitCode.OK).out();
        assertTrue(out.contains("format           hintmap version 3, layout fingerprint 0x"), out);
        assertTrue(out.contains("capacity         12 regions, names up to 64 bytes"), out);
        assertTrue(out.contains("regions          12 used (100.0% of capacity), 5 slow (mean >= hot threshold), 12 slots ever used"), out);
        assertTrue(out.contains("generation       15 structural changes"), out); // 15 names inserted, 3 of them evicting
        assertTrue(out.contains("evictions        3"), out);
        assertTrue(out.contains("writers          0 attached now, 1 attachments since creation"), out);
        assertTrue(out.contains("hot threshold    100.0 µs mean kernel time (100,000 ns)"), out);
        assertTrue(out.matches("(?s).*created          \\d{4}-\\d\\d-\\d\\dT.*Z \\(\\d+ s ago\\).*"), out);
    }

    @Test
    void statJsonHasTheSameFactsAsTheApi() throws Exception {
        Path file = dir.resolve("j.hints");
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().capacity(5).hotThresholdNs(50))) {
            store.record("a", 100, 1);
            store.record("b", 10, 1);
            HintFileInfo info = store.info();
            JsonNode json = new ObjectMapper().readTree(Cli.run("stat", "--json", file.toString()).expect(0).out());
            assertEquals(file.toString(), json.get("file").asText());
            assertEquals(HintFiles.FORMAT_VERSION, json.get("format_version").asInt());
            assertEquals(5, json.get("capacity").asInt());
            assertEquals(50, json.get("hot_threshold_ns").asLong());
            assertEquals(2, json.get("regions").asInt());
            assertEquals(1, json.get("hot_regions").asInt());
            assertEquals(2, json.get("generation").asLong());
            assertEquals(info.created().toString(), json.get("created").asText());
            assertEquals(Files.size(file), json.get("file_bytes").asLong());
            assertEquals(1, json.get("writers").size(), "this process is attached as a writer");
            assertEquals(ProcessHandle.current().pid(), json.get("writers").get(0).get("pid").asLong());
            assertTrue(json.get("writers").get(0).get("alive").asBoolean());
        }
    }

    /**
     * Issue 12: a writer killed with SIGKILL leaves its writer-table entry behind; stat, its JSON
     * and the Prometheus export count it as attached no longer, and stat lists it as not running.
     */
    @Test
    void aWriterKilledWithSigkillIsNoLongerCountedAsAttached() throws Exception {
        Path file = Cli.writtenByJava(dir.resolve("k.hints"));
        String region;
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().readOnly(true))) {
            region = store.snapshot().regions().get(0).name();
        }
        Process writer = Cli.javaChild(LockHolder.class, file.toString(), region);
        try {
            String first = new java.io.BufferedReader(new java.io.InputStreamReader(writer.getInputStream())).readLine();
            assertTrue(first != null && first.startsWith("holding "), "the child writer is attached: " + first);
            String alive = Cli.run("stat", file.toString()).expect(ExitCode.OK).out();
            assertTrue(alive.contains("writers          1 attached now, 2 attachments since creation\n"), alive);
            assertEquals(1, new ObjectMapper().readTree(Cli.run("stat", "--json", file.toString()).expect(0).out())
                    .get("writers_attached").asInt());
            Cli.signal(writer, "KILL");
            assertTrue(writer.waitFor(60, java.util.concurrent.TimeUnit.SECONDS));
        } finally {
            writer.destroyForcibly();
            writer.waitFor();
        }
        String out = Cli.run("stat", file.toString()).expect(ExitCode.OK).out();
        assertTrue(out.contains("writers          0 attached now, 2 attachments since creation,"
                + " 1 entry left by processes no longer running\n"), out);
        assertTrue(out.contains("pid " + writer.pid()) && out.contains("no longer running"), out);
        JsonNode json = new ObjectMapper().readTree(Cli.run("stat", "--json", file.toString()).expect(0).out());
        assertEquals(0, json.get("writers_attached").asInt());
        assertEquals(1, json.get("writers").size(), "the dead entry is still listed");
        assertFalse(json.get("writers").get(0).get("alive").asBoolean());
        String prom = Cli.run("export", "--prometheus", file.toString()).expect(0).out();
        assertEquals(0.0, PrometheusTextParser.parse(prom).get("hintmap_writers").samples().get(0).value(), prom);
    }

    /** A hint file with holes: the header page and the last byte written, as cp --sparse=always leaves it. */
    private Path sparseHintFile(String name) throws Exception {
        Path file = dir.resolve("dense-" + name);
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults())) {
            store.record("a", 100, 1);
        }
        Path sparse = dir.resolve(name);
        byte[] content = Files.readAllBytes(file);
        try (var out = java.nio.channels.FileChannel.open(sparse, java.nio.file.StandardOpenOption.CREATE_NEW,
                java.nio.file.StandardOpenOption.WRITE)) {
            out.write(java.nio.ByteBuffer.wrap(content, 0, 4096), 0);
            out.write(java.nio.ByteBuffer.wrap(content, content.length - 1, 1), content.length - 1);
        }
        return sparse;
    }

    /** Reliability round 2: a sparse copy made stat die of an uncaught InternalError (exit 1). */
    @Test
    void statOfASparseCopyIsAnUnusableFileNotACrash() throws Exception {
        Cli.Result result = Cli.run("stat", sparseHintFile("sparse.hints").toString()).expect(ExitCode.BAD_FILE);
        assertTrue(result.err().contains("unallocated ranges"), result.err());
    }

    /** A reader cannot open a file with holes, so it cannot tell whether writers are attached: merge refuses. */
    @Test
    void mergeOntoAHintFileItCannotInspectNeedsReplaceLive() throws Exception {
        Path out = sparseHintFile("out.hints");
        Path in = dir.resolve("in.hints");
        try (HintStore store = HintStore.open(in, HintStoreOptions.defaults())) {
            store.record("b", 100, 1);
        }
        Cli.Result refused = Cli.run("merge", in.toString(), "-o", out.toString(), "--force").expect(ExitCode.PROBLEMS);
        assertTrue(refused.err().contains("cannot tell whether writers are attached") && refused.err().contains("--replace-live"),
                refused.err());
        Cli.run("merge", in.toString(), "-o", out.toString(), "--force", "--replace-live").expect(ExitCode.OK);
    }

    @Test
    void helpListsEveryCommandAndEachCommandHasHelp() {
        String help = Cli.run("--help").expect(ExitCode.OK).out();
        for (String command : new String[] {"stat", "top", "dump", "merge", "copy", "create", "record", "decay", "verify", "export", "diff", "demo",
                "completion"}) {
            assertTrue(help.contains("  " + command + " "), command + " in\n" + help);
            String own = Cli.run(command, "--help").expect(ExitCode.OK).out();
            assertTrue(own.startsWith("Usage: hintmap " + command), own);
        }
        assertTrue(help.contains("Exit status:"), help);
    }

    @Test
    void aMissingFileIsExitThreeWithTheReason() {
        Path missing = dir.resolve("missing.hints");
        for (String command : new String[] {"stat", "top", "dump", "export --prometheus", "decay --factor 0.5"}) {
            String[] args = (command + " " + missing).split(" ");
            Cli.Result r = Cli.run(args).expect(ExitCode.BAD_FILE);
            assertTrue(r.err().contains(missing.toString()) && r.err().contains("no such hint file"), r.err());
            assertTrue(Files.notExists(missing), command + " must not create the file");
        }
    }

    @Test
    void aFileThatIsNotAHintFileIsExitThree() throws Exception {
        Path text = Files.writeString(dir.resolve("notes.txt"), "x".repeat(5000));
        Cli.Result r = Cli.run("stat", text.toString()).expect(ExitCode.BAD_FILE);
        assertTrue(r.err().contains("not a hint file"), r.err());
        assertEquals("x".repeat(5000), Files.readString(text), "never modified");
    }

    @Test
    void aSymbolicLinkAtThePathIsRefusedUnlessFollowingIsAsked() throws Exception {
        Path file = Cli.writtenByJava(dir.resolve("real.hints"));
        Path link = Files.createSymbolicLink(dir.resolve("link.hints"), file);
        Cli.Result refused = Cli.run("stat", link.toString()).expect(ExitCode.BAD_FILE);
        assertTrue(refused.err().contains("symbolic link"), refused.err());
        Cli.run("stat", "--follow-symlinks", link.toString()).expect(ExitCode.OK);
        Cli.run("verify", "--follow-symlinks", link.toString()).expect(ExitCode.OK);
    }

    @Test
    void anotherUsersFileIsRefusedUnlessAllowed() throws Exception {
        Path file = Cli.writtenByJava(dir.resolve("theirs.hints"));
        // 65534 is nobody: the tests run as root, which may give a file away (as the core's FileSecurityTest does)
        Files.setAttribute(file, "unix:uid", 65534);
        Cli.Result refused = Cli.run("dump", file.toString()).expect(ExitCode.BAD_FILE);
        assertTrue(refused.err().contains("65534"), refused.err());
        Cli.run("dump", "--allow-foreign-owner", file.toString()).expect(ExitCode.OK);
        Cli.run("decay", "--allow-foreign-owner", "--factor", "0.5", file.toString()).expect(ExitCode.OK);
    }

    @Test
    void badUsageIsExitTwo() throws Exception {
        Path file = Cli.writtenByJava(dir.resolve("u.hints"));
        Cli.run("nonsense").expect(ExitCode.USAGE);
        Cli.run().expect(ExitCode.USAGE);
        Cli.run("stat").expect(ExitCode.USAGE);
        Cli.run("top", "--by", "speed", file.toString()).expect(ExitCode.USAGE);
        Cli.run("top", "-n", "-1", file.toString()).expect(ExitCode.USAGE);
        Cli.run("top", "--watch", "--interval", "1", file.toString()).expect(ExitCode.USAGE);
        Cli.run("dump", "--format", "xml", file.toString()).expect(ExitCode.USAGE);
        Cli.run("decay", "--factor", "1.5", file.toString()).expect(ExitCode.USAGE);
        Cli.run("decay", "--factor", "0", file.toString()).expect(ExitCode.USAGE);
        Cli.run("decay", file.toString()).expect(ExitCode.USAGE);
        Cli.run("export", "--top", "-1", file.toString()).expect(ExitCode.USAGE);
        Cli.run("demo", "--seconds", "0").expect(ExitCode.USAGE);
    }
}
