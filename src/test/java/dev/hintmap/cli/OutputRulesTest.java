package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.RegionRecord;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Reliability round 4, findings 3, 4 and 5: one set of output rules for every command that writes
 * a file ({@link OutputFile}). {@code export -o} replaced whatever was at OUT — a hint file, one a
 * live writer recorded into (its samples went to an unlinked file) — where {@code copy --force}
 * refused; an output onto a character device or FIFO replaced it ({@code /dev/null} became a
 * regular file, as root); {@code merge b.json -o b.json --force} wrote a hint file that
 * {@code merge b.json} then refused.
 *
 * <p>Devices: as root a private character device with {@code /dev/null}'s numbers is made in the
 * test's directory ({@code mknod}), so that a regression replaces that one and not the machine's;
 * as another user {@code /dev/null} itself, which that user cannot replace (the old code then
 * failed with "permission denied"). A test detects a replacement by the file's type afterwards.
 */
class OutputRulesTest {
    static final String CUTLASS =
            "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8>(Params)";
    static final String SOFTMAX = "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float,"
            + " at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)";

    @TempDir
    Path dir;

    private final List<Process> children = new ArrayList<>();

    @AfterEach
    void killTheChildren() throws Exception {
        for (Process p : children) {
            p.destroyForcibly();
            p.waitFor();
        }
    }

    private Path hints(String name) throws Exception {
        Path file = dir.resolve(name);
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().capacity(8))) {
            store.add(new RegionRecord(CUTLASS, 3, 1_260_000, 630_000, 3 << 20));
            store.add(new RegionRecord(SOFTMAX, 2, 90_000, 50_000, 4096));
        }
        return file;
    }

    private static List<RegionRecord> regions(Path file) throws Exception {
        List<RegionRecord> regions = new ArrayList<>();
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().readOnly(true))) {
            store.snapshot().regions().forEach(regions::add);
        }
        regions.sort(java.util.Comparator.comparing(RegionRecord::name));
        return regions;
    }

    private Set<String> entries() throws IOException {
        try (Stream<Path> list = Files.list(dir)) {
            return new TreeSet<>(list.map(p -> p.getFileName().toString()).toList());
        }
    }

    private static BasicFileAttributes lstat(Path p) throws IOException {
        return Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    }

    private Path fifo(String name) throws Exception {
        Path fifo = dir.resolve(name);
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
        return fifo;
    }

    /** A character device no regression can hurt: see the class comment. */
    private Path nullDevice() throws Exception {
        if (!System.getProperty("user.name").equals("root")) {
            return Path.of("/dev/null");
        }
        Path device = dir.resolve("null");
        Process mknod = new ProcessBuilder("mknod", device.toString(), "c", "1", "3").redirectErrorStream(true).start();
        String out = new String(mknod.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, mknod.waitFor(), "root makes a private character device for the test: " + out);
        return device;
    }

    private static void assertStillACharacterDevice(Path device) throws IOException {
        BasicFileAttributes a = lstat(device);
        assertTrue(a.isOther() && !a.isRegularFile(), device + " is still a device, not replaced by a file");
        assertEquals(0, a.size(), device + " holds nothing");
    }

    /** Reads a FIFO in the background: what a collector reading a named pipe gets. */
    private static CompletableFuture<String> reader(Path fifo) {
        return CompletableFuture.supplyAsync(() -> {
            try (InputStream in = Files.newInputStream(fifo)) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
    }

    /** Lets a reader that no writer will ever come to return (the old code replaced the FIFO instead). */
    private static void release(Path fifo, CompletableFuture<String> reader) {
        if (!reader.isDone() && Files.exists(fifo, LinkOption.NOFOLLOW_LINKS)) {
            try (OutputStream unblock = Files.newOutputStream(fifo)) {
                unblock.flush();
            } catch (IOException ignored) {
                // a regular file by now: the reader already read it
            }
        }
    }

    // ---- finding 3: export replaced a hint file, one with live writers too ----

    @Test
    void exportOntoAHintFileIsRefusedWithoutForceAndTheProfileIsKept() throws Exception {
        Path profile = hints("a.hints");
        List<RegionRecord> before = regions(profile);

        Cli.Result refused = Cli.run("export", "--prometheus", profile.toString(), "-o", profile.toString())
                .expect(ExitCode.PROBLEMS);
        assertEquals(1, refused.err().lines().count(), "one line: " + refused.err());
        assertTrue(refused.err().contains(profile + " is a hint file: export would replace it with text, and its"
                + " profile would be lost; use --force"), refused.err());
        assertEquals(before, regions(profile), "the profile is untouched");
        assertEquals(Set.of("a.hints"), entries(), "no temporary left");

        Cli.run("export", "--prometheus", profile.toString(), "-o", profile.toString(), "--force").expect(ExitCode.OK);
        assertTrue(Files.readString(profile).contains("hintmap_region_dispatches{"), "replaced, as asked");
    }

    @Test
    void exportStillReplacesAMetricsFileOfItsOwnWithoutForce() throws Exception {
        Path profile = hints("a.hints");
        Path prom = Files.writeString(dir.resolve("hintmap.prom"), "# the previous run's metrics\n");
        Cli.run("export", "--prometheus", profile.toString(), "-o", prom.toString()).expect(ExitCode.OK);
        assertTrue(Files.readString(prom).contains("hintmap_region_dispatches{"), Files.readString(prom));
    }

    @Test
    void exportOntoAFileALiveWriterRecordsIntoIsRefusedEvenWithForce() throws Exception {
        Path profile = hints("a.hints");
        Path live = dir.resolve("live.hints");
        children.add(Cli.hmBench(live, 120, "w_", 4));
        Cli.awaitLiveWriters(live, Cli.HM_BENCH_WRITERS);
        Object inode = lstat(live).fileKey();

        Cli.Result refused = Cli.run("export", "--prometheus", profile.toString(), "-o", live.toString(), "--force")
                .expect(ExitCode.PROBLEMS);
        assertTrue(refused.err().contains("live writer(s) attached"), refused.err());
        assertTrue(refused.err().contains("--replace-live"), refused.err());
        assertEquals(inode, lstat(live).fileKey(), "the writers' file is still the one at the path");
        assertEquals(Cli.HM_BENCH_WRITERS, Cli.liveWriters(live).size());
        assertEquals(Set.of("a.hints", "live.hints"), entries(), "no temporary left");

        Cli.Result replaced = Cli.run("export", "--prometheus", profile.toString(), "-o", live.toString(),
                "--replace-live").expect(ExitCode.OK);
        assertTrue(replaced.err().contains("warning: replacing " + live), replaced.err());
        assertTrue(Files.readString(live).contains("hintmap_region_dispatches{"));
    }

    // ---- finding 4: an output onto a device or FIFO replaced it ----

    @Test
    void exportWritesIntoACharacterDeviceAsAStreamAndLeavesTheDevice() throws Exception {
        Path profile = hints("a.hints");
        Path device = nullDevice();
        Set<String> before = entries();
        Cli.run("export", "--prometheus", profile.toString(), "-o", device.toString()).expect(ExitCode.OK);
        assertStillACharacterDevice(device);
        assertEquals(before, entries(), "no temporary left");
    }

    @Test
    void exportWritesIntoAFifoAsAStreamAndLeavesTheFifo() throws Exception {
        Path profile = hints("a.hints");
        Path fifo = fifo("metrics.fifo");
        CompletableFuture<String> read = reader(fifo);
        try {
            Cli.run("export", "--prometheus", profile.toString(), "-o", fifo.toString()).expect(ExitCode.OK);
            String text = read.get(60, TimeUnit.SECONDS);
            assertTrue(text.contains("hintmap_region_dispatches{"), "the reader got the metrics: " + text);
            assertTrue(text.contains("cunn_SoftMaxForward"), text);
        } finally {
            release(fifo, read);
        }
        BasicFileAttributes a = lstat(fifo);
        assertTrue(a.isOther() && !a.isRegularFile(), "still a FIFO");
        assertEquals(Set.of("a.hints", "metrics.fifo"), entries(), "no temporary left");
    }

    /** A hint file is of use only as a file processes map: never streamed into, never replacing a device. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"merge", "copy", "create", "upgrade"})
    void aHintFileOutputOntoADeviceOrFifoIsRefusedAndLeavesIt(String command) throws Exception {
        Path in = hints("in.hints");
        Path v1 = dir.resolve("in.v1.hints");
        Files.copy(Path.of("src", "test", "resources", "vectors", "golden-v1.hints"), v1);
        for (Path out : List.of(nullDevice(), fifo("out.fifo"))) {
            String[] args = switch (command) {
                case "merge" -> new String[] {"merge", "-q", in.toString(), "-o", out.toString(), "--force"};
                case "copy" -> new String[] {"copy", "-q", in.toString(), out.toString(), "--force"};
                case "create" -> new String[] {"create", out.toString(), "--capacity", "8"};
                default -> new String[] {"upgrade", "-q", v1.toString(), "-o", out.toString(), "--force"};
            };
            Cli.Result r = Cli.run(args);
            assertEquals(command.equals("create") ? ExitCode.PROBLEMS : ExitCode.IO_ERROR, r.exit(), r.toString());
            assertEquals(1, r.err().lines().count(), "one line: " + r.err());
            assertTrue(r.err().contains(out.toString()), r.err());
            BasicFileAttributes a = lstat(out);
            assertTrue(a.isOther() && !a.isRegularFile(), out + " is left as it was: " + r.err());
        }
    }

    @Test
    void dashIsStandardOutputForTextAndRefusedForAHintFile() throws Exception {
        Path profile = hints("a.hints");
        Cli.Result text = Cli.run("export", "--prometheus", profile.toString(), "-o", "-").expect(ExitCode.OK);
        assertTrue(text.out().contains("hintmap_region_dispatches{"), text.out());
        assertFalse(Files.exists(Path.of("-")), "no file named -");

        Cli.Result merge = Cli.run("merge", "-q", profile.toString(), "-o", "-").expect(ExitCode.USAGE);
        assertTrue(merge.err().contains("-o -: merge writes a hint file"), merge.err());
    }

    @Test
    void aSymbolicLinkAtTheOutputIsNeitherReplacedNorWrittenThroughUnlessFollowingIsAsked() throws Exception {
        Path profile = hints("a.hints");
        Path target = Files.writeString(dir.resolve("target.prom"), "# previous\n");
        Path link = Files.createSymbolicLink(dir.resolve("link.prom"), target);

        Cli.Result refused = Cli.run("export", "--prometheus", profile.toString(), "-o", link.toString())
                .expect(ExitCode.IO_ERROR);
        assertTrue(refused.err().contains("is a symbolic link: neither replaced nor written through; use"
                + " --follow-symlinks"), refused.err());
        assertTrue(lstat(link).isSymbolicLink());
        assertEquals("# previous\n", Files.readString(target));
        Cli.run("merge", "-q", profile.toString(), "-o", link.toString(), "--force").expect(ExitCode.IO_ERROR);
        assertTrue(lstat(link).isSymbolicLink());

        Cli.run("export", "--prometheus", profile.toString(), "-o", link.toString(), "--follow-symlinks")
                .expect(ExitCode.OK);
        assertTrue(lstat(link).isSymbolicLink(), "the link stays");
        assertTrue(Files.readString(target).contains("hintmap_region_dispatches{"), "what it points to is written");

        Path fifo = fifo("metrics.fifo");
        Path toFifo = Files.createSymbolicLink(dir.resolve("stdout-like"), fifo);
        CompletableFuture<String> read = reader(fifo);
        try {
            Cli.run("export", "--prometheus", profile.toString(), "-o", toFifo.toString(), "--follow-symlinks")
                    .expect(ExitCode.OK);
            assertTrue(read.get(60, TimeUnit.SECONDS).contains("hintmap_region_dispatches{"));
        } finally {
            release(fifo, read);
        }
        assertTrue(lstat(toFifo).isSymbolicLink());
    }

    // ---- finding 5: a hint file written under a name merge then reads as JSON ----

    @Test
    void aHintFileIsNotWrittenUnderANameThatPromisesJson() throws Exception {
        Path profile = hints("a.hints");
        Path json = dir.resolve("b.json");
        Files.writeString(json, Cli.run("dump", "--format", "json", profile.toString()).expect(0).out());
        byte[] before = Files.readAllBytes(json);

        for (String[] args : List.of(
                new String[] {"merge", "-q", json.toString(), "-o", json.toString(), "--force"},
                new String[] {"merge", "-q", profile.toString(), "-o", dir.resolve("new.json").toString()},
                new String[] {"copy", "-q", profile.toString(), dir.resolve("copy.json").toString()},
                new String[] {"create", dir.resolve("empty.json").toString(), "--capacity", "8"})) {
            Cli.Result r = Cli.run(args).expect(ExitCode.USAGE);
            assertTrue(r.err().contains("read a name ending in .json as a JSON profile"), r.err());
        }
        assertArrayEquals(before, Files.readAllBytes(json), "the JSON profile is untouched");
        assertEquals(Set.of("a.hints", "b.json"), entries(), "nothing written");

        Path merged = dir.resolve("b.hints");
        Cli.run("merge", "-q", json.toString(), "-o", merged.toString()).expect(ExitCode.OK);
        Cli.run("merge", "-q", merged.toString(), "-o", dir.resolve("again.hints").toString()).expect(ExitCode.OK);
        assertEquals(regions(profile), regions(merged));
    }
}
