package dev.hintmap.cli;

import dev.hintmap.HintFileException;
import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * How a command opens hint files (a picocli mixin, so every command has the same options):
 * readers map them read-only and never create one; the safety rules of docs/SECURITY.md
 * (no symbolic link at the path, no file of another user) hold unless relaxed here.
 */
final class FileArgs {
    @Option(names = "--follow-symlinks", description = "accept a symbolic link at the file's path")
    boolean followSymlinks;

    @Option(names = "--allow-foreign-owner", description = "accept a file owned by another user")
    boolean allowForeignOwner;

    @Option(names = "--group-shared",
            description = "accept another user's file of one of our groups (not writable by others); files created 0660")
    boolean groupShared;

    /** Opens an existing file read-only (an optimizer's view: nothing is claimed or written). */
    HintStore openReadOnly(Path file) throws IOException {
        return HintStore.open(file, options().readOnly(true));
    }

    /** Opens an existing file for writing, refusing to create one. */
    HintStore openExistingForWriting(Path file) throws IOException {
        if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
            throw new HintFileException(file, HintFileException.Problem.MISSING, null, "no such hint file",
                    new NoSuchFileException(file.toString()));
        }
        return HintStore.open(file, options());
    }

    HintStoreOptions options() {
        return HintStoreOptions.defaults().followSymlinks(followSymlinks).allowForeignOwner(allowForeignOwner)
                .groupShared(groupShared);
    }
}
