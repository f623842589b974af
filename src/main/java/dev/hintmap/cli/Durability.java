package dev.hintmap.cli;

import dev.hintmap.os.NewFiles;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

/**
 * The two syncs that make a command's output survive a power loss once the command said it wrote
 * it: the new file's data before it is published (else the rename can reach the disk before the
 * data, and the path holds an empty or partial file), and the directory after (else the old file
 * can come back). A seam, so that a test can see both made, in that order, without a tool that
 * traces system calls.
 */
interface Durability {
    /** {@code fsync} of the new file, open as {@code channel}, before it is published. */
    void syncFile(Path file, FileChannel channel) throws IOException;

    /** {@code fsync} of the directory of {@code published}, after the name was linked or renamed there. */
    void syncDirectory(Path published);

    /** The real syncs: the library's own directory sync, as for a hint file it creates (FORMAT.md §5 step 5). */
    Durability SYSTEM = new Durability() {
        @Override
        public void syncFile(Path file, FileChannel channel) throws IOException {
            channel.force(true);
        }

        @Override
        public void syncDirectory(Path published) {
            NewFiles.syncDirectory(published);
        }
    };
}
