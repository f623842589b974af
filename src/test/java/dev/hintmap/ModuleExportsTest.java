package dev.hintmap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleDescriptor.Requires;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import dev.hintmap.testkit.FileChild;

/**
 * The module boundary and the library's dependencies (docs/DESIGN.md §1): only the API is exported,
 * the module requires nothing beyond {@code java.base}, and the command line tool's libraries are
 * reached from {@code dev.hintmap.cli} alone (which is compiled with the library but ships in its own
 * jar: {@code LibraryJarIT}).
 */
class ModuleExportsTest {
    /** The packages of the command line tool's optional libraries (and the tool itself). */
    private static final List<String> CLI_ONLY = List.of(
            "dev.hintmap.cli", "picocli", "com.fasterxml.", "org.jline.", "io.prometheus.");

    private static Path libraryClasses() throws Exception {
        return Path.of(HintStore.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    private static ModuleDescriptor descriptor() throws Exception {
        try (InputStream in = Files.newInputStream(libraryClasses().resolve("module-info.class"))) {
            return ModuleDescriptor.read(in);
        }
    }

    @Test
    void moduleExportsOnlyTheApiPackage() throws Exception {
        ModuleDescriptor descriptor = descriptor();
        assertEquals("dev.hintmap", descriptor.name());
        assertEquals(Set.of("dev.hintmap"),
                descriptor.exports().stream().map(ModuleDescriptor.Exports::source).collect(Collectors.toSet()));
        assertTrue(descriptor.opens().isEmpty(), "opens " + descriptor.opens());
    }

    @Test
    void theLibraryRequiresNoModuleButJavaBase() throws Exception {
        assertEquals(Set.of("java.base"), descriptor().requires().stream().map(Requires::name).collect(Collectors.toSet()),
                "not even the tool's libraries, statically: a consumer's module path sees what the library needs");
    }

    @Test
    void onlyTheCliPackageUsesTheCliLibraries() throws Exception {
        Path jdeps = Path.of(System.getProperty("java.home"), "bin", "jdeps");
        Process process = new ProcessBuilder(jdeps.toString(), "-verbose:package", "--ignore-missing-deps",
                "--multi-release", Integer.toString(Runtime.version().feature()), libraryClasses().toString())
                .redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(120, TimeUnit.SECONDS), "jdeps did not finish");
        assertEquals(0, process.exitValue(), out);
        List<String> edges = new ArrayList<>();
        List<String> offending = new ArrayList<>();
        for (String line : out.split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length < 3 || !f[1].equals("->") || !f[0].startsWith("dev.hintmap")) {
                continue;
            }
            edges.add(f[0] + " -> " + f[2]);
            if (!f[0].equals("dev.hintmap.cli") && CLI_ONLY.stream().anyMatch(f[2]::startsWith)) {
                offending.add(f[0] + " -> " + f[2]);
            }
        }
        assertTrue(edges.contains("dev.hintmap.cli -> picocli"), "jdeps output not understood:\n" + out);
        assertEquals(List.of(), offending);
    }

    @Test
    void aJvmWithOnlyTheLibraryOnItsClassPathRecordsAndReads(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("alone.hints");
        Path harness = Path.of(FileChild.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Process child = new ProcessBuilder(ProcessHandle.current().info().command().orElseThrow(),
                "--enable-native-access=ALL-UNNAMED", "-Xmx128m",
                "-cp", libraryClasses() + java.io.File.pathSeparator + harness,
                FileChild.class.getName(), "record", file.toString(), "3", "alone_a", "alone_b")
                .redirectErrorStream(true).start();
        String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(child.waitFor(120, TimeUnit.SECONDS), "child did not finish");
        assertEquals(0, child.exitValue(), out);
        assertEquals("recorded", out.strip());
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().readOnly(true))) {
            assertEquals(3, store.dispatchCount("alone_a"));
            assertEquals(3, store.dispatchCount("alone_b"));
        }
    }
}
