package dev.hintmap.cli;

import picocli.CommandLine.Option;

/**
 * {@code -h, --help} of every subcommand (a picocli mixin). The version option stays on the
 * {@code hintmap} command itself: picocli's standard help options would also put a {@code -V} in
 * each subcommand's synopsis, where it printed nothing.
 */
final class HelpOption {
    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help message and exit.")
    boolean help;
}
