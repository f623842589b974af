package dev.hintmap.os;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Tells whether a process maps <em>this</em> file (FORMAT.md §6.3, last rule), by the device and
 * inode under which the file appears in {@code /proc/<pid>/maps}.
 *
 * <p>Why: a pid and its start time name a process, not a user of this file. A byte copy of a
 * live file ({@code cp}) carries lock words and writer tokens that name the original's writer,
 * which is alive but never touches the copy; a pid reused within one clock tick has the same
 * start time. Neither maps this file, so both read as dead here, and their locks are taken over
 * at once instead of stalling every writer for the wait limit.
 *
 * <p>The (device, inode) pair to look for is learnt once, lazily, from the line of
 * {@code /proc/self/maps} that contains this store's own mapping: what {@code stat} says can
 * differ from what {@code maps} prints (overlayfs maps the underlying file), while every process
 * mapping the file sees the same line. Only the slow path of a lock wait (and a listing of the
 * writers) reads a maps file; the writer-table scan at open does not use this rule (FORMAT.md
 * §6.1), and a record never reads {@code /proc}.
 *
 * <p>When a maps file cannot be read (another user's process, {@code hidepid}, a race with its
 * exit) the answer is {@link Sighting#UNKNOWN}, and the caller keeps the older rule: never take a
 * lock from a process that may be using the file.
 */
public final class MappedFileSighting {
    /** The answer for one process. */
    enum Sighting { MAPS_FILE, DOES_NOT_MAP_FILE, UNKNOWN }

    private final long mappingAddress;
    /** {@code "MAJ:MIN INODE"} as maps prints it, once learnt; null until then (a failed read is tried again). */
    private volatile String key;

    /** @param mappingAddress an address inside this process's mapping of the file */
    public MappedFileSighting(long mappingAddress) {
        this.mappingAddress = mappingAddress;
    }

    /** Whether process {@code pid} has this file mapped. */
    Sighting of(long pid) {
        String k = key();
        if (k == null) {
            return Sighting.UNKNOWN;
        }
        try (InputStream in = Files.newInputStream(Path.of("/proc", Long.toString(pid), "maps"))) {
            return new MapsReader(in).containsFile(k) ? Sighting.MAPS_FILE : Sighting.DOES_NOT_MAP_FILE;
        } catch (NoSuchFileException gone) {
            return Sighting.UNKNOWN; // exited meanwhile: /proc/<pid>/stat tells the caller
        } catch (IOException | RuntimeException e) {
            return Sighting.UNKNOWN;
        }
    }

    private String key() {
        String k = key;
        if (k != null) {
            return k;
        }
        try (InputStream in = Files.newInputStream(Path.of("/proc/self/maps"))) {
            k = new MapsReader(in).fileKeyAt(mappingAddress);
        } catch (IOException | RuntimeException e) {
            k = null; // cannot tell now (say, out of descriptors): the rule is skipped, and tried again next time
        }
        key = k;
        return k;
    }

    /**
     * A streaming reader of maps lines: {@code start-end perms offset MAJ:MIN inode [path]}
     * (proc(5)). A big process's maps can be megabytes; it is read line by line, never whole.
     */
    static final class MapsReader {
        private final InputStream in;
        private final byte[] buffer = new byte[16 * 1024];
        private int position;
        private int limit;
        private final StringBuilder line = new StringBuilder(160);

        MapsReader(InputStream in) {
            this.in = in;
        }

        /** The {@code "MAJ:MIN INODE"} of the file-backed line whose range holds {@code address}, or null. */
        String fileKeyAt(long address) throws IOException {
            while (nextLine()) {
                String[] f = fields();
                if (f == null) {
                    continue;
                }
                int dash = f[0].indexOf('-');
                long start = Long.parseUnsignedLong(f[0], 0, dash, 16);
                long end = Long.parseUnsignedLong(f[0], dash + 1, f[0].length(), 16);
                if (Long.compareUnsigned(address, start) >= 0 && Long.compareUnsigned(address, end) < 0) {
                    return "0".equals(f[4]) ? null : f[3] + " " + f[4];
                }
            }
            return null;
        }

        /**
         * Whether some line maps the file named {@code key} ({@code "MAJ:MIN INODE"}).
         *
         * @throws IOException also for a line that does not parse: a maps file this reader does
         *     not understand cannot prove that a process does not map the file
         */
        boolean containsFile(String key) throws IOException {
            while (nextLine()) {
                String[] f = fields();
                if (f == null) {
                    throw new IOException("unexpected maps line: " + line);
                }
                if (key.equals(f[3] + " " + f[4])) {
                    return true;
                }
            }
            return false;
        }

        /** The first five fields of the current line, or null when it has fewer. */
        private String[] fields() {
            String[] f = new String[5];
            int n = 0;
            int i = 0;
            int length = line.length();
            while (n < 5 && i < length) {
                while (i < length && line.charAt(i) == ' ') {
                    i++;
                }
                int begin = i;
                while (i < length && line.charAt(i) != ' ') {
                    i++;
                }
                if (i > begin) {
                    f[n++] = line.substring(begin, i);
                }
            }
            return n == 5 ? f : null;
        }

        private boolean nextLine() throws IOException {
            line.setLength(0);
            while (true) {
                if (position == limit) {
                    limit = in.read(buffer);
                    position = 0;
                    if (limit <= 0) {
                        limit = 0;
                        return line.length() > 0;
                    }
                }
                byte b = buffer[position++];
                if (b == '\n') {
                    return true;
                }
                if (line.length() < 4096) { // a path can be long; the fields we need come first
                    line.append((char) (b & 0xff));
                }
            }
        }
    }
}
