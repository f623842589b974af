package dev.hintmap.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * Whether two paths a command was given name one file: the one rule of {@code merge} (an input
 * named twice would count its profile twice) and {@code upgrade} ({@code -o} naming FILE itself is
 * the in-place conversion). Two existing paths are one file when they lead to the same device and
 * inode ({@link Files#isSameFile}: another spelling such as {@code ./f} or {@code d/../f}, a hard
 * link, a symbolic link to it); otherwise, when they are the same path once made absolute and
 * normalised.
 */
final class SameFile {
    private SameFile() {}

    static boolean of(Path a, Path b) {
        try {
            if (Files.exists(a) && Files.exists(b)) {
                return Files.isSameFile(a, b); // device and inode: what the kernel says, links included
            }
        } catch (IOException e) {
            // cannot tell by the files: by the paths, and opening them will report what is wrong
        }
        return a.toAbsolutePath().normalize().equals(b.toAbsolutePath().normalize());
    }

    /**
     * Whether {@code a} and {@code b} are both regular files, links not followed, with the same
     * device and inode: two hard links of one file. A symbolic link at either is never the file,
     * so a backup that is a link to the file it should keep is not taken for the file itself.
     */
    static boolean sameRegularFile(Path a, Path b) {
        try {
            BasicFileAttributes x = Files.readAttributes(a, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            BasicFileAttributes y = Files.readAttributes(b, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            return x.isRegularFile() && y.isRegularFile() && x.fileKey() != null && x.fileKey().equals(y.fileKey());
        } catch (IOException e) {
            return false;
        }
    }
}
