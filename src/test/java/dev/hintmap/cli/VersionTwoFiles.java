package dev.hintmap.cli;

import dev.hintmap.format.Hm64;
import dev.hintmap.format.Layouts;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Path;

/**
 * Makes a file of format version 2 from one this build wrote: version 2 has version 3's layout and
 * fingerprint (FORMAT.md §12), so the same bytes with {@code format_version} 2 and the header
 * checksum recomputed are a version-2 file, as long as no name is in version 3's shortened form.
 */
final class VersionTwoFiles {
    private VersionTwoFiles() {}

    static Path fromCurrent(Path file) throws IOException {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.seek(Layouts.HDR_FORMAT_VERSION);
            raf.write(new byte[] {2, 0, 0, 0});
            int from = (int) Layouts.HDR_FORMAT_VERSION;
            byte[] covered = new byte[(int) (Layouts.HDR_HEADER_CHECKSUM - from)];
            raf.seek(from);
            raf.readFully(covered);
            raf.seek(Layouts.HDR_HEADER_CHECKSUM);
            raf.write(le64(Hm64.ofBytes(covered, covered.length)));
        }
        return file;
    }

    static byte[] le64(long v) {
        byte[] b = new byte[8];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (v >>> (8 * i));
        }
        return b;
    }
}
