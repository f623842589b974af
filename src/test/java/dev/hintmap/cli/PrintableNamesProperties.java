package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.CharRange;
import net.jqwik.api.constraints.Chars;

/**
 * How the tables show a region name ({@link Table#printable}): backslashes as themselves where that
 * cannot be misread, control characters as {@code \xNN}, and always readable back to the name.
 */
class PrintableNamesProperties {
    /** The reading the Javadoc of {@link Table#printable} promises. */
    static String read(String shown) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < shown.length(); i++) {
            char c = shown.charAt(i);
            if (c == '\\' && i + 1 < shown.length() && shown.charAt(i + 1) == '\\') {
                b.append('\\');
                i++;
            } else if (c == '\\' && i + 3 < shown.length() && shown.charAt(i + 1) == 'x') {
                b.append((char) Integer.parseInt(shown.substring(i + 2, i + 4), 16));
                i += 3;
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    @Property(tries = 2000)
    void everyNameReadsBackAndShowsNoControlCharacter(
            @ForAll @Chars({'\\', 'x', 'a', '1', 'b', '\u001b', '\n', '\u007f', '\u009b', 'é'})
            @CharRange(from = '\u0000', to = '\u00ff') String name) {
        String shown = Table.printable(name);
        assertEquals(name, read(shown), shown);
        assertFalse(shown.chars().anyMatch(c -> c < 0x20 || (c >= 0x7f && c < 0xa0)), shown);
    }

    @Example
    void aBackslashShowsAsItselfUnlessItCouldBeReadAsAnEscape() {
        assertEquals("a\\b", Table.printable("a\\b"));
        assertEquals("C:\\kernels\\gemm", Table.printable("C:\\kernels\\gemm"));
        assertEquals("end\\", Table.printable("end\\"));
        assertEquals("esc\\x1b[2J", Table.printable("esc\u001b[2J"));
        assertEquals("literal\\\\x1b", Table.printable("literal\\x1b"), "the text backslash-x-1-b, not ESC");
        assertEquals("two\\\\\\b", Table.printable("two\\\\b"));
        assertEquals("a\\\\\\x1b", Table.printable("a\\\u001b"));
    }
}
