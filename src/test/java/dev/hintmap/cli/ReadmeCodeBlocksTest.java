package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.hintmap.HintFiles;
import dev.hintmap.HintStore;
import com.example.optimizer.PassScheduler;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Element;
import picocli.CommandLine;

/**
 * Every code block of the documents a user reads — README.md, docs/GUIDE.md and python/README.md
 * ({@link ReadmeBlocks#DOCUMENTS}) — is compiled or run, so that what a user copies works. Each fenced
 * block names its language in its fence and, on the line above, how it is checked
 * ({@code <!-- readme-check: KIND -->}):
 * <ul>
 *   <li>{@code java}, {@code method-body}: statements, compiled (javac, {@code -Xlint:all -Werror},
 *       against the library's classes only) as the body of {@code static void run() throws Exception}
 *       in a class that imports {@code dev.hintmap.*}, {@code java.nio.file.*} and {@code java.util.*},
 *       then run, its file path replaced by a temporary file's; {@code example-body}: the same, also
 *       importing {@code java.time.*} and the examples' {@code com.example.optimizer.*}, compiled against
 *       the library and the examples ({@code src/examples/java}); ({@code compilation-unit}: a whole
 *       source file, compiled);</li>
 *   <li>{@code c}, {@code main-body}: its {@code #include} lines, then the rest as the body of
 *       {@code main}, compiled with {@code -std=c11 -Wall -Wextra -Werror} against native-bench's header
 *       and static library, then run;</li>
 *   <li>{@code python}, {@code run}: run by python/tests/test_readme.py (in {@code ./mvnw verify}'s
 *       Python tests) with the module and the library of the checkout, and a stand-in {@code triton};</li>
 *   <li>{@code xml}, {@code pom-fragment}: well-formed, and a {@code <dependency>} names this
 *       project's coordinates (ConsumerBuildIT builds a project with the guide's toolchain lines);</li>
 *   <li>{@code text}, {@code output}: what a command printed, not code, so not checked.</li>
 * </ul>
 * What a README block says it prints ({@code prints: ...}) is what it prints. The indented blocks are
 * shell lines: a {@code hintmap} or {@code ./hintmap} command line must parse (the picocli model of the
 * commands), a {@code ./mvnw} line may name only the pom's profiles, executions and existing test
 * classes, a {@code make -C DIR} line only targets of DIR's Makefile, and a script the line runs must
 * exist (the install lines are run by ReadmeInstallIT, the pass scheduler's by ExamplesIT).
 */
class ReadmeCodeBlocksTest {
    /** The checks each language may have. */
    static final Map<String, Set<String>> CHECKS = Map.of("java", Set.of("method-body", "example-body", "compilation-unit"),
            "c", Set.of("main-body"), "python", Set.of("run"), "xml", Set.of("pom-fragment"), "text", Set.of("output"));

    @TempDir Path dir;

    private static List<ReadmeBlocks.Block> blocks(String language) throws Exception {
        return ReadmeBlocks.fenced(Cli.home()).stream().filter(b -> b.language().equals(language)).toList();
    }

    @Test
    void everyFencedBlockNamesItsLanguageAndHowItIsChecked() throws Exception {
        assertEquals(Set.of("java", "c", "python", "xml"), ReadmeBlocks.fenced(Cli.home(), "README.md").stream()
                .map(ReadmeBlocks.Block::language).collect(java.util.stream.Collectors.toSet()), "the README shows Java, C, Python and the pom");
        assertTrue(ReadmeBlocks.fenced(Cli.home(), "docs/GUIDE.md").size() >= 8, "the guide's blocks");
        for (ReadmeBlocks.Block b : ReadmeBlocks.fenced(Cli.home())) {
            assertTrue(CHECKS.getOrDefault(b.language(), Set.of()).contains(b.check()), b.where()
                    + ": a fenced block needs a language of " + CHECKS.keySet() + " and, on the line above, "
                    + "<!-- readme-check: KIND --> with a KIND of its language: " + CHECKS);
        }
    }

    /** The README's reference-design questions: each language's headline example asks all six. */
    @Test
    void theReadmeAsksTheReferenceDesignsQuestionsInEveryLanguage() throws Exception {
        Map<String, List<String>> questions = Map.of(
                "java", List.of("isHot(", "dispatchCount(", "meanKernelNs(", "recordFor(", "size()", "isEmpty()"),
                "c", List.of("hm_is_hot(", "hm_dispatch_count(", "hm_mean_kernel_ns(", "hm_lookup(", "hm_size(", "hm_is_empty("),
                "python", List.of("is_hot(", "dispatch_count(", "mean_kernel_ns(", "record_for(", "len(store)", "is_empty()"));
        for (ReadmeBlocks.Block b : ReadmeBlocks.fenced(Cli.home(), "README.md")) {
            for (String q : questions.getOrDefault(b.language(), List.of())) {
                assertTrue(b.text().contains(q), b.where() + " asks " + q);
            }
        }
    }

    /** What a block says it prints: the text after "prints: " in its last comment, else null. */
    static String printed(ReadmeBlocks.Block b) {
        int at = b.text().lastIndexOf("prints: ");
        if (at < 0) {
            return null;
        }
        String rest = b.text().substring(at + "prints: ".length());
        return rest.substring(0, rest.indexOf('\n')).replace("*/", "").strip() + "\n";
    }

    @Test
    void theJavaBlocksCompileWarningFreeAgainstTheLibraryAndRun() throws Exception {
        List<ReadmeBlocks.Block> java = blocks("java");
        assertFalse(java.isEmpty(), "the README shows Java");
        assertTrue(java.stream().anyMatch(b -> b.check().equals("example-body")), "the guide shows the pass scheduler");
        Path library = Path.of(HintStore.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path examples = Path.of(PassScheduler.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        for (int i = 0; i < java.size(); i++) {
            ReadmeBlocks.Block b = java.get(i);
            Path file = dir.resolve("java-" + i + ".hints");
            String body = b.text().replace("/var/tmp/app.hints", file.toString());
            String name = "ReadmeExample" + i;
            boolean example = b.check().equals("example-body");
            String source = b.check().equals("compilation-unit") ? body : """
                    import dev.hintmap.*;
                    import java.nio.file.*;
                    import java.util.*;
                    %s
                    public final class %s {
                        public static void run() throws Exception {
                    %s
                        }
                    }
                    """.formatted(example ? "import java.time.*;\nimport com.example.optimizer.*;\n" : "", name, body.indent(8));
            Path classes = Files.createDirectories(dir.resolve("classes-" + i));
            String classPath = example ? library + File.pathSeparator + examples : library.toString();
            compile(b, name, source, classPath, classes);
            if (!b.check().equals("compilation-unit")) {
                String out = runCapturingStandardOutput(b, name, classes);
                String promised = printed(b);
                if (promised != null) {
                    assertEquals(promised, out, b.where() + " prints what it says");
                }
            }
        }
        assertTrue(printed(blocks("java").getFirst()) != null, "the README's Java example says what it prints");
    }

    /** Runs the compiled block's {@code run()} in this JVM and returns what it wrote to standard output. */
    private static String runCapturingStandardOutput(ReadmeBlocks.Block b, String name, Path classes) throws Exception {
        PrintStream standard = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        try (URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()},
                ReadmeCodeBlocksTest.class.getClassLoader())) {
            System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
            Method run = loader.loadClass(name).getMethod("run");
            run.invoke(null);
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw new AssertionError(b.where() + " runs: " + e.getCause(), e.getCause());
        } finally {
            System.setOut(standard);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }

    private static void compile(ReadmeBlocks.Block b, String name, String source, String classPath, Path classes)
            throws Exception {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (StandardJavaFileManager files = javac.getStandardFileManager(diagnostics, null, StandardCharsets.UTF_8)) {
            JavaFileObject unit = new SimpleJavaFileObject(URI.create("string:///" + name + ".java"),
                    JavaFileObject.Kind.SOURCE) {
                @Override
                public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                    return source;
                }
            };
            List<String> options = List.of("--release", "22", "-Xlint:all", "-Werror", "-proc:none", "-implicit:none",
                    "-classpath", classPath, "-d", classes.toString());
            boolean ok = javac.getTask(null, files, diagnostics, options, null, List.of(unit)).call();
            StringBuilder said = new StringBuilder();
            diagnostics.getDiagnostics().forEach(d -> said.append("\n  line ").append(d.getLineNumber()).append(": ")
                    .append(d.getMessage(null)));
            assertTrue(ok && diagnostics.getDiagnostics().isEmpty(), b.where() + " compiles warning-free:" + said
                    + "\n--- as compiled:\n" + source);
        }
    }

    @Test
    void theCBlocksCompileWarningFreeAgainstTheLibraryAndRun() throws Exception {
        List<ReadmeBlocks.Block> c = blocks("c");
        assertFalse(c.isEmpty(), "the README shows C");
        Path include = Cli.home().resolve("native-bench/include");
        Path library = Path.of(System.getProperty("hintmap.native.build", "native-bench/build")).toAbsolutePath()
                .resolve("libhintmap.a");
        assertTrue(Files.isRegularFile(library), library + " is built before the tests (make -C native-bench tools)");
        for (int i = 0; i < c.size(); i++) {
            ReadmeBlocks.Block b = c.get(i);
            Path file = dir.resolve("c-" + i + ".hints");
            StringBuilder includes = new StringBuilder();
            StringBuilder body = new StringBuilder();
            for (String line : b.text().replace("/var/tmp/app.hints", file.toString()).split("\n")) {
                (line.startsWith("#include") ? includes : body).append(line).append('\n');
            }
            Path source = Files.writeString(dir.resolve("readme" + i + ".c"),
                    includes + "\nint main(void) {\n" + body.toString().indent(4) + "    return 0;\n}\n");
            Path program = dir.resolve("readme" + i);
            Run cc = run(List.of("cc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-I", include.toString(),
                    source.toString(), library.toString(), "-lpthread", "-lm", "-o", program.toString()));
            assertEquals(0, cc.exit(), b.where() + " compiles warning-free:\n" + cc.out() + "\n--- as compiled:\n"
                    + Files.readString(source));
            Run ran = run(List.of(program.toString()));
            assertEquals(0, ran.exit(), b.where() + " runs:\n" + ran.out());
            if (printed(b) != null) {
                assertEquals(printed(b), ran.out(), b.where() + " prints what it says");
            } else if (b.text().contains("hm_region_add")) { // one record by name, one through the handle
                assertEquals("2 dispatches\n", ran.out(), b.where());
            }
        }
        assertTrue(printed(c.getFirst()) != null, "the README's C example says what it prints");
    }

    record Run(int exit, String out) {}

    private static Run run(List<String> command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), command + " finished");
        return new Run(p.exitValue(), out);
    }

    @Test
    void thePythonBlocksAreMarkedForThePythonTestsWhichRunThem() throws Exception {
        List<ReadmeBlocks.Block> python = blocks("python");
        assertFalse(python.isEmpty());
        for (ReadmeBlocks.Block b : python) {
            assertEquals("run", b.check(), b.where());
        }
        String test = Files.readString(Cli.home().resolve("python/tests/test_readme.py"));
        assertTrue(test.contains("readme-check: run"), "python/tests/test_readme.py runs the blocks marked so");
    }

    @Test
    void theXmlBlocksAreWellFormedAndTheDependencyIsThisProjects() throws Exception {
        List<ReadmeBlocks.Block> xml = blocks("xml");
        assertFalse(xml.isEmpty());
        boolean dependency = false;
        for (ReadmeBlocks.Block b : xml) {
            Element root;
            try {
                root = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                        .parse(new ByteArrayInputStream(("<fragment>" + b.text() + "</fragment>").getBytes(StandardCharsets.UTF_8)))
                        .getDocumentElement();
            } catch (org.xml.sax.SAXException e) {
                throw new AssertionError(b.where() + " is well-formed XML: " + e.getMessage(), e);
            }
            var deps = root.getElementsByTagName("dependency");
            for (int i = 0; i < deps.getLength(); i++) {
                Element d = (Element) deps.item(i);
                assertEquals("dev.hintmap", d.getElementsByTagName("groupId").item(0).getTextContent(), b.where());
                assertEquals("hintmap", d.getElementsByTagName("artifactId").item(0).getTextContent(), b.where());
                assertEquals(HintFiles.version(), d.getElementsByTagName("version").item(0).getTextContent(), b.where());
                dependency = true;
            }
        }
        assertTrue(dependency, "the README shows the dependency");
    }

    /** A shell line's words, quotes removed, split into commands at ;, &&, || and |; comments dropped. */
    static List<List<String>> commands(String line) {
        List<List<String>> commands = new ArrayList<>();
        List<String> words = new ArrayList<>();
        StringBuilder word = null;
        char quote = 0;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                } else if (c == '\\' && quote == '"' && i + 1 < line.length()) {
                    word.append(line.charAt(++i));
                } else {
                    word.append(c);
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
                word = word == null ? new StringBuilder() : word;
            } else if (c == '\\' && i + 1 < line.length()) {
                word = word == null ? new StringBuilder() : word;
                word.append(line.charAt(++i));
            } else if (Character.isWhitespace(c) || c == ';' || c == '|' || c == '&') {
                if (word != null) {
                    words.add(word.toString());
                    word = null;
                }
                if (c != ' ' && c != '\t' && !words.isEmpty()) {
                    commands.add(words);
                    words = new ArrayList<>();
                }
            } else if (c == '#' && word == null) {
                break; // a comment
            } else {
                word = word == null ? new StringBuilder() : word;
                word.append(c);
            }
        }
        if (word != null) {
            words.add(word.toString());
        }
        if (!words.isEmpty()) {
            commands.add(words);
        }
        for (List<String> command : commands) {
            while (!command.isEmpty() && (command.get(0).matches("[A-Za-z_][A-Za-z0-9_]*=.*") || command.get(0).equals("sudo"))) {
                command.remove(0);
            }
        }
        commands.removeIf(List::isEmpty);
        return commands;
    }

    @Test
    void theShellLinesNameOnlyCommandsOptionsProfilesAndTargetsThatExist() throws Exception {
        Path home = Cli.home();
        String pom = Files.readString(home.resolve("pom.xml"));
        List<String> checked = new ArrayList<>();
        List<String> numberedLines = new ArrayList<>(); // "DOCUMENT:LINE: text"
        for (String document : ReadmeBlocks.DOCUMENTS) {
            ReadmeBlocks.indented(ReadmeBlocks.lines(home.resolve(document))).forEach(l -> numberedLines.add(document + ":" + l));
        }
        for (String numbered : numberedLines) {
            String where = numbered.substring(0, numbered.indexOf(": "));
            for (List<String> command : commands(numbered.substring(numbered.indexOf(": ") + 2))) {
                String program = command.get(0);
                List<String> args = command.subList(1, command.size());
                if (program.equals("hintmap") || program.equals("./hintmap") || program.endsWith("/bin/hintmap")) {
                    try {
                        HintmapCli.commandLine().parseArgs(args.toArray(String[]::new));
                    } catch (CommandLine.ParameterException e) {
                        fail(where + ": " + String.join(" ", command) + " does not parse: " + e.getMessage());
                    }
                    checked.add(String.join(" ", command));
                } else if (program.equals("./mvnw") || program.equals("mvn")) {
                    for (String arg : args) {
                        if (arg.startsWith("-P")) {
                            for (String profile : arg.substring(2).split(",")) {
                                assertTrue(pom.contains("<id>" + profile + "</id>"), where + ": profile " + profile);
                            }
                        } else if (arg.contains("@")) {
                            String id = arg.substring(arg.indexOf('@') + 1);
                            assertTrue(pom.contains("<id>" + id + "</id>"), where + ": execution " + id + " of " + arg);
                        } else if (arg.startsWith("-Dtest=")) {
                            assertTrue(testClassExists(home, arg.substring("-Dtest=".length())), where + ": " + arg);
                        }
                    }
                    checked.add(String.join(" ", command));
                } else if (program.equals("make") && args.size() >= 2 && args.get(0).equals("-C")) {
                    String makefile = makefileWithIncludes(home.resolve(args.get(1)));
                    for (String target : args.subList(2, args.size())) {
                        if (!target.contains("=") && !target.startsWith("-")) {
                            assertTrue(makefile.contains("\n" + target + ":"), where + ": make target " + target);
                        }
                    }
                    checked.add(String.join(" ", command));
                } else if (program.startsWith("src/") || program.startsWith("./")) {
                    assertTrue(Files.isExecutable(home.resolve(program)), where + ": " + program + " is in the repository");
                    checked.add(String.join(" ", command));
                }
            }
        }
        assertTrue(checked.stream().anyMatch(c -> c.startsWith("./hintmap top")), "the hintmap lines are checked: " + checked);
        assertTrue(checked.stream().anyMatch(c -> c.startsWith("hintmap upgrade")), "the guide's lines are checked: " + checked);
        assertTrue(checked.stream().anyMatch(c -> c.startsWith("./mvnw install")), "the mvnw lines are checked: " + checked);
    }

    /** The Makefile of {@code dir} with the files its {@code include} lines name (relative to dir), where targets also live. */
    private static String makefileWithIncludes(Path dir) throws Exception {
        String makefile = Files.readString(dir.resolve("Makefile"));
        StringBuilder all = new StringBuilder(makefile);
        for (String line : makefile.lines().toList()) {
            if (line.startsWith("include ")) {
                for (String included : line.substring("include ".length()).trim().split("\\s+")) {
                    all.append('\n').append(Files.readString(dir.resolve(included)));
                }
            }
        }
        return all.toString();
    }

    private static boolean testClassExists(Path home, String test) throws Exception {
        String simple = test.replaceAll("[#,].*", "");
        try (Stream<Path> sources = Files.walk(home.resolve("src"))) {
            return sources.anyMatch(p -> p.getFileName().toString().equals(simple + ".java"));
        }
    }

    @Test
    void theShellLineSplitterReadsQuotesCommentsAndSeparators() {
        assertEquals(List.of(List.of("./hintmap", "top", "/dev/shm/app.hints")),
                commands("./hintmap top /dev/shm/app.hints   # a comment"));
        assertEquals(List.of(List.of("make", "-C", "native-bench"), List.of("make", "-C", "native-bench", "install",
                "PREFIX=/usr/local")), commands("make -C native-bench && sudo make -C native-bench install PREFIX=/usr/local"));
        assertEquals(List.of(List.of("python", "train.py")), commands("A=1 B=\"x y\" python train.py"));
        assertEquals(List.of(List.of("./mvnw", "exec:exec@jmh", "-Djmh.args=RecordBench -f 1")),
                commands("./mvnw exec:exec@jmh -Djmh.args=\"RecordBench -f 1\""));
        assertEquals(List.of(List.of("find", "x", "-exec", "ln", "{}", ";")), commands("find x -exec ln {} \\;"));
    }
}
