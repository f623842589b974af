package dev.hintmap.testkit;

import dev.hintmap.HintFileException;
import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.Region;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A second JVM for the hardening tests (issue 7): each command does one thing to a hint file and
 * prints what happened on one line, so that the test asserts on real processes.
 *
 * <ul>
 *   <li>{@code create PATH [group]}: opens (creates) PATH, records once, prints {@code ok} or the problem;</li>
 *   <li>{@code open PATH CAPACITY MAXNAME}: opens PATH with those options, prints {@code ok} or the problem;</li>
 *   <li>{@code race PATH GO_FILE RECORDS}: prints {@code ready}, waits until GO_FILE exists, opens PATH,
 *       records RECORDS samples into region {@code race}, prints {@code created=MS checksum=HEX};</li>
 *   <li>{@code poll PATH STOP_FILE}: prints {@code polling}, opens PATH read-only in a loop until STOP_FILE
 *       exists, printing {@code first-open} when an open first succeeds, and at the end
 *       {@code opened=N missing=N bad=N first=...};</li>
 *   <li>{@code record PATH COUNT NAME...}: opens PATH, records COUNT samples of 1,000 ns into each NAME,
 *       prints {@code recorded} (a sample dropped on a held lock shows in the counts, not here);</li>
 *   <li>{@code map PATH}: opens PATH read-only (so this process maps the file), prints {@code mapped} and
 *       waits for its standard input to close: a live process that uses the file (FORMAT.md §6.3);</li>
 *   <li>{@code mapraw PATH}: the same for any file (a version-1 hint file, which the library does not open):
 *       maps it read-only with a plain {@code FileChannel};</li>
 * </ul>
 */
public final class FileChild {
    private FileChild() {}

    public static void main(String[] args) throws Exception {
        Path file = Path.of(args[1]);
        switch (args[0]) {
            case "create" -> {
                HintStoreOptions options = HintStoreOptions.defaults().groupShared(args.length > 2 && args[2].equals("group"));
                System.out.println(openAndRecord(file, options));
            }
            case "open" -> {
                HintStoreOptions options = HintStoreOptions.defaults().capacity(Integer.parseInt(args[2]))
                        .maxNameBytes(Integer.parseInt(args[3]));
                System.out.println(openAndRecord(file, options));
            }
            case "race" -> race(file, Path.of(args[2]), Integer.parseInt(args[3]));
            case "poll" -> poll(file, Path.of(args[2]));
            case "record" -> {
                try (HintStore store = HintStore.open(file, HintStoreOptions.defaults())) {
                    int count = Integer.parseInt(args[2]);
                    for (int i = 3; i < args.length; i++) {
                        for (int n = 0; n < count; n++) {
                            store.record(args[i], 1_000, 1);
                        }
                    }
                }
                System.out.println("recorded");
            }
            case "map" -> {
                try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().readOnly(true))) {
                    System.out.println("mapped " + store.size());
                    System.out.flush();
                    System.in.read();
                }
            }
            case "mapraw" -> {
                try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
                        java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
                    channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size(), arena);
                    System.out.println("mapped " + channel.size());
                    System.out.flush();
                    System.in.read();
                }
            }
            default -> throw new IllegalArgumentException(args[0]);
        }
        System.out.flush();
    }

    private static String openAndRecord(Path file, HintStoreOptions options) {
        try (HintStore store = HintStore.open(file, options)) {
            store.record("child", 1, 1);
            return "ok";
        } catch (HintFileException e) {
            return e.problem() + " " + e.getMessage();
        } catch (Exception e) {
            return "unexpected " + e;
        }
    }

    private static void race(Path file, Path go, int records) throws Exception {
        System.out.println("ready");
        System.out.flush();
        while (!Files.exists(go)) { // every racer is up and spinning here: they all open at once
            Thread.onSpinWait();
        }
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults())) {
            Region region = store.region("race");
            for (int i = 0; i < records; i++) {
                region.record(10, 1);
            }
            ByteBuffer header = ByteBuffer.allocate(4096).order(ByteOrder.LITTLE_ENDIAN);
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
                channel.read(header, 0);
            }
            System.out.println("created=" + header.getLong((int) dev.hintmap.format.Layouts.HDR_CREATED_EPOCH_MS)
                    + " checksum=" + Long.toHexString(header.getLong((int) dev.hintmap.format.Layouts.HDR_HEADER_CHECKSUM)));
        }
    }

    private static void poll(Path file, Path stop) {
        System.out.println("polling");
        System.out.flush();
        int opened = 0;
        int missing = 0;
        int bad = 0;
        String first = "-";
        while (!Files.exists(stop)) {
            try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().readOnly(true))) {
                store.size();
                if (opened++ == 0) {
                    System.out.println("first-open");
                    System.out.flush();
                }
            } catch (HintFileException e) {
                if (e.problem() == HintFileException.Problem.MISSING) {
                    missing++;
                } else {
                    bad++;
                    if (first.equals("-")) {
                        first = e.problem() + ":" + e.getMessage().replace(' ', '_');
                    }
                }
            } catch (Exception e) {
                bad++;
                first = e.toString().replace(' ', '_');
            }
        }
        System.out.println("opened=" + opened + " missing=" + missing + " bad=" + bad + " first=" + first);
    }
}
