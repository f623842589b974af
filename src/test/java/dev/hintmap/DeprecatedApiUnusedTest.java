package dev.hintmap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.lang.reflect.Method;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;

/**
 * Nothing in the repository uses a method deprecated for removal (docs/DESIGN.md §5), so that
 * removing them in the next release breaks nothing here: no source set (main, tests, examples,
 * JMH, jcstress, Lincheck) calls one, and no code block of the README or of {@code docs/} shows
 * one. Only {@link DeprecatedApiTest}, which keeps them working until they go, calls them.
 *
 * <p>The sources are checked by the compiler, not by matching text (a {@code forEach} or an
 * {@code isEmpty()} is a deprecated call only on a {@code HintStore}): javac attributes every
 * source set at once and reports each use as a {@code removal} warning. The build compiles main and
 * tests with {@code -Werror}, but not the JMH benchmarks, and the text of a code block is compiled
 * by nobody. A symbol javac cannot resolve here (JMH, Agrona: not on the test class path) is an
 * error it reports and this test ignores; what is attributed is checked.
 */
class DeprecatedApiUnusedTest {
    private static final List<String> SOURCE_SETS = List.of("main", "test", "examples", "jmh", "jcstress", "lincheck");
    /** The one file allowed to call them, and to suppress the warning. */
    private static final String EXEMPT = "DeprecatedApiTest.java";
    private static final String REMOVAL = "compiler.warn.has.been.deprecated.for.removal";

    /** The deprecated methods, as the probe calls each, and as reflection must find them. */
    private static final Set<String> DEPRECATED = Set.of("HintStore.dispatchCount(String)", "HintStore.meanKernelNs(String)",
            "HintStore.forEach(Consumer)", "HintStore.isEmpty()", "HintStore.evictions()");
    private static final String PROBE = """
            package dev.hintmap.probe;

            final class DeprecatedUseProbe {
                static long use(dev.hintmap.HintStore store) {
                    store.forEach(r -> { });
                    return store.dispatchCount("gemm") + store.meanKernelNs("gemm") + store.evictions()
                            + (store.isEmpty() ? 1 : 0);
                }
            }
            """;

    @Test
    void theDeprecatedMethodsAreExactlyTheOnesDesignMdNames() throws ClassNotFoundException, IOException {
        Set<String> found = new TreeSet<>();
        try (Stream<Path> api = Files.list(Path.of("src", "main", "java", "dev", "hintmap"))) {
            for (Path p : api.filter(f -> f.toString().endsWith(".java")).toList()) {
                String simple = p.getFileName().toString().replace(".java", "");
                Class<?> c = Class.forName("dev.hintmap." + simple);
                for (Method m : c.getDeclaredMethods()) {
                    Deprecated d = m.getAnnotation(Deprecated.class);
                    if (d != null && java.lang.reflect.Modifier.isPublic(m.getModifiers())) {
                        assertTrue(d.forRemoval() && !d.since().isEmpty(), m + ": deprecated for removal, since a release");
                        found.add(simple + "." + m.getName() + Arrays.stream(m.getParameterTypes()).map(Class::getSimpleName)
                                .reduce((a, b) -> a + "," + b).map(s -> "(" + s + ")").orElse("()"));
                    }
                }
            }
        }
        assertEquals(new TreeSet<>(DEPRECATED), found, "the probe below calls each deprecated method; docs/DESIGN.md §5 lists them");
        String design = Files.readString(Path.of("docs", "DESIGN.md"));
        for (String method : DEPRECATED) {
            String name = method.substring("HintStore.".length(), method.indexOf('('));
            assertTrue(design.contains("`" + name + "("), "docs/DESIGN.md §5 names " + method);
        }
    }

    @Test
    void noSourceSetCallsAMethodDeprecatedForRemoval() throws IOException {
        List<Path> sources = new ArrayList<>();
        for (String set : SOURCE_SETS) {
            Path dir = Path.of("src", set, "java");
            try (Stream<Path> files = Files.walk(dir)) {
                files.filter(f -> f.toString().endsWith(".java") && !f.getFileName().toString().equals("module-info.java"))
                        .forEach(sources::add);
            }
        }
        List<String> suppressed = new ArrayList<>();
        for (Path f : sources) {
            if (!f.getFileName().toString().equals(EXEMPT) && Files.readString(f).contains("\"removal\"")) {
                suppressed.add(f.toString());
            }
        }
        assertEquals(List.of(), suppressed, "only " + EXEMPT + " may suppress the removal warning");

        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        Path out = Files.createTempDirectory("deprecated-api-check");
        try (StandardJavaFileManager files = javac.getStandardFileManager(diagnostics, null, StandardCharsets.UTF_8)) {
            List<JavaFileObject> units = new ArrayList<>();
            files.getJavaFileObjectsFromPaths(sources).forEach(units::add);
            units.add(new SimpleJavaFileObject(URI.create("string:///dev/hintmap/probe/DeprecatedUseProbe.java"),
                    JavaFileObject.Kind.SOURCE) {
                @Override
                public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                    return PROBE;
                }
            });
            List<String> options = List.of("-proc:none", "-implicit:none", "-d", out.toString(),
                    "-classpath", testClassPath(), "-Xlint:removal", "-Xmaxwarns", "100000", "-Xmaxerrs", "100000",
                    // attribute every class even where some symbols do not resolve, and generate nothing
                    "-XDshould-stop.ifError=FLOW", "-XDshould-stop.ifNoError=FLOW");
            javac.getTask(null, files, diagnostics, options, null, units).call();
        } finally {
            try (Stream<Path> left = Files.walk(out)) {
                left.sorted((a, b) -> b.compareTo(a)).forEach(p -> p.toFile().delete());
            }
        }
        List<String> uses = new ArrayList<>();
        int probeUses = 0;
        for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
            if (!REMOVAL.equals(d.getCode()) || d.getSource() == null) {
                continue;
            }
            String where = d.getSource().getName();
            if (where.endsWith("DeprecatedUseProbe.java")) {
                probeUses++;
            } else {
                uses.add(where + ":" + d.getLineNumber() + ": " + d.getMessage(null));
            }
        }
        assertEquals(DEPRECATED.size(), probeUses, "the check sees each deprecated method used by the probe");
        assertEquals(List.of(), uses, "calls of methods deprecated for removal (docs/DESIGN.md §5 names the replacements)");
    }

    @Test
    void noCodeBlockOfTheDocsCallsADeprecatedMethod() throws IOException {
        // by name: dispatchCount/meanKernelNs with an argument; on a store: forEach, isEmpty, evictions
        Pattern deprecated = Pattern.compile("\\.(dispatchCount|meanKernelNs)\\(\\s*[^)\\s]"
                + "|\\b(store|hints|reader|writer|s)\\.(forEach\\(|isEmpty\\(\\)|evictions\\(\\))");
        Pattern block = Pattern.compile("```[a-z]*\\n(.*?)```", Pattern.DOTALL);
        List<Path> docs = new ArrayList<>(List.of(Path.of("README.md")));
        try (Stream<Path> md = Files.walk(Path.of("docs"))) {
            md.filter(f -> f.toString().endsWith(".md")).sorted().forEach(docs::add);
        }
        List<String> uses = new ArrayList<>();
        for (Path doc : docs) {
            Matcher b = block.matcher(Files.readString(doc));
            while (b.find()) {
                Matcher m = deprecated.matcher(b.group(1));
                while (m.find()) {
                    uses.add(doc + ": " + m.group());
                }
            }
        }
        assertTrue(deprecated.matcher("long n = store.dispatchCount(\"gemm\");").find(), "the pattern sees a call");
        assertEquals(List.of(), uses);
    }

    /** The test class path, whichever way surefire passes it (a manifest-only jar hides it). */
    private static String testClassPath() {
        String cp = System.getProperty("surefire.test.class.path");
        return cp != null ? cp : System.getProperty("java.class.path", "") + File.pathSeparator + "target" + File.separator + "classes";
    }
}
