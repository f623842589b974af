/**
 * The {@code hintmap} command line tool: its commands, their output, and the files
 * and terminal it reads and writes ({@link dev.hintmap.cli.CommandFiles},
 * {@link dev.hintmap.cli.TerminalSize}, {@link dev.hintmap.cli.StreamOutput}). Compiled with the
 * library but shipped in a jar of its own; the only package that uses the tool's libraries.
 */
package dev.hintmap.cli;
