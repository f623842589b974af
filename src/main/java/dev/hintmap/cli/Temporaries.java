package dev.hintmap.cli;

import dev.hintmap.os.NewFiles;
import dev.hintmap.os.ProcessIdentity;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The temporary files a command writes its output into before publishing it ({@link OutputFile}):
 * their names, their removal when the command is interrupted, and the removal of those that an
 * interrupted command could not remove (docs/DESIGN.md, "Temporary files of the hintmap command").
 *
 * <p><b>Names.</b> {@code .OUT.COMMAND.PID.START.HEX.tmp} beside the output {@code OUT}: the
 * writer's pid and its start time in clock ticks since boot ({@code /proc/<pid>/stat} field 22),
 * which name that process and no later one with the same pid, and 16 random hex digits
 * ({@link SecureRandom}), so that nobody can plant a file at the name in advance. The leading dot
 * keeps collectors that read {@code *.prom} from seeing it.
 *
 * <p><b>Interrupted.</b> Each temporary is registered here while it exists; SIGINT, SIGTERM and
 * SIGHUP run the JVM's shutdown hooks, and this class's hook removes every registered temporary.
 * The writing thread keeps running while hooks run, so creating a temporary and publishing it
 * happen under the same lock as the hook: once the hook has begun, no temporary is created and
 * none is published, and one the hook removed is never created again (the writer goes on filling
 * an unlinked file until the JVM halts).
 *
 * <p><b>Killed.</b> SIGKILL (or a power loss) leaves the temporary. The next command that writes an
 * output into that directory removes every temporary of this shape that this user owns whose writer
 * is no longer running — no process with that pid, or one started at another time, or a zombie
 * with no thread left (FORMAT.md §6.3's process rules) — and says how many it removed. A temporary
 * whose writer may be running is left alone; so is one of another user, and a name of another
 * shape. The library's own temporary of a hint file being created ({@code TMP.PID.HEX.tmp}, FORMAT.md
 * §5 step 2) under such a name goes with it.
 */
final class Temporaries {
    private static final SecureRandom RANDOM = new SecureRandom();
    /** A temporary's name: output, command, pid, start time, random part; then the library's own suffix, if any. */
    private static final Pattern NAME = Pattern.compile(
            "\\..+\\.[a-z]+\\.([0-9]{1,10})\\.([0-9]{1,20})\\.[0-9a-f]{16}\\.tmp(\\.[0-9]{1,10}\\.[0-9a-f]{16}\\.tmp)?");

    private static final Object LOCK = new Object();
    /** The temporaries that exist now, guarded by {@link #LOCK}. */
    private static final Set<Path> REGISTERED = new LinkedHashSet<>();
    /** Whether the shutdown hook has begun: nothing is created or published any more. Guarded by {@link #LOCK}. */
    private static boolean exiting;
    private static boolean hookAdded;

    private Temporaries() {}

    /** An action on the file system that the lock of this class serialises with the shutdown hook. */
    @FunctionalInterface
    interface FileAction<T> {
        T run() throws IOException;
    }

    /** What {@link #reclaimStale} removed: how many files and their bytes. */
    record Reclaimed(int files, long bytes) {}

    /**
     * A new temporary name beside {@code destination} for {@code command}'s output.
     *
     * @throws IOException when this process's start time cannot be read ({@code /proc})
     */
    static Path nameBeside(Path destination, String command) throws IOException {
        return destination.toAbsolutePath().resolveSibling("." + destination.getFileName() + "." + command + "."
                + ProcessHandle.current().pid() + "." + ProcessIdentity.currentStartTicks() + "."
                + HexFormat.of().toHexDigits(RANDOM.nextLong()) + ".tmp");
    }

    /**
     * Runs {@code create}, which creates the file {@code temporary}, and registers it for removal
     * if the command is interrupted; both while the shutdown hook cannot run.
     *
     * @throws IOException what {@code create} throws, or, when the command is being interrupted,
     *     an {@code IOException} saying so (nothing is created)
     */
    static <T> T create(Path temporary, FileAction<T> create) throws IOException {
        synchronized (LOCK) {
            refuseWhenExiting();
            addHookOnce();
            REGISTERED.add(temporary);
            try {
                return create.run();
            } catch (IOException | RuntimeException | Error e) {
                REGISTERED.remove(temporary); // the caller removes what create may have left
                throw e;
            }
        }
    }

    /**
     * Runs {@code publish}, which links or renames {@code temporary} into place (and whatever
     * belongs to that step, such as an in-place upgrade's backup link), while the shutdown hook
     * cannot run; then the temporary is no longer this class's to remove.
     *
     * @throws IOException what {@code publish} throws, or, when the command is being interrupted,
     *     an {@code IOException} saying so (nothing is published)
     */
    static <T> T publish(Path temporary, FileAction<T> publish) throws IOException {
        synchronized (LOCK) {
            refuseWhenExiting();
            return publish.run();
        }
    }

    /** Removes {@code temporary} if it is still there, and forgets it. */
    static void discard(Path temporary) throws IOException {
        synchronized (LOCK) {
            try {
                Files.deleteIfExists(temporary);
            } finally {
                REGISTERED.remove(temporary);
            }
        }
    }

    private static void refuseWhenExiting() throws IOException {
        if (exiting) {
            throw new IOException("interrupted: the command is exiting, and its temporary files are removed");
        }
    }

    private static void addHookOnce() throws IOException {
        if (hookAdded) {
            return;
        }
        try {
            Runtime.getRuntime().addShutdownHook(new Thread(Temporaries::removeAll, "hintmap temporaries"));
        } catch (IllegalStateException e) {
            throw new IOException("interrupted: the command is exiting", e); // the JVM is shutting down already
        }
        hookAdded = true;
    }

    /** The shutdown hook: removes every registered temporary, and keeps new ones from being made or published. */
    private static void removeAll() {
        synchronized (LOCK) {
            exiting = true;
            for (Path temporary : REGISTERED) {
                try {
                    Files.deleteIfExists(temporary);
                } catch (IOException | RuntimeException e) {
                    // best effort: the next command in this directory removes it (reclaimStale)
                }
            }
            REGISTERED.clear();
        }
    }

    /**
     * Removes, from {@code directory}, the temporaries of this shape that this user owns and whose
     * writer is no longer running (class notes). Best effort: a file that cannot be looked at or
     * removed stays.
     */
    static Reclaimed reclaimStale(Path directory) {
        List<Path> stale = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(directory,
                p -> p.getFileName().toString().startsWith(".") && p.getFileName().toString().endsWith(".tmp"))) {
            for (Path entry : entries) {
                Matcher m = NAME.matcher(entry.getFileName().toString());
                if (m.matches() && !writerMayRun(m)) {
                    stale.add(entry);
                }
            }
        } catch (IOException | RuntimeException e) {
            return new Reclaimed(0, 0);
        }
        int files = 0;
        long bytes = 0;
        for (Path entry : stale) {
            try {
                if (NewFiles.isOwnRegularFile(entry)) {
                    long size = Files.size(entry);
                    Files.delete(entry);
                    files++;
                    bytes += size;
                }
            } catch (IOException | RuntimeException e) {
                // removed meanwhile by another command, or not ours to remove
            }
        }
        return new Reclaimed(files, bytes);
    }

    private static boolean writerMayRun(Matcher name) {
        try {
            return ProcessIdentity.isRunning(Long.parseLong(name.group(1)), Long.parseLong(name.group(2)));
        } catch (NumberFormatException e) {
            return true; // a number too large for any process: not a name this class wrote, so not ours to judge
        }
    }
}
