package dev.hintmap.cli;

/**
 * A command refused to do what would lose data, and said which option accepts the loss: exit
 * status {@link ExitCode#PROBLEMS}, the message on standard error.
 */
final class DataLossRefused extends RuntimeException {
    private static final long serialVersionUID = 1L;

    DataLossRefused(String message) {
        super(message, null, false, false);
    }
}
