package dev.hintmap.os;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Names a process by pid and start time (§3.5), so that a token survives pid reuse, and tells
 * whether the process a token names is still running and using the file (§6.3). Linux only:
 * both read {@code /proc/<pid>/stat} (and {@link MappedFileSighting} {@code /proc/<pid>/maps}).
 */
public final class ProcessIdentity {
    static final int START_BITS = 42;
    static final long START_MASK = (1L << START_BITS) - 1;
    private static final int STATE_FIELD = 3;
    private static final int STARTTIME_FIELD = 22;

    private ProcessIdentity() {}

    /** The token of this process. */
    public static long currentToken() throws IOException {
        long pid = ProcessHandle.current().pid();
        Stat stat = readStat(pid);
        if (stat == null) {
            throw new IOException("cannot read /proc/" + pid + "/stat: hintmap writers need Linux /proc");
        }
        return token(pid, stat.startTicks);
    }

    /**
     * This process's start time in clock ticks since boot ({@code /proc/self/stat} field 22): with
     * the pid, a name no later process has (the {@code hintmap} command's temporary files).
     *
     * @throws IOException when {@code /proc} cannot be read
     */
    public static long currentStartTicks() throws IOException {
        return currentToken() & START_MASK;
    }

    /**
     * Whether process {@code pid}, started at {@code startTicks} (as {@link #currentStartTicks}
     * gave it), is still running, by §6.3's process rules: not when there is no such process, when
     * the pid now names a process started at another time, or a zombie with no thread left; yes
     * when {@code /proc} cannot tell. Without the maps rule: for files a process writes without
     * mapping them as a writer (temporary files).
     */
    public static boolean isRunning(long pid, long startTicks) {
        return pid > 0 && pid < (1L << (Long.SIZE - START_BITS)) && isAlive(token(pid, startTicks), null);
    }

    public static long token(long pid, long startTicks) {
        return (pid << START_BITS) | (startTicks & START_MASK);
    }

    public static long pidOf(long token) {
        return token >>> START_BITS;
    }

    /**
     * Whether the process named by {@code token} is running (not exited, not a zombie, pid not
     * reused) and, when {@code file} is given and can tell, maps that file (§6.3).
     */
    public static boolean isAlive(long token, MappedFileSighting file) {
        if (token == 0) {
            return false;
        }
        Stat stat;
        try {
            stat = readStat(pidOf(token));
        } catch (IOException e) {
            return true; // cannot tell: never take a lock from a process that may be alive
        }
        if (stat == null || stat.state == 'X' || (stat.startTicks & START_MASK) != (token & START_MASK)) {
            return false;
        }
        if (stat.state == 'Z') {
            // A zombie leader whose other threads still run is a live process (its main thread
            // called pthread_exit): only a zombie with no thread left has exited. Its maps file
            // reads empty, so the file rule cannot be asked.
            return threadCount(pidOf(token)) > 1;
        }
        return file == null || file.of(pidOf(token)) != MappedFileSighting.Sighting.DOES_NOT_MAP_FILE;
    }

    /**
     * Whether process {@code pid} is running by §6.3's process rules alone (no start time, no
     * maps rule): the stray-temporary check of §5 step 1, whose file names carry only a pid. A
     * zombie with no thread left has exited; a {@code /proc} file that cannot be read keeps it.
     */
    public static boolean isRunning(long pid) {
        Stat stat;
        try {
            stat = readStat(pid);
        } catch (IOException | RuntimeException e) {
            return true; // cannot tell: keep its file
        }
        if (stat == null || stat.state == 'X') {
            return false;
        }
        return stat.state != 'Z' || threadCount(pid) > 1;
    }

    /**
     * Threads of the process, from the Threads: line of /proc/<pid>/status; 0 when gone, 2 (alive)
     * when it cannot be told: unreadable, or no such line (§6.3: no lock is taken on a guess).
     */
    private static int threadCount(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"), StandardCharsets.US_ASCII)) {
                if (line.startsWith("Threads:")) {
                    return Integer.parseInt(line.substring("Threads:".length()).trim());
                }
            }
            return 2;
        } catch (NoSuchFileException e) {
            return 0;
        } catch (IOException | NumberFormatException e) {
            return 2; // cannot tell: never take a lock from a process that may be alive
        }
    }

    private record Stat(char state, long startTicks) {}

    /** Parses {@code /proc/<pid>/stat}, or returns null when there is no such process. */
    private static Stat readStat(long pid) throws IOException {
        String text;
        try {
            text = new String(Files.readAllBytes(Path.of("/proc", Long.toString(pid), "stat")), StandardCharsets.US_ASCII);
        } catch (NoSuchFileException e) {
            return null;
        }
        // Field 2 (comm) may contain spaces and parentheses: fields 3.. start after the last ')'.
        int close = text.lastIndexOf(')');
        if (close < 0) {
            throw new IOException("unexpected /proc/" + pid + "/stat: " + text);
        }
        String[] rest = text.substring(close + 1).trim().split(" +");
        int stateIndex = 0;
        int startIndex = STARTTIME_FIELD - STATE_FIELD;
        if (rest.length <= startIndex) {
            throw new IOException("unexpected /proc/" + pid + "/stat: " + text);
        }
        return new Stat(rest[stateIndex].charAt(0), Long.parseLong(rest[startIndex]));
    }
}
