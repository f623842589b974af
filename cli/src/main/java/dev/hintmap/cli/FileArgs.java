package dev.hintmap.cli;

import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import java.io.IOException;
import java.nio.file.Path;

/** How commands open hint files: readers map them read-only and never create one. */
final class FileArgs {
    private FileArgs() {}

    /** Opens an existing file read-only (an optimizer's view: nothing is claimed or written). */
    static HintStore openReadOnly(Path file) throws IOException {
        return HintStore.open(file, options().readOnly(true));
    }

    /** Opens an existing file for writing, refusing to create one. */
    static HintStore openExistingForWriting(Path file) throws IOException {
        if (!java.nio.file.Files.exists(file, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            throw new dev.hintmap.HintFileException(file, dev.hintmap.HintFileException.Problem.IO, null, "no such hint file",
                    new java.nio.file.NoSuchFileException(file.toString()));
        }
        return HintStore.open(file, options());
    }

    static HintStoreOptions options() {
        return HintStoreOptions.defaults();
    }
}
