package dev.hintmap.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.testkit.ChildJvm;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every access mode {@link Memory} offers, on a page of a file truncated under the mapping, faults
 * into an {@link InternalError} — in the interpreter too, where the JDK guards fewer accesses than
 * compiled code does (docs/archive/RELIABILITY.md, "Truncation under a writer"). An opaque or volatile byte
 * store fails this: the JDK 25 interpreter kills the JVM on it ({@code ShouldNotReachHere} in
 * {@code Assembler::locate_operand}), which is why reference bytes are stored plain. The CAS is
 * preceded by a load of its word, which faults first here; what this cannot show is a truncation
 * between that load and the CAS, the window {@code TruncationUnderWriterTest} measures.
 */
class MemoryFaultTest {
    private static final long GONE = 32_768; // a page past the truncated end

    @TempDir
    Path dir;

    private static Map<String, Consumer<Memory>> accesses() {
        Map<String, Consumer<Memory>> all = new LinkedHashMap<>();
        all.put("plainLong load", m -> Memory.plainLong(m.segment, GONE));
        all.put("plainLong store", m -> Memory.plainLong(m.segment, GONE, 1));
        all.put("plainInt load", m -> Memory.plainInt(m.segment, GONE));
        all.put("plainInt store", m -> Memory.plainInt(m.segment, GONE, 1));
        all.put("acquireLong", m -> Memory.acquireLong(m.segment, GONE));
        all.put("releaseLong", m -> Memory.releaseLong(m.segment, GONE, 1));
        all.put("opaqueLong load", m -> Memory.opaqueLong(m.segment, GONE));
        all.put("opaqueLong store", m -> Memory.opaqueLong(m.segment, GONE, 1));
        all.put("opaqueInt load", m -> Memory.opaqueInt(m.segment, GONE));
        all.put("opaqueInt store", m -> Memory.opaqueInt(m.segment, GONE, 1));
        all.put("opaqueByte load", m -> Memory.opaqueByte(m.segment, GONE));
        all.put("plainByte store", m -> Memory.plainByte(m.segment, GONE, (byte) 1));
        all.put("casLong", m -> Memory.casLong(m.segment, GONE, 0, 1));
        all.put("opaqueAddLong", m -> Memory.opaqueAddLong(m.segment, GONE, 1));
        all.put("atomicAddLong", m -> Memory.atomicAddLong(m.segment, GONE, 1));
        return all;
    }

    /** Child: maps FILE (64 KiB), truncates it to one page, and tries access NAME; prints {@code NAME: outcome}. */
    public static void main(String[] args) throws Exception {
        Path file = Path.of(args[0]);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
                Arena arena = Arena.ofShared()) {
            channel.write(ByteBuffer.allocate(65_536), 0);
            MemorySegment mapped = channel.map(FileChannel.MapMode.READ_WRITE, 0, 65_536, arena);
            channel.truncate(4096);
            for (Map.Entry<String, Consumer<Memory>> access : accesses().entrySet()) {
                if (!access.getKey().equals(args[1])) {
                    continue;
                }
                String outcome;
                try {
                    access.getValue().accept(new Memory(mapped));
                    outcome = "no fault";
                } catch (InternalError e) {
                    outcome = "InternalError";
                }
                System.out.println(access.getKey() + ": " + outcome);
            }
        }
    }

    @Test
    void everyAccessModeOnATruncatedPageFaultsIntoAnInternalErrorEvenInTheInterpreter() throws Exception {
        for (String access : accesses().keySet()) {
            Path file = Files.createTempFile(dir, "fault", ".bin");
            List<String> command = new ArrayList<>(ChildJvm.builder(MemoryFaultTest.class, file.toString(), access).command());
            command.addAll(1, List.of("-Xint", "-XX:ErrorFile=" + dir.resolve("hs_err_%p.log")));
            Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(child.waitFor(60, TimeUnit.SECONDS), out);
            assertEquals(0, child.exitValue(), access + " killed the interpreted JVM:\n" + out);
            assertTrue(out.contains(access + ": InternalError"), out);
        }
    }
}
