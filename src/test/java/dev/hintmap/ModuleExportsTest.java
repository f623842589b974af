package dev.hintmap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.testkit.FileChild;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleDescriptor.Requires;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The module boundary and the library's dependencies (docs/DESIGN.md §1): only the API is exported,
 * the module requires nothing beyond {@code java.base}, and the command line tool's libraries are
 * reached from {@code dev.hintmap.cli} alone (which is compiled with the library but ships in its own
 * jar: {@code LibraryJarIT}). Inside, each package has one job, said in its {@code package-info.java},
 * and the packages are layered: the format, the eviction policy and the operating system beneath the
 * protocol, the command line tool above everything.
 */
class ModuleExportsTest {
    /** The packages of the command line tool's optional libraries (and the tool itself). */
    private static final List<String> CLI_ONLY = List.of(
            "dev.hintmap.cli", "picocli", "com.fasterxml.", "org.jline.", "io.prometheus.");

    /** The library's sources, read from the project directory the tests run in. */
    private static final Path MAIN_SOURCES = Path.of("src", "main", "java");

    /**
     * What each package of {@code src/main/java} must not use: a package of this library named in
     * an import or a fully qualified name. The format knows no protocol, system call or command; the
     * eviction policy knows only the format; the operating system layer knows no format protocol and
     * no command; the protocol and the API know no command.
     */
    private static final Map<String, Set<String>> MUST_NOT_USE = Map.of(
            "dev.hintmap.format", Set.of("dev.hintmap.store", "dev.hintmap.os", "dev.hintmap.eviction", "dev.hintmap.cli"),
            "dev.hintmap.eviction", Set.of("dev.hintmap.store", "dev.hintmap.os", "dev.hintmap.cli"),
            "dev.hintmap.os", Set.of("dev.hintmap.store", "dev.hintmap.eviction", "dev.hintmap.cli"),
            "dev.hintmap.store", Set.of("dev.hintmap.cli"),
            "dev.hintmap", Set.of("dev.hintmap.cli", "dev.hintmap.os", "dev.hintmap.eviction"));

    /** {@code dev.hintmap.x} of an import or a qualified name (the class is the first capitalised part). */
    private static final Pattern USE = Pattern.compile("\\b(dev\\.hintmap(?:\\.[a-z]\\w*)*)\\.[A-Z]");

    /** Each package of the library's sources, with the packages of this library its code uses. */
    private static Map<String, Set<String>> packageUses() throws Exception {
        Map<String, Set<String>> uses = new TreeMap<>();
        try (Stream<Path> files = Files.walk(MAIN_SOURCES)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                String pkg = MAIN_SOURCES.relativize(file.getParent()).toString().replace('/', '.');
                if (pkg.isEmpty()) {
                    continue; // module-info.java
                }
                String code = withoutComments(Files.readString(file));
                Set<String> used = uses.computeIfAbsent(pkg, p -> new TreeSet<>());
                Matcher m = USE.matcher(code);
                while (m.find()) {
                    if (!m.group(1).equals(pkg)) {
                        used.add(m.group(1));
                    }
                }
            }
        }
        return uses;
    }

    /** The code of a Java source, without its comments (a Javadoc link is no dependency) or string literals. */
    private static String withoutComments(String source) {
        return source.replaceAll("(?s)/\\*.*?\\*/", " ").replaceAll("//[^\\n]*", " ").replaceAll("\"(?:\\\\.|[^\"\\\\\\n])*\"", "\"\"");
    }

    @Test
    void eachPackageUsesOnlyTheLayersBeneathIt() throws Exception {
        Map<String, Set<String>> uses = packageUses();
        assertTrue(uses.keySet().containsAll(MUST_NOT_USE.keySet()), "sources not found: " + uses.keySet());
        List<String> offending = new ArrayList<>();
        uses.forEach((pkg, used) -> used.stream().filter(MUST_NOT_USE.getOrDefault(pkg, Set.of())::contains)
                .forEach(u -> offending.add(pkg + " -> " + u)));
        assertEquals(List.of(), offending, "all uses: " + uses);
    }

    @Test
    void onlyTheCliUsesTheCli() throws Exception {
        List<String> offending = new ArrayList<>();
        packageUses().forEach((pkg, used) -> {
            if (!pkg.startsWith("dev.hintmap.cli") && used.stream().anyMatch(u -> u.startsWith("dev.hintmap.cli"))) {
                offending.add(pkg);
            }
        });
        assertEquals(List.of(), offending);
    }

    @Test
    void everyPackageSaysItsJob() throws Exception {
        for (String pkg : packageUses().keySet()) {
            Path info = MAIN_SOURCES.resolve(pkg.replace('.', '/')).resolve("package-info.java");
            assertTrue(Files.isRegularFile(info), "no " + info);
            assertTrue(Files.readString(info).contains("/**"), info + " has no Javadoc saying what the package is for");
        }
    }

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
