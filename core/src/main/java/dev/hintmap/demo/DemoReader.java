package dev.hintmap.demo;

import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.RegionRecord;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** The optimizer's side of the demo: opens the hint file read-only and prints what it finds. */
public final class DemoReader {
    private DemoReader() {}

    public static void main(String[] args) throws Exception {
        Path file = Path.of(args[0]);
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().readOnly(true))) {
            List<RegionRecord> regions = new ArrayList<>();
            store.forEach(regions::add);
            regions.sort(Comparator.comparingLong(RegionRecord::kernelNsTotal).reversed());
            System.out.printf("reader  pid %d mapped %s read-only: %d regions, hot threshold %,d ns%n",
                    ProcessHandle.current().pid(), file, store.size(), store.hotThresholdNs());
            System.out.printf("  %-24s %4s %9s %12s %12s %12s%n", "region", "hot", "count", "mean ns", "max ns", "mean bytes");
            for (RegionRecord r : regions) {
                System.out.printf("  %-24s %4s %,9d %,12d %,12d %,12d%n", r.name(), store.isHot(r.name()) ? "HOT" : "",
                        r.dispatchCount(), r.meanKernelNs(), r.kernelNsMax(), r.meanBytes());
            }
            long total = regions.stream().mapToLong(RegionRecord::dispatchCount).sum();
            System.out.printf("  %,d dispatches in total%n", total);
        }
    }
}
