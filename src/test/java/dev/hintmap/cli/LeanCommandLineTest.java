package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code hintmap COMMAND ...} builds the model of that one command ({@link HintmapCli#commandLine(String[])}):
 * the same commands as the annotation lists, and the same help, name and handlers as under the full
 * command line, so the user cannot tell the two apart.
 */
class LeanCommandLineTest {
    @Test
    void theLeanCommandsAreTheAnnotationsSubcommandsBesidesCompletionAndHelp() {
        Set<String> lean = new TreeSet<>(HintmapCli.leanCommands());
        lean.add("completion");
        lean.add("help");
        assertEquals(CompletionAndManPageTest.commands(), lean);
    }

    @Test
    void eachLeanCommandIsTheSameCommandWithTheSameHelp() {
        CommandLine full = HintmapCli.commandLine();
        for (String name : HintmapCli.leanCommands()) {
            CommandLine root = HintmapCli.commandLine(new String[] {name, "--help"});
            assertEquals(Set.of(name), root.getSubcommands().keySet(), "one command under hintmap");
            CommandLine lean = root.getSubcommands().get(name);
            CommandLine expected = full.getSubcommands().get(name);
            assertSame(expected.getCommand().getClass(), lean.getCommand().getClass(), name);
            assertEquals("hintmap " + name, lean.getCommandSpec().qualifiedName());
            assertEquals(expected.getUsageMessage(CommandLine.Help.Ansi.OFF), lean.getUsageMessage(CommandLine.Help.Ansi.OFF),
                    name + " --help");
        }
        for (String[] args : new String[][] {{}, {"--help"}, {"-V"}, {"completion", "bash"}, {"help", "stat"}, {"stt"}}) {
            assertEquals(CompletionAndManPageTest.commands(), HintmapCli.commandLine(args).getSubcommands().keySet(),
                    String.join(" ", args) + " gets every command");
        }
    }

    @Test
    void aLeanCommandStillReportsUsageErrorsInItsOwnWords() {
        Cli.Result r = Cli.run("stat").expect(ExitCode.USAGE);
        assertEquals("hintmap stat: Missing required parameter: 'FILE'\ntry 'hintmap stat --help'\n", r.err());
    }
}
