package dev.hintmap.testkit;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** What {@code cp --sparse=always} makes of a file: only the pages that hold a non-zero byte are written. */
public final class SparseCopy {
    private static final int PAGE = 4096;

    private SparseCopy() {}

    /** Copies {@code from} to the new file {@code to}, leaving every all-zero page a hole. */
    public static Path of(Path from, Path to) throws IOException {
        byte[] content = Files.readAllBytes(from);
        try (FileChannel out = FileChannel.open(to, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            for (int at = 0; at < content.length; at += PAGE) {
                int length = Math.min(PAGE, content.length - at);
                boolean zero = true;
                for (int i = at; i < at + length && zero; i++) {
                    zero = content[i] == 0;
                }
                if (!zero) {
                    out.write(ByteBuffer.wrap(content, at, length), at);
                }
            }
        }
        try (RandomAccessFile file = new RandomAccessFile(to.toFile(), "rw")) {
            file.setLength(content.length); // the zero tail stays a hole
        }
        return to;
    }
}
