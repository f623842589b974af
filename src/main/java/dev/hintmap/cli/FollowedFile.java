package dev.hintmap.cli;

import dev.hintmap.HintFileException;
import dev.hintmap.HintSnapshot;
import dev.hintmap.HintStore;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The hint file at a path, as {@code top --watch} follows it ({@link WatchScreen.Source}): each
 * snapshot is of the file at the path now. It waits for a file that does not exist yet, follows a
 * file renamed onto the path ({@link HintStore#reopenIfReplaced()}), and waits again for one that
 * was removed, saying "waiting for FILE" on standard error once each time it starts waiting. Any
 * other problem (not a hint file, damaged) ends the command as usual.
 */
final class FollowedFile implements WatchScreen.Source, AutoCloseable {
    private final Path file;
    private final FileArgs files;
    private final PrintWriter err;
    private HintStore store;
    private boolean waiting;
    /** Whether the last take() opened the file (first, again, or another one at the path). */
    private boolean reopened;

    FollowedFile(Path file, FileArgs files, PrintWriter err) {
        this.file = file;
        this.files = files;
        this.err = err;
    }

    /** A snapshot of the file at the path now, or null while there is none. */
    @Override
    public HintSnapshot take() throws IOException {
        reopened = false;
        if (store != null) {
            try {
                Optional<HintStore> now = store.reopenIfReplaced();
                if (now.isPresent()) {
                    store.close();
                    store = now.get();
                    reopened = true;
                }
            } catch (HintFileException e) {
                if (e.problem() != HintFileException.Problem.MISSING) {
                    throw e;
                }
                store.close();
                store = null;
            }
        }
        if (store == null) {
            try {
                store = files.openReadOnly(file);
                reopened = true;
            } catch (HintFileException e) {
                if (e.problem() != HintFileException.Problem.MISSING) {
                    throw e;
                }
                if (!waiting) {
                    err.println("waiting for " + file);
                    err.flush();
                    waiting = true;
                }
                return null;
            }
        }
        waiting = false;
        return store.snapshot();
    }

    @Override
    public boolean reopened() {
        return reopened;
    }

    /**
     * Ends the watch: when the last refresh found no file, that is the command's result, the
     * problem "missing" (exit 3) as for any read of a missing file.
     */
    void requirePresent() throws IOException {
        if (store == null) {
            files.openReadOnly(file).close(); // throws MISSING, with the usual message; or it just appeared
        }
    }

    @Override
    public void close() {
        if (store != null) {
            store.close();
            store = null;
        }
    }
}
