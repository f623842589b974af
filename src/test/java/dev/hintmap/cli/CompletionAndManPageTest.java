package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The completion script and the man pages come from the picocli annotations: both know every
 * command. The man pages are written by the build (process-classes: {@link ManPages}).
 */
class CompletionAndManPageTest {
    /** Every subcommand of this build, from the same model both generators read. */
    static Set<String> commands() {
        return new TreeSet<>(HintmapCli.commandLine().getSubcommands().keySet());
    }

    @Test
    void theBashCompletionScriptOffersEveryCommandAndIsValidBash(@TempDir Path dir) throws Exception {
        String script = Cli.run("completion", "bash").expect(0).out();
        assertTrue(commands().size() >= 12, commands().toString());
        for (String command : commands()) {
            assertTrue(script.contains("function _picocli_hintmap_" + command + "()"),
                    "a completion function for " + command);
        }
        assertTrue(script.contains("complete -F _complete_hintmap"), "registered for the hintmap command");
        Path file = Files.writeString(dir.resolve("hintmap.bash"), script);
        Process bash = new ProcessBuilder("bash", "-n", file.toString()).redirectErrorStream(true).start();
        String out = new String(bash.getInputStream().readAllBytes());
        assertTrue(bash.waitFor(60, TimeUnit.SECONDS), "bash -n finished");
        assertEquals(0, bash.exitValue(), "bash -n: " + out);
        Cli.run("completion", "fish").expect(ExitCode.USAGE);
    }

    @Test
    void theHelpShowsEachInstallCommandOnOneLineAtAnyWidth() {
        for (int width : new int[] {80, 100, 200}) {
            picocli.CommandLine cli = HintmapCli.commandLine().getSubcommands().get("completion");
            cli.setUsageHelpWidth(width);
            String help = cli.getUsageMessage(picocli.CommandLine.Help.Ansi.OFF);
            assertTrue(help.contains("\n  hintmap completion bash > ~/.local/share/bash-completion/completions/hintmap\n"),
                    width + " columns:\n" + help);
            assertTrue(help.contains("\n  source <(hintmap completion bash)\n"), width + " columns:\n" + help);
        }
    }

    @Test
    void theBuildWritesATroffManPageNamingEveryCommand() throws Exception {
        Path man = Cli.home().resolve("target/man");
        Path page = man.resolve("hintmap.1");
        assertTrue(Files.isRegularFile(page), page + " is written by the build (process-classes)");
        String troff = Files.readString(page);
        assertTrue(troff.contains(".TH \"HINTMAP\" \"1\""), "a troff man page of section 1");
        for (String command : commands()) {
            assertTrue(troff.contains(command), "hintmap.1 names " + command);
            assertTrue(Files.isRegularFile(man.resolve("hintmap-" + command + ".1")), "a page for " + command);
        }
    }
}
