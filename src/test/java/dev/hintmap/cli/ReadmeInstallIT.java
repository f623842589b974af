package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.HintFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * README "Install the hintmap command", as written: the indented lines under that heading, read from
 * README.md itself (so the test and the document cannot drift apart), run by {@code sh -e} in the
 * repository root with an empty directory as HOME, JAVA_HOME unset and the system's {@code java}
 * (17 here) first on PATH. Then the installed command runs from {@code ~/.local/bin}, {@code man}
 * finds its page without MANPATH, and bash registers the completion from the folder the lines
 * copied it to.
 */
class ReadmeInstallIT {
    @TempDir Path home;

    record Run(int exit, String out) {}

    /** The first block of four-space indented lines after the heading, without the indent. */
    static List<String> installLines(Path readme) throws IOException {
        List<String> lines = Files.readAllLines(readme, StandardCharsets.UTF_8);
        int at = lines.indexOf("### Install the hintmap command");
        assertTrue(at >= 0, "README.md has the section 'Install the hintmap command'");
        List<String> block = new ArrayList<>();
        for (int i = at + 1; i < lines.size() && !lines.get(i).startsWith("#"); i++) {
            String line = lines.get(i);
            if (line.startsWith("    ")) {
                block.add(line.substring(4));
            } else if (!block.isEmpty()) {
                break;
            }
        }
        assertFalse(block.isEmpty(), "README.md shows the install lines as an indented block");
        return block;
    }

    private Run sh(String script, Path cwd, Map<String, String> env) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder("sh", "-ec", script).directory(cwd.toFile()).redirectErrorStream(true);
        pb.environment().remove("JAVA_HOME");
        pb.environment().remove("MANPATH");
        pb.environment().put("HOME", home.toString());
        pb.environment().put("PATH", "/usr/local/bin:/usr/bin:/bin");
        pb.environment().putAll(env);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(180, TimeUnit.SECONDS), "finished: " + script);
        return new Run(p.exitValue(), out);
    }

    @Test
    void theReadmeInstallLinesWorkOnAFreshHomeAndInstallCommandManPageAndCompletion() throws Exception {
        List<String> lines = installLines(Cli.home().resolve("README.md"));
        assertTrue(lines.stream().anyMatch(l -> l.contains("hintmap-" + HintFiles.version() + "-bin.tar.gz")),
                "the README installs this build's tarball: " + lines);
        Run install = sh(String.join("\n", lines), Cli.home(), Map.of());
        assertEquals(0, install.exit(), "the README's install lines on an empty home:\n" + lines + "\n" + install.out());

        Path local = home.resolve(".local");
        Map<String, String> loggedIn = Map.of("PATH", local.resolve("bin") + ":/usr/local/bin:/usr/bin:/bin");
        Run version = sh("hintmap --version", home, loggedIn);
        assertEquals(0, version.exit(), version.out());
        assertTrue(version.out().startsWith("hintmap " + HintFiles.version() + ", file format version "), version.out());

        Path page = local.resolve("share/man/man1/hintmap.1");
        assertTrue(Files.isRegularFile(page), page + " links to the installed page");
        assertTrue(Files.isRegularFile(local.resolve("share/man/man1/hintmap-stat.1")), "a page per command");
        Run man = sh("command -v man >/dev/null || { echo 'no man here'; exit 0; }; man -w hintmap", home, loggedIn);
        assertEquals(0, man.exit(), man.out());
        if (!man.out().strip().equals("no man here")) { // man-db is on our machines; the links are checked above anyway
            assertEquals(page.toRealPath(), Path.of(man.out().strip()).toRealPath(),
                    "man finds the page beside ~/.local/bin, no MANPATH set: " + man.out());
        }

        Path completion = local.resolve("share/bash-completion/completions/hintmap");
        Run bash = sh("bash -c '. \"$1\" && complete -p hintmap' sh " + completion, home, loggedIn);
        assertEquals(0, bash.exit(), bash.out());
        assertTrue(bash.out().contains("_complete_hintmap hintmap"), bash.out());
    }

    /**
     * A distribution without man pages (built with {@code -Dhintmap.man.skip}): the same lines install the
     * command and link no page, where a glob that matched nothing left a dangling link named {@code *.1}.
     */
    @Test
    void theReadmeInstallLinesLinkNoPageFromADistributionWithoutManPages() throws Exception {
        String dist = "hintmap-" + HintFiles.version();
        Path built = Cli.home().resolve("target").resolve(dist);
        assertTrue(Files.isDirectory(built.resolve("man/man1")), built + " is built by the package phase");
        // A checkout whose target/ holds only that distribution, its man pages removed, packed as the build packs it.
        Path checkout = Files.createDirectories(home.resolve("checkout/target"));
        ProcessBuilder pack = new ProcessBuilder("sh", "-ec", "cp -a \"$1\" \"$2\" && rm -f \"$2\"/" + dist
                + "/man/man1/*.1 && tar -C \"$2\" -czf \"$2\"/" + dist + "-bin.tar.gz " + dist + " && rm -rf \"$2\"/"
                + dist, "sh", built.toString(), checkout.toString()).redirectErrorStream(true);
        Process p = pack.start();
        String packed = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), packed);

        List<String> lines = installLines(Cli.home().resolve("README.md"));
        Run install = sh(String.join("\n", lines), checkout.getParent(), Map.of());
        assertEquals(0, install.exit(), "the README's install lines:\n" + lines + "\n" + install.out());
        Path local = home.resolve(".local");
        try (var pages = Files.list(local.resolve("share/man/man1"))) {
            assertEquals(List.of(), pages.map(Path::toString).toList(), "no page to link, no link (none dangling)");
        }
        Run version = sh("hintmap --version", home, Map.of("PATH", local.resolve("bin") + ":/usr/local/bin:/usr/bin:/bin"));
        assertEquals(0, version.exit(), version.out());
    }
}
