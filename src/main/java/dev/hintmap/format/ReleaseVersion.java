package dev.hintmap.format;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * The release version of this library, from the resource the build filters beside the classes
 * ({@code dev/hintmap/build.properties}). Here, below the API, so that the format's own messages
 * (Header's pointer to the upgrade command) can name it without depending on the API package.
 */
public final class ReleaseVersion {
    /** Read once, on first use. */
    public static final String VALUE = read();

    private ReleaseVersion() {}

    private static String read() {
        try (InputStream in = ReleaseVersion.class.getResourceAsStream("/dev/hintmap/build.properties")) {
            if (in == null) {
                return "unknown";
            }
            Properties p = new Properties();
            p.load(in);
            String v = p.getProperty("version", "");
            return v.isEmpty() || v.startsWith("${") ? "unknown" : v;
        } catch (IOException e) {
            return "unknown";
        }
    }
}
