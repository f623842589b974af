package dev.hintmap.testkit;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The native tools of {@code native-bench/} (built by this module's build before the tests run):
 * their directory comes from the system property {@code hintmap.native.build}, which the build sets.
 */
public final class NativeTools {
    private NativeTools() {}

    /** The directory holding {@code hm-bench}, {@code hm-dump}, {@code hm-replay}, ... */
    public static final Path BUILD =
            Path.of(System.getProperty("hintmap.native.build", "native-bench/build")).toAbsolutePath().normalize();

    /** The path of tool {@code name}; fails with a clear message when it was not built. */
    public static Path tool(String name) {
        Path tool = BUILD.resolve(name);
        if (!Files.isExecutable(tool)) {
            throw new IllegalStateException(tool + " is missing: build it with `make -C native-bench tools`"
                    + " (the Maven build does this itself)");
        }
        return tool;
    }
}
