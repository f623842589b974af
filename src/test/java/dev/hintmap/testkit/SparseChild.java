package dev.hintmap.testkit;

import dev.hintmap.HintFileException;
import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;

/**
 * Runs inside a private mount namespace on a full tmpfs (see {@code SparseFileTest}): each
 * command opens the hint file once and prints one line, the problem or {@code ok}, so that the
 * test sees what a real process on a full filesystem gets — and that it gets no signal.
 *
 * <ul>
 *   <li>{@code read PATH}: opens read-only and reads every region;</li>
 *   <li>{@code write PATH}: opens for writing and records one sample;</li>
 *   <li>{@code fault PATH}: opens for writing, records, prints {@code opened}, waits for a line on
 *       standard input (the test punches a hole under it meanwhile), records again.</li>
 * </ul>
 */
public final class SparseChild {
    private SparseChild() {}

    public static void main(String[] args) throws Exception {
        Path file = Path.of(args[1]);
        String result;
        try {
            result = switch (args[0]) {
                case "read" -> {
                    try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().readOnly(true))) {
                        store.forEachView(v -> { });
                        yield "ok " + store.size();
                    }
                }
                case "write" -> {
                    try (HintStore store = HintStore.open(file, HintStoreOptions.defaults())) {
                        store.record("sparse", 1_000, 1);
                        yield "ok " + store.dispatchCount("sparse");
                    }
                }
                case "fault" -> {
                    try (HintStore store = HintStore.open(file, HintStoreOptions.defaults())) {
                        store.record("sparse", 1_000, 1);
                        System.out.println("opened");
                        System.out.flush();
                        System.in.read();
                        for (int i = 0; i < 64; i++) {
                            store.record("sparse_" + i, 1_000, 1); // inserts touch every slot page
                        }
                        yield "ok " + store.size();
                    }
                }
                default -> throw new IllegalArgumentException(args[0]);
            };
        } catch (HintFileException e) {
            result = e.problem() + " " + e.getMessage();
        } catch (UncheckedIOException e) {
            result = e.getCause() instanceof HintFileException h ? "unchecked " + h.problem() + " " + h.getMessage()
                    : "unchecked " + e;
        } catch (IOException | RuntimeException | Error e) {
            result = "unexpected " + e;
        }
        System.out.println(result);
        System.out.flush();
    }
}
