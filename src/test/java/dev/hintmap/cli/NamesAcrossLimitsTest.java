package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.RegionRecord;
import dev.hintmap.TestStores;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reliability round 4, finding 7: files of different {@code max_name_bytes} hold one long kernel
 * under different stored forms (FORMAT.md §1.1). {@code merge} of three such files gave 13 regions
 * for 5 kernels with no warning, and {@code diff} listed one kernel as "only in A" and "only in B".
 * Now both match the forms by prefix and hash ("Across limits"), and {@code merge} says how many
 * regions it could not match.
 */
class NamesAcrossLimitsTest {
    /** Five real-looking kernels of 57 to about 1,900 bytes; the limits below store each differently. */
    static final List<String> KERNELS = List.of(
            "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8>(Params)",
            "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float,"
                    + " at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)",
            "void at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16,"
                    + " c10::BFloat16, at::native::binary_internal::MulFunctor<float> >, std::array<char*, 3> >(int,"
                    + " at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16,"
                    + " at::native::binary_internal::MulFunctor<float> >, std::array<char*, 3>)",
            "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_32x5_nn",
            "void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, int, int, int>,"
                    + " cutlass::gemm::collective::CollectiveMma<cutlass::gemm::MainloopSm90TmaGmmaWarpSpecializedCooperative<4,"
                    + " cute::tuple<cute::C<2>, cute::C<1>, cute::C<1> >, cutlass::gemm::KernelTmaWarpSpecializedCooperative>,"
                    + " cute::tuple<cute::C<256>, cute::C<128>, cute::C<64> >, cutlass::bfloat16_t, cute::tuple<long,"
                    + " cute::C<1>, long>, cutlass::bfloat16_t, cute::tuple<long, cute::C<1>, long>,"
                    + " cute::TiledMMA<cute::MMA_Atom<cute::SM90_64x128x16_F32BF16BF16_SS<(cute::GMMA::Major)0,"
                    + " (cute::GMMA::Major)0, (cute::GMMA::ScaleIn)1, (cute::GMMA::ScaleIn)1> >,"
                    + " cute::Layout<cute::tuple<cute::C<2>, cute::C<1>, cute::C<1> >, cute::tuple<cute::C<1>, cute::C<0>,"
                    + " cute::C<0> > >, cute::tuple<cute::Underscore, cute::Underscore, cute::Underscore> >,"
                    + " cute::SM90_TMA_LOAD, cute::ComposedLayout<cute::Swizzle<3, 4, 3>, cute::smem_ptr_flag_bits<16>,"
                    + " cute::Layout<cute::tuple<cute::C<8>, cute::C<64> >, cute::tuple<cute::C<64>, cute::C<1> > > >,"
                    + " void, cute::identity, cute::SM90_TMA_LOAD_MULTICAST, cute::ComposedLayout<cute::Swizzle<3, 4, 3>,"
                    + " cute::smem_ptr_flag_bits<16>, cute::Layout<cute::tuple<cute::C<8>, cute::C<64> >,"
                    + " cute::tuple<cute::C<64>, cute::C<1> > > >, void, cute::identity>,"
                    + " cutlass::epilogue::collective::CollectiveEpilogue<cutlass::epilogue::Sm90TmaWarpSpecializedCooperative<1,"
                    + " 2, 16, true, false>, cute::tuple<cute::C<256>, cute::C<128>, cute::C<64> >, cute::tuple<cute::C<128>,"
                    + " cute::C<32> >, cutlass::bfloat16_t, cute::tuple<long, cute::C<1>, long>, cutlass::bfloat16_t,"
                    + " cute::tuple<long, cute::C<1>, long> >, void, void> >(cutlass::gemm::kernel::GemmUniversal::Params)");
    static final int[] LIMITS = {64, 128, 1024};

    @TempDir
    Path dir;

    /** Kernel {@code k} recorded {@code k + 1} times at 100 µs into a file of limit {@code limit}. */
    private Path file(String name, int limit, List<String> kernels) throws Exception {
        Path file = dir.resolve(name);
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().capacity(16).maxNameBytes(limit))) {
            for (String kernel : kernels) {
                for (int i = 0; i <= KERNELS.indexOf(kernel); i++) {
                    store.record(kernel, 100_000, 1024);
                }
            }
        }
        return file;
    }

    private static Map<String, RegionRecord> regions(Path file) throws Exception {
        Map<String, RegionRecord> regions = new HashMap<>();
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().readOnly(true))) {
            store.snapshot().regions().forEach(r -> regions.put(r.name(), r));
        }
        return regions;
    }

    @Test
    void theKernelsLongerThanTheSmallestLimitTakeThreeFormsAcrossTheseFiles() {
        for (String kernel : KERNELS.subList(0, 3)) {
            assertTrue(kernel.getBytes(StandardCharsets.UTF_8).length > 64, kernel);
        }
        assertTrue(KERNELS.get(4).getBytes(StandardCharsets.UTF_8).length > 1024, "one kernel is shortened in every file");
        assertTrue(KERNELS.get(3).getBytes(StandardCharsets.UTF_8).length <= 64, "one kernel is whole in every file");
    }

    @Test
    void mergeOfFilesOfDifferentNameLimitsGivesOneRegionPerKernelFoundByItsWholeName() throws Exception {
        Path[] files = new Path[LIMITS.length];
        for (int i = 0; i < LIMITS.length; i++) {
            files[i] = file("l" + LIMITS[i] + ".hints", LIMITS[i], KERNELS);
        }
        Path out = dir.resolve("merged.hints");
        Cli.Result r = Cli.run("merge", files[0].toString(), files[1].toString(), files[2].toString(), "-o",
                out.toString()).expect(ExitCode.OK);
        assertFalse(r.err().contains("could not be matched"), r.err());
        assertTrue(r.err().contains("matched their kernels by prefix and hash"), r.err());

        Map<String, RegionRecord> merged = regions(out);
        assertEquals(KERNELS.size(), merged.size(), "one region per kernel: " + merged.keySet());
        try (HintStore store = HintStore.open(out, HintStoreOptions.defaults().readOnly(true))) {
            assertEquals(1024, store.maxNameBytes(), "the largest limit of the inputs");
            for (int k = 0; k < KERNELS.size(); k++) {
                assertEquals(3L * (k + 1), store.dispatchCount(KERNELS.get(k)), "found by its whole name: " + KERNELS.get(k));
            }
        }
    }

    @Test
    void mergeWarnsNamingHowManyRegionsItCouldNotMatchAndMatchesThemAtTheSmallestLimit() throws Exception {
        Path small = file("l64.hints", 64, KERNELS);
        Path large = file("l1024.hints", 1024, KERNELS.subList(0, 2)); // kernels 2 and 4 only in the small file
        Path out = dir.resolve("merged.hints");

        Cli.Result r = Cli.run("merge", "-q", small.toString(), large.toString(), "-o", out.toString())
                .expect(ExitCode.OK);
        assertTrue(r.err().contains("warning: 2 region(s) could not be matched"), "even with --quiet: " + r.err());
        assertTrue(r.err().contains("--max-name-bytes"), r.err());
        assertEquals(1, r.err().lines().count(), r.err());
        assertEquals(KERNELS.size(), regions(out).size(), "still one region per kernel: " + regions(out).keySet());

        Path at64 = dir.resolve("at64.hints");
        Cli.Result all = Cli.run("merge", small.toString(), large.toString(), "-o", at64.toString(),
                "--max-name-bytes", "64").expect(ExitCode.OK);
        assertFalse(all.err().contains("could not be matched"), all.err());
        try (HintStore store = HintStore.open(at64, HintStoreOptions.defaults().readOnly(true))) {
            assertEquals(64, store.maxNameBytes());
            assertEquals(KERNELS.size(), store.size());
            for (int k = 0; k < KERNELS.size(); k++) {
                long want = (k + 1) * (k < 2 ? 2L : 1L);
                assertEquals(want, store.dispatchCount(KERNELS.get(k)), KERNELS.get(k));
            }
        }
        Cli.run("merge", small.toString(), "-o", dir.resolve("bad.hints").toString(), "--max-name-bytes", "0")
                .expect(ExitCode.USAGE);
    }

    @Test
    void diffOfFilesOfDifferentNameLimitsListsEachKernelAsInBoth() throws Exception {
        Path a = file("l128.hints", 128, KERNELS);
        Path b = file("l1024.hints", 1024, KERNELS);
        Path c = file("l64.hints", 64, KERNELS);
        for (Path[] pair : new Path[][] {{a, b}, {c, a}, {b, c}}) {
            JsonNode d = new ObjectMapper().readTree(
                    Cli.run("diff", pair[0].toString(), pair[1].toString(), "--json").expect(0).out());
            assertEquals(KERNELS.size(), d.get("in_both").asLong(), d.toPrettyString());
            assertEquals(0, d.get("only_in_a").asLong() + d.get("only_in_b").asLong(), d.toPrettyString());
            assertEquals(1.0, d.get("overlap").asDouble(), 1e-12);
        }
        Path json = Files.writeString(dir.resolve("l1024.json"),
                Cli.run("dump", "--format", "json", b.toString()).expect(0).out());
        JsonNode d = new ObjectMapper().readTree(Cli.run("diff", json.toString(), a.toString(), "--json").expect(0).out());
        assertEquals(KERNELS.size(), d.get("in_both").asLong(), "from a JSON dump too: " + d.toPrettyString());
    }
}
