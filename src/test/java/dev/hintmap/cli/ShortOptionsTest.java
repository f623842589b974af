package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A short option has one meaning across the commands: {@code -f} is {@code --force}, never {@code --format}. */
class ShortOptionsTest {
    @TempDir
    Path dir;

    @Test
    void dashFIsForceInCopy() throws Exception {
        Path src = Cli.writtenByJava(dir.resolve("s.hints"));
        Path dst = Files.writeString(dir.resolve("exists.hints"), "precious");
        Cli.run("copy", "-q", "-f", src.toString(), dst.toString()).expect(0);
        assertNotEquals("precious", Files.readString(dst, StandardCharsets.ISO_8859_1));
        Cli.run("stat", dst.toString()).expect(0);
    }

    @Test
    void dumpTakesItsFormatOnlyAsTheLongOption() throws Exception {
        Path file = Cli.writtenByJava(dir.resolve("d.hints"));
        Cli.Result r = Cli.run("dump", "-f", "json", file.toString()).expect(ExitCode.USAGE);
        assertTrue(r.err().contains("-f"), r.err());
        assertEquals('{', Cli.run("dump", "--format", "json", file.toString()).expect(0).out().charAt(0));
    }
}
