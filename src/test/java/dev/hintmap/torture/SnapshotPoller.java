package dev.hintmap.torture;

import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.RegionRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A reader process: polls every region's snapshot read-only until STOP_FILE appears and checks
 * that counts never go back and every snapshot is internally consistent. Prints
 * {@code polls=N snapshots=M violations=V} and exits 1 on any violation.
 *
 * <p>{@code SnapshotPoller FILE REGIONS STOP_FILE}
 */
public final class SnapshotPoller {
    private SnapshotPoller() {}

    public static void main(String[] args) throws Exception {
        Path file = Path.of(args[0]);
        int regions = Integer.parseInt(args[1]);
        Path stop = Path.of(args[2]);
        long[] last = new long[regions];
        long polls = 0;
        long snapshots = 0;
        long violations = 0;
        String[] names = new String[regions];
        for (int r = 0; r < regions; r++) {
            names[r] = String.format("region-%05d", r);
        }
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().readOnly(true))) {
            boolean stopping = false;
            while (true) {
                for (int r = 0; r < regions; r++) {
                    Optional<RegionRecord> snapshot = store.recordFor(names[r]);
                    if (snapshot.isEmpty()) {
                        continue;
                    }
                    RegionRecord s = snapshot.get();
                    snapshots++;
                    boolean consistent = s.dispatchCount() > 0 && s.kernelNsMax() <= s.kernelNsTotal()
                            && s.meanKernelNs() <= s.kernelNsMax() && s.dispatchCount() >= last[r];
                    if (!consistent) {
                        if (violations++ < 10) {
                            System.out.println("violation: " + s + " after count " + last[r]);
                        }
                    }
                    last[r] = s.dispatchCount();
                }
                polls++;
                if (stopping) {
                    break;
                }
                stopping = Files.exists(stop); // one more full poll after the writers finished
            }
        }
        System.out.println("polls=" + polls + " snapshots=" + snapshots + " violations=" + violations);
        System.exit(violations == 0 ? 0 : 1);
    }
}
