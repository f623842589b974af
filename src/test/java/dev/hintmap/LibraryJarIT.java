package dev.hintmap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.module.ModuleDescriptor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The two jars that {@code package} cuts from one compilation (docs/DESIGN.md §1): {@code hintmap.jar}
 * holds the library only, module {@code dev.hintmap} requiring nothing beyond {@code java.base}, with
 * no manifest entry of the command line tool (its {@code Class-Path} into {@code lib/} gave every
 * consumer compiling with {@code -Xlint:all} a warning per entry); {@code hintmap-cli.jar} holds the
 * tool and runs with {@code java -jar}.
 */
class LibraryJarIT {
    private static Path target() {
        return Path.of(System.getProperty("hintmap.home", ".")).resolve("target").toAbsolutePath();
    }

    private static List<String> classEntries(JarFile jar) {
        return jar.stream().map(JarEntry::getName).filter(n -> n.endsWith(".class")).toList();
    }

    @Test
    void theLibraryJarHoldsTheLibraryAndNoManifestEntryOfTheTool() throws IOException {
        try (JarFile jar = new JarFile(target().resolve("hintmap.jar").toFile())) {
            List<String> classes = classEntries(jar);
            assertTrue(classes.contains("dev/hintmap/HintStore.class") && classes.contains("module-info.class"), classes.toString());
            assertEquals(List.of(), classes.stream().filter(n -> n.startsWith("dev/hintmap/cli/")).toList());
            Attributes main = jar.getManifest().getMainAttributes();
            assertNull(main.getValue(Attributes.Name.CLASS_PATH), "Class-Path");
            assertNull(main.getValue(Attributes.Name.MAIN_CLASS), "Main-Class");
            assertNull(main.getValue("Enable-Native-Access"), "Enable-Native-Access counts only for java -jar");
            ModuleDescriptor module = ModuleDescriptor.read(jar.getInputStream(jar.getJarEntry("module-info.class")));
            assertEquals("dev.hintmap", module.name());
            assertEquals(Set.of("java.base"), module.requires().stream().map(ModuleDescriptor.Requires::name).collect(Collectors.toSet()));
            assertEquals(Set.of("dev.hintmap", "dev.hintmap.format", "dev.hintmap.store", "dev.hintmap.eviction", "dev.hintmap.os"),
                    module.packages());
        }
    }

    @Test
    void theToolsJarHoldsTheToolAndRunsWithJavaJar() throws Exception {
        try (JarFile jar = new JarFile(target().resolve("hintmap-cli.jar").toFile())) {
            List<String> classes = classEntries(jar);
            assertTrue(classes.contains("dev/hintmap/cli/HintmapCli.class"), classes.toString());
            assertEquals(List.of(), classes.stream().filter(n -> !n.startsWith("dev/hintmap/cli/")).toList());
            Attributes main = jar.getManifest().getMainAttributes();
            assertEquals("dev.hintmap.cli.HintmapCli", main.getValue(Attributes.Name.MAIN_CLASS));
            String classPath = main.getValue(Attributes.Name.CLASS_PATH);
            assertTrue(classPath.startsWith("hintmap.jar ") && classPath.contains("lib/picocli.jar"), classPath);
        }
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--illegal-native-access=deny", "-jar", target().resolve("hintmap-cli.jar").toString(), "--version")
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.startsWith("hintmap " + HintFiles.version() + ", file format version "), out);
    }
}
