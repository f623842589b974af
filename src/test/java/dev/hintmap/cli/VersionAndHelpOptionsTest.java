package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.HintFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code hintmap --version} has one source for each number it prints: the release version is the
 * pom's (a filtered resource of the build), the format version the library's constant, which is
 * the version of the files it writes. Only {@code hintmap} itself shows {@code -V}.
 */
class VersionAndHelpOptionsTest {
    /** The project's version as pom.xml states it (the first {@code <version>} after the artifactId). */
    static String pomVersion() throws Exception {
        String pom = Files.readString(Cli.home().resolve("pom.xml"));
        Matcher m = Pattern.compile("<artifactId>hintmap</artifactId>\\s*<version>([^<]+)</version>").matcher(pom);
        assertTrue(m.find(), "pom.xml names the project's version");
        return m.group(1);
    }

    @Test
    void versionNamesThePomVersionAndTheFormatVersionOfTheFilesItWrites(@org.junit.jupiter.api.io.TempDir Path dir)
            throws Exception {
        String version = Cli.run("--version").expect(0).out();
        String first = version.lines().findFirst().orElseThrow();
        assertEquals("hintmap " + pomVersion() + ", file format version " + HintFiles.FORMAT_VERSION, first);
        assertEquals(pomVersion(), HintFiles.version());
        // the format version it prints is the one a file it creates carries
        Path file = dir.resolve("v.hints");
        Cli.run("create", file.toString(), "--capacity", "4").expect(0);
        String stat = Cli.run("stat", file.toString()).expect(0).out();
        assertTrue(stat.contains("hintmap version " + HintFiles.FORMAT_VERSION + ","), stat);
        assertEquals(version, Cli.run("-V").expect(0).out());
        assertTrue(version.lines().skip(1).findFirst().orElseThrow().startsWith("Java " + Runtime.version().feature()),
                version);
    }

    @Test
    void noSubcommandShowsAVersionOptionItWouldNotHonour() {
        for (String command : CompletionAndManPageTest.commands()) {
            if (command.equals("help")) {
                continue;
            }
            String help = Cli.run(command, "--help").expect(0).out();
            assertFalse(help.contains("-V"), command + " --help shows no -V:\n" + help);
            assertTrue(help.contains("-h, --help"), command + " --help shows -h:\n" + help);
            Cli.Result r = Cli.run(command, "-V").expect(ExitCode.USAGE);
            assertFalse(r.out().contains("file format version"), r.out());
        }
        assertTrue(Cli.run("stat", "x.hints", "-V").expect(ExitCode.USAGE).err().contains("Unknown option: '-V'"));
        assertTrue(Cli.run("--help").expect(0).out().contains("-V, --version"));
    }

    @Test
    void theManPagesCarryTheReleaseVersionNotADevelopmentBuild() throws Exception {
        Path man = Cli.home().resolve("target/man");
        for (String page : new String[] {"hintmap.1", "hintmap-stat.1"}) {
            String troff = Files.readString(man.resolve(page));
            assertFalse(troff.contains("development build"), page);
            assertTrue(troff.contains(pomVersion()), page + " names the version " + pomVersion());
        }
    }
}
