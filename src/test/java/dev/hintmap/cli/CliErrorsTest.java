package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.format.Layouts;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 12: the same exit status for the same kind of input in every command, errors as one line
 * in the words of the CLI's own options, and options that would change nothing refused.
 */
class CliErrorsTest {
    @TempDir
    Path dir;

    /** Every command that reads a hint file, as arguments with FILE where the file goes. */
    static final List<String> COMMANDS_READING_A_FILE = List.of(
            "stat FILE", "stat --json FILE", "top FILE", "top --watch --iterations 1 FILE", "dump FILE",
            "merge FILE -o OUT", "copy FILE OUT", "decay --factor 0.5 FILE", "verify FILE",
            "export --prometheus FILE", "diff FILE FILE");

    /** The four inputs of the issue that are no usable hint file. */
    enum Unusable {
        DIRECTORY, TEXT_FILE, RANDOM_BYTES, BAD_HEADER_CHECKSUM;

        Path make(Path dir) throws Exception {
            Path path = dir.resolve(name().toLowerCase() + ".hints");
            switch (this) {
                case DIRECTORY -> Files.createDirectory(path);
                case TEXT_FILE -> Files.writeString(path, "capacity=12\n".repeat(400));
                case RANDOM_BYTES -> {
                    byte[] bytes = new byte[16_384];
                    new Random(12).nextBytes(bytes); // seeded: the same bytes every run
                    Files.write(path, bytes);
                }
                case BAD_HEADER_CHECKSUM -> {
                    Cli.writtenByJava(path);
                    // A header field changed without its checksum: what a stray write or bit flip leaves.
                    try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
                            Arena arena = Arena.ofConfined()) {
                        ch.map(FileChannel.MapMode.READ_WRITE, 0, ch.size(), arena).set(Layouts.U32, Layouts.HDR_CAPACITY, 13);
                    }
                }
            }
            return path;
        }
    }

    static Stream<Arguments> unusableInputsTimesCommands() {
        List<Arguments> cases = new ArrayList<>();
        for (Unusable input : Unusable.values()) {
            for (String command : COMMANDS_READING_A_FILE) {
                cases.add(Arguments.of(input, command));
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("unusableInputsTimesCommands")
    void aFileThatIsNoUsableHintFileIsExitThreeForEveryCommand(Unusable input, String command) throws Exception {
        Path file = input.make(dir);
        byte[] before = Files.isRegularFile(file) ? Files.readAllBytes(file) : null;
        Path out = dir.resolve("out.hints");
        Cli.Result r = Cli.run(args(command, file, out)).expect(ExitCode.BAD_FILE);
        assertOneLine(r, "hintmap " + command.split(" ")[0] + ": ");
        assertTrue(r.err().contains(file.toString()), r.err());
        if (before != null) {
            assertArrayEquals(before, Files.readAllBytes(file), "never modified");
        }
        assertFalse(Files.exists(out), "no output written");
    }

    @Test
    void aSymbolicLinkIsRefusedWithTheOptionToPassForEveryCommand() throws Exception {
        Path link = Files.createSymbolicLink(dir.resolve("link.hints"), Cli.writtenByJava(dir.resolve("real.hints")));
        for (String command : COMMANDS_READING_A_FILE) {
            Cli.Result r = Cli.run(args(command, link, dir.resolve("out.hints"))).expect(ExitCode.BAD_FILE);
            assertOneLine(r, "hintmap ");
            assertTrue(r.err().contains("use --follow-symlinks to follow it"), command + ": " + r.err());
            assertFalse(r.err().matches("(?s).*[a-z]+\\(true\\).*"), "no Java setter named: " + r.err());
        }
    }

    @Test
    void anotherUsersFileIsRefusedNamingGroupSharedAndAllowForeignOwner() throws Exception {
        Path file = Cli.writtenByJava(dir.resolve("theirs.hints"));
        Files.setAttribute(file, "unix:uid", 65534); // nobody; the tests run as root (see StatAndErrorsTest)
        for (String command : COMMANDS_READING_A_FILE) {
            Cli.Result r = Cli.run(args(command, file, dir.resolve("out.hints"))).expect(ExitCode.BAD_FILE);
            assertOneLine(r, "hintmap ");
            assertTrue(r.err().contains("use --group-shared to share it within a group, or --allow-foreign-owner"),
                    command + ": " + r.err());
            assertFalse(r.err().contains("(true)"), r.err());
        }
    }

    @Test
    void mergeOntoADirectoryIsOneLineNamingTheDirectory() throws Exception {
        Path in = Cli.writtenByJava(dir.resolve("in.hints"));
        Path target = Files.createDirectory(dir.resolve("target"));
        Cli.Result r = Cli.run("merge", in.toString(), "-o", target.toString(), "--force").expect(ExitCode.IO_ERROR);
        assertOneLine(r, "hintmap merge: " + target + ": is a directory");
        assertNoTemporaryFileNamed(r);
    }

    @Test
    void anOutputInAMissingDirectoryIsOneLineNamingTheDirectory() throws Exception {
        Path in = Cli.writtenByJava(dir.resolve("in.hints"));
        Path nodir = dir.resolve("nodir");
        for (String[] args : List.of(
                new String[] {"merge", in.toString(), "-o", nodir.resolve("x.hints").toString()},
                new String[] {"copy", in.toString(), nodir.resolve("x.hints").toString()},
                new String[] {"export", "--prometheus", in.toString(), "-o", nodir.resolve("h.prom").toString()},
                new String[] {"create", nodir.resolve("x.hints").toString(), "--capacity", "8"})) {
            Cli.Result r = Cli.run(args).expect(ExitCode.IO_ERROR);
            assertOneLine(r, "hintmap " + args[0] + ": " + nodir + ": no such directory");
            assertNoTemporaryFileNamed(r);
        }
        assertFalse(Files.exists(nodir));
    }

    @Test
    void exportOntoADirectoryIsOneLine() throws Exception {
        Path in = Cli.writtenByJava(dir.resolve("in.hints"));
        Path target = Files.createDirectory(dir.resolve("h.prom"));
        Cli.Result r = Cli.run("export", "--prometheus", in.toString(), "-o", target.toString()).expect(ExitCode.IO_ERROR);
        assertOneLine(r, "hintmap export: " + target + ": is a directory");
    }

    @Test
    void aUsageErrorIsOneLineAndWhereTheHelpIsNotTheWholeUsage() throws Exception {
        Path file = Cli.writtenByJava(dir.resolve("u.hints"));
        Cli.Result r = Cli.run("stat", "--bogus", file.toString()).expect(ExitCode.USAGE);
        assertEquals(List.of("hintmap stat: Unknown option: '--bogus'", "try 'hintmap stat --help'"), r.err().lines().toList());
        Cli.Result checked = Cli.run("top", "-n", "-1", file.toString()).expect(ExitCode.USAGE);
        assertEquals(List.of("hintmap top: --lines must be >= 0, not -1", "try 'hintmap top --help'"),
                checked.err().lines().toList());
        assertFalse(Cli.run().expect(ExitCode.USAGE).err().contains("Usage:"));
    }

    @Test
    void aMisspelledOptionOrCommandGetsTheNearestNames() throws Exception {
        Path file = Cli.writtenByJava(dir.resolve("d.hints"));
        Cli.Result option = Cli.run("stat", "--jsn", file.toString()).expect(ExitCode.USAGE);
        assertEquals(List.of("hintmap stat: Unknown option: '--jsn'", "did you mean --json?", "try 'hintmap stat --help'"),
                option.err().lines().toList());
        Cli.Result command = Cli.run("stt", file.toString()).expect(ExitCode.USAGE);
        assertTrue(command.err().lines().anyMatch(l -> l.startsWith("did you mean ") && l.contains("stat")), command.err());
        Cli.Result top = Cli.run("top", "--itrations", "3", "--watch", file.toString()).expect(ExitCode.USAGE);
        assertTrue(top.err().contains("did you mean --iterations?"), top.err());
    }

    @Test
    void topRefusesWatchOptionsWithoutWatch() throws Exception {
        Path file = Cli.writtenByJava(dir.resolve("t.hints"));
        for (String option : new String[] {"--interval=500", "--iterations=3"}) {
            Cli.Result r = Cli.run("top", option, file.toString()).expect(ExitCode.USAGE);
            assertTrue(r.err().startsWith("hintmap top: " + option.split("=")[0] + " applies to --watch only"), r.err());
            assertEquals("", r.out());
        }
        Cli.run("top", "--watch", "--interval=50", "--iterations=1", file.toString()).expect(ExitCode.OK);
    }

    @Test
    void mergeRefusesCapacityZeroAndAnInputGivenTwice() throws Exception {
        Path a = Cli.writtenByJava(dir.resolve("a.hints"));
        Path out = dir.resolve("out.hints");
        Cli.Result zero = Cli.run("merge", a.toString(), "-o", out.toString(), "--capacity", "0").expect(ExitCode.USAGE);
        assertTrue(zero.err().contains("--capacity 0 is outside [1, "), zero.err());
        Cli.Result twice = Cli.run("merge", a.toString(), a.toString(), "-o", out.toString()).expect(ExitCode.USAGE);
        assertTrue(twice.err().contains("input " + a + " is given twice"), twice.err());
        // Another spelling of the same path counts twice just the same.
        Path other = dir.resolve("sub/../a.hints");
        Files.createDirectory(dir.resolve("sub"));
        Cli.Result spelled = Cli.run("merge", a.toString(), other.toString(), "-o", out.toString()).expect(ExitCode.USAGE);
        assertTrue(spelled.err().contains("is given twice (as " + a + ")"), spelled.err());
        assertFalse(Files.exists(out), "nothing written");
        Cli.run("merge", a.toString(), "-o", out.toString(), "--capacity", "1").expect(ExitCode.OK);
    }

    private static void assertOneLine(Cli.Result r, String prefix) {
        List<String> lines = r.err().lines().toList();
        assertEquals(1, lines.size(), "one line on stderr:\n" + r.err());
        assertTrue(lines.get(0).startsWith(prefix), "starts with " + prefix + ":\n" + r.err());
        assertFalse(lines.get(0).contains("Exception") || lines.get(0).contains("\tat "), "no raw exception: " + r.err());
    }

    private static void assertNoTemporaryFileNamed(Cli.Result r) {
        assertFalse(r.err().contains(".tmp"), "the error names the output, not a temporary file: " + r.err());
    }

    private static String[] args(String command, Path file, Path out) {
        return command.replace("FILE", file.toString()).replace("OUT", out.toString()).split(" ");
    }
}
