"""The Triton early_config_prune helper, with plain configurations (no Triton needed)."""

from __future__ import annotations

import os
import warnings

import hintmap
from hintmap.autotune import early_config_prune, prune_by_hotness

from .support import CUTLASS_GEMM, FLASH_FWD, SOFTMAX, TempDirTest

# Configurations as Triton holds them: anything; here (BLOCK_M, BLOCK_N, num_warps), the default first.
CONFIGS = [(128, 128, 4), (64, 256, 8), (128, 64, 4), (256, 128, 8)]
NAMED_ARGS = {"M": 4096, "N": 4096, "K": 1024}


class PruneTest(TempDirTest):
    def setUp(self):
        super().setUp()
        with hintmap.open(self.path(), capacity=16) as store:
            store.record(FLASH_FWD, 420_000, 1)  # hot: 98 % of the kernel time (and 420 µs >= 100 µs)
            store.record(SOFTMAX, 8_000, 1)  # cold: 2 %

    def test_a_hot_kernel_keeps_every_configuration_and_a_cold_or_absent_one_the_first(self):
        with hintmap.open(self.path(), read_only=True) as store:
            self.assertEqual(early_config_prune(store, FLASH_FWD)(CONFIGS, NAMED_ARGS), CONFIGS)
            self.assertEqual(early_config_prune(store, SOFTMAX)(CONFIGS, NAMED_ARGS), CONFIGS[:1])
            self.assertEqual(early_config_prune(store, CUTLASS_GEMM)(CONFIGS, NAMED_ARGS), CONFIGS[:1])
            self.assertEqual(early_config_prune(store, FLASH_FWD)([], NAMED_ARGS), [])

    def test_the_prune_takes_both_of_tritons_call_forms(self):
        prune = early_config_prune(self.path(), FLASH_FWD)
        self.assertEqual(prune(CONFIGS, NAMED_ARGS), CONFIGS)  # older Triton: (configs, nargs)
        self.assertEqual(prune(CONFIGS, NAMED_ARGS, BLOCK_K=64, num_stages=3), CONFIGS)  # 3.x: **kwargs too
        result = prune(tuple(CONFIGS), NAMED_ARGS)
        self.assertEqual(result, CONFIGS)
        self.assertIsInstance(result, list)

    def test_the_kernel_name_may_come_from_the_arguments(self):
        prune = early_config_prune(self.path(), lambda args: FLASH_FWD if args["K"] >= 1024 else SOFTMAX)
        self.assertEqual(prune(CONFIGS, NAMED_ARGS), CONFIGS)
        self.assertEqual(prune(CONFIGS, {"M": 1, "N": 1, "K": 8}), CONFIGS[:1])

    def test_a_hint_file_that_does_not_exist_yet_prunes_quietly_and_is_read_once_it_exists(self):
        later = self.path("later.hints")
        prune = early_config_prune(later, FLASH_FWD)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no warning: no hints yet is normal
            self.assertEqual(prune(CONFIGS, NAMED_ARGS), CONFIGS[:1])
        with hintmap.open(later, capacity=4) as store:
            store.record(FLASH_FWD, 420_000, 1)
        self.assertEqual(prune(CONFIGS, NAMED_ARGS), CONFIGS)

    def test_a_file_that_cannot_be_read_prunes_to_the_first_with_one_warning(self):
        junk = self.dir / "junk.hints"
        junk.write_bytes(b"\0junk" * 2000)
        prune = early_config_prune(str(junk), FLASH_FWD)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            self.assertEqual(prune(CONFIGS, NAMED_ARGS), CONFIGS[:1])
            self.assertEqual(prune(CONFIGS, NAMED_ARGS), CONFIGS[:1])
        self.assertEqual(len(caught), 1)
        self.assertIn("HM_E", str(caught[0].message))

    def test_a_bad_kernel_name_is_an_error_not_a_silent_prune(self):
        prune = early_config_prune(self.path(), "")
        with self.assertRaises(hintmap.InvalidArgumentError):
            prune(CONFIGS, NAMED_ARGS)

    def test_prune_by_hotness_keeps_all_or_the_first(self):
        self.assertEqual(prune_by_hotness(CONFIGS, True), CONFIGS)
        self.assertEqual(prune_by_hotness(CONFIGS, False), [CONFIGS[0]])
        self.assertEqual(prune_by_hotness([], False), [])


class PruneByCoverageTest(TempDirTest):
    def setUp(self):
        super().setUp()
        with hintmap.open(self.path(), capacity=16) as store:
            for _ in range(1000):
                store.record(SOFTMAX, 8_000)  # 8 µs a launch, 8 ms in all: 95 % of the time, cold by threshold
            store.record(FLASH_FWD, 420_000)  # one 420 µs launch: hot by threshold, 5 % of the time

    def test_hot_by_coverage_tunes_the_kernels_that_make_up_the_time_not_the_long_launches(self):
        by_coverage = early_config_prune(self.path(), SOFTMAX, hot="coverage")
        self.assertEqual(by_coverage(CONFIGS, NAMED_ARGS), CONFIGS)
        self.assertEqual(early_config_prune(self.path(), FLASH_FWD, hot="coverage")(CONFIGS, NAMED_ARGS), CONFIGS[:1])
        self.assertEqual(early_config_prune(self.path(), CUTLASS_GEMM, hot="coverage")(CONFIGS, NAMED_ARGS),
                         CONFIGS[:1])
        # the mean-time threshold asks whether one launch is expensive: the other way round
        self.assertEqual(early_config_prune(self.path(), SOFTMAX, hot="threshold")(CONFIGS, NAMED_ARGS), CONFIGS[:1])
        self.assertEqual(early_config_prune(self.path(), FLASH_FWD, hot="threshold")(CONFIGS, NAMED_ARGS), CONFIGS)

    def test_the_default_is_hot_by_coverage_where_the_time_goes(self):
        # The tuning time follows the GPU time (docs/GUIDE.md, "Which rule answers which question"):
        # the kernel holding 95 % of it is tuned fully, the one long launch keeps its default.
        self.assertEqual(early_config_prune(self.path(), SOFTMAX)(CONFIGS, NAMED_ARGS), CONFIGS)
        self.assertEqual(early_config_prune(self.path(), FLASH_FWD)(CONFIGS, NAMED_ARGS), CONFIGS[:1])
        smaller = early_config_prune(self.path(), FLASH_FWD, coverage=1.0)  # coverage needs no hot= now
        self.assertEqual(smaller(CONFIGS, NAMED_ARGS), CONFIGS)

    def test_coverage_and_min_dispatches_choose_the_set(self):
        with hintmap.open(self.path(), read_only=True) as store:
            every = early_config_prune(store, FLASH_FWD, hot="coverage", coverage=1.0)
            self.assertEqual(every(CONFIGS, NAMED_ARGS), CONFIGS)
            trusted = early_config_prune(store, FLASH_FWD, hot="coverage", coverage=1.0, min_dispatches=2)
            self.assertEqual(trusted(CONFIGS, NAMED_ARGS), CONFIGS[:1])  # one launch: too few to trust

    def test_a_bad_option_is_refused_at_once_even_before_the_file_exists(self):
        missing = self.path("not-yet.hints")
        with self.assertRaises(ValueError):
            early_config_prune(missing, SOFTMAX, hot="mean")
        with self.assertRaises(ValueError):
            early_config_prune(missing, SOFTMAX, hot="threshold", coverage=0.9)  # the threshold rule has no coverage
        with self.assertRaises(ValueError):
            early_config_prune(missing, SOFTMAX, hot="threshold", min_dispatches=2)
        for coverage, least in ((1.5, 1), (float("nan"), 1), (0.9, -1)):
            with self.subTest(coverage=coverage, min_dispatches=least):
                with self.assertRaises(hintmap.InvalidArgumentError):
                    early_config_prune(missing, SOFTMAX, coverage=coverage, min_dispatches=least)

    def test_a_hint_file_replaced_at_the_path_is_read_anew_without_a_warning(self):
        prune = early_config_prune(self.path(), FLASH_FWD, hot="coverage")
        self.assertEqual(prune(CONFIGS, NAMED_ARGS), CONFIGS[:1])
        with hintmap.open(self.path("next.hints"), capacity=16) as store:  # a new profile: FLASH dominates
            store.record(FLASH_FWD, 420_000)
            store.record(SOFTMAX, 8_000)
        os.replace(self.path("next.hints"), self.path())
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            self.assertEqual(prune(CONFIGS, NAMED_ARGS), CONFIGS)
            self.assertEqual(prune(CONFIGS, NAMED_ARGS), CONFIGS)

    def test_a_bad_kernel_name_is_an_error_with_the_coverage_rule_too(self):
        with self.assertRaises(hintmap.InvalidArgumentError):
            early_config_prune(self.path(), "", hot="coverage")(CONFIGS, NAMED_ARGS)
