package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code top --watch}'s source, refresh by refresh: the retries that TopWatchTest cannot count
 * (they happen at the view's interval) are counted here, one {@code take()} each.
 */
class FollowedFileTest {
    @TempDir
    Path dir;

    @Test
    void aMissingFileIsWaitedForAcrossRetriesAndSaidOnce() throws Exception {
        Path file = dir.resolve("later.hints");
        StringWriter err = new StringWriter();
        try (FollowedFile followed = new FollowedFile(file, new FileArgs(), new PrintWriter(err, true))) {
            for (int retry = 0; retry < 3; retry++) {
                assertNull(followed.take(), "no file yet, retry " + retry);
            }
            assertEquals("waiting for " + file + "\n", err.toString(), "said once over three retries");
            Cli.writtenByJava(file);
            assertNotNull(followed.take());
            assertTrue(followed.reopened(), "the file found counts as opened");
            Files.delete(file);
            assertNull(followed.take());
            assertNull(followed.take());
            assertEquals(("waiting for " + file + "\n").repeat(2), err.toString(), "said once more, each time it waits");
        }
    }
}
