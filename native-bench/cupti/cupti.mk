# The CUPTI collector (libhintmap_cupti.so) and the GPU-free checks of it and of hm-cuda-driver.
# Included by native-bench/Makefile (paths are relative to native-bench/); see README "CUPTI collector".
#
#   make cupti        build/libhintmap_cupti.so (when the CUPTI headers exist; part of `make all`)
#   make cupti-test   GPU-free tests (part of `make test`): translation under ASan+UBSan, dlopen +
#                     InitializeInjection without a driver, the buffer path driven by a stand-in
#                     libcupti, exported symbols, hm-cuda-driver's arguments, and gpu-run.sh rehearsed
#                     with the stand-in (gpu/test_gpu_run.sh quick: every step, a mismatch; ~15 s).
#                     Where the CUPTI headers and nvcc are missing: one SKIP line.
#   make gpu-run-test every branch of gpu-run.sh with the stand-in (gpu/test_gpu_run.sh all, about a minute; not in
#                     `make test`): also hangs, the budget, binaries that do not run, carried ones, no GPU
#
# The collector is C11 built with gcc; it needs CUPTI's headers (cupti.h includes cuda.h) but no
# library at link time: libcupti is dlopen'ed at run time (HINTMAP_CUPTI_LIB, libcupti.so.13,
# libcupti.so, then $(CUPTI_LIBDIR)/libcupti.so as built).

CUDA_HOME   ?= /usr/local/cuda
CUPTI_INC   ?= $(firstword $(foreach d,$(CUDA_HOME)/include $(CUDA_HOME)/extras/CUPTI/include,$(if $(wildcard $(d)/cupti_activity.h),$(d))))
CUPTI_LIBDIR ?= $(firstword $(foreach d,$(CUDA_HOME)/lib64 $(CUDA_HOME)/extras/CUPTI/lib64,$(if $(wildcard $(d)/libcupti.so*),$(d))))
# -Isrc: for src/hm_utf8.h alone, the UTF-8 rule the collector shares with the library (header-only, no internals).
# collect/: the options, messages and names every collector shares (the OpenCL layer too).
CUPTI_CPPFLAGS := -Iinclude -Icupti -Icollect -Isrc $(if $(CUPTI_INC),-I$(CUPTI_INC)) $(if $(filter-out $(CUPTI_INC),$(CUDA_HOME)/include),-I$(CUDA_HOME)/include)
CUPTI_SO    := $(BUILD)/libhintmap_cupti.so
CUPTI_SRC   := cupti/hintmap_cupti.c cupti/hmc_translate.c $(COLLECT_SRC)
CUPTI_HDR   := cupti/hmc_translate.h $(COLLECT_HDR)
CUPTI_ALL   := $(if $(CUPTI_INC),$(CUPTI_SO))
# hm-cuda-driver: warnings are errors, host compiler's too.
NVCC_FLAGS  ?= -O2 -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror

.PHONY: cupti cupti-test gpu-run-test
cupti: $(CUPTI_ALL)
	@$(if $(CUPTI_INC),,echo "no cupti_activity.h under $(CUDA_HOME): skipping libhintmap_cupti.so")

# Only InitializeInjection is exported: the version script hides every other symbol, the hm_*
# of the static libhintmap.a linked in included (checked by cupti-test).
$(CUPTI_SO): $(CUPTI_SRC) $(CUPTI_HDR) cupti/exports.map $(BUILD)/libhintmap.a | $(BUILD)
	$(CC) $(CUPTI_CPPFLAGS) $(CSTD) $(WARN) $(OPT) -fPIC -fvisibility=hidden -shared \
	    -DHMC_CUPTI_FALLBACK='"$(CUPTI_LIBDIR)/libcupti.so"' \
	    -Wl,--version-script=cupti/exports.map -Wl,--exclude-libs,ALL -Wl,-z,defs \
	    $(CUPTI_SRC) $(BUILD)/libhintmap.a -o $@ -ldl $(LDLIBS)

$(BUILD)/test_translate_asan: cupti/test_translate.c collect/hmc_check.h cupti/hmc_translate.c $(COLLECT_SRC) $(CUPTI_HDR) $(LIB_SRC) $(LIB_HDR) | $(BUILD)
	$(CC) $(CUPTI_CPPFLAGS) -Isrc $(CSTD) $(WARN) -O1 -g $(ASAN) -DHM_VECTORS_DIR='"$(VECTORS)"' cupti/test_translate.c cupti/hmc_translate.c $(COLLECT_SRC) $(LIB_SRC) -o $@ -ldl $(LDLIBS)

# A stand-in libcupti (cupti/fake_cupti.c) that drives the collector's buffer path without a GPU.
$(BUILD)/libfake_cupti.so: cupti/fake_cupti.c | $(BUILD)
	$(CC) $(CUPTI_CPPFLAGS) $(CSTD) $(WARN) $(OPT) -fPIC -shared $< -o $@

$(BUILD)/test_collector: cupti/test_collector.c collect/hmc_check.h $(BUILD)/libhintmap.a include/hintmap.h | $(BUILD)
	$(CC) $(CUPTI_CPPFLAGS) $(CSTD) $(WARN) $(OPT) $< $(BUILD)/libhintmap.a -o $@ -ldl $(LDLIBS)

# A GPU-free stand-in for hm-cuda-driver and the PyTorch workload (gpu-run.sh --stand-in), on the
# stand-in libcupti: the same arguments and output as the real programs (bench/hm_driver_core.h).
$(BUILD)/hm-standin-gpu: cupti/standin_gpu.c bench/hm_driver_core.h $(BUILD)/libhintmap.a include/hintmap.h | $(BUILD)
	$(CC) $(CUPTI_CPPFLAGS) -Ibench $(CSTD) $(WARN) $(OPT) $< $(BUILD)/libhintmap.a -o $@ -ldl $(LDLIBS)

$(BUILD)/test_load: cupti/test_load.c | $(BUILD)
	$(CC) $(CSTD) $(WARN) $(OPT) $< -o $@ -ldl

gpu-run-test: $(CUPTI_TEST_DEPS)
	@$(if $(CUPTI_INC),sh gpu/test_gpu_run.sh all,echo "SKIP: gpu-run-test: $(CUPTI_SKIP_C)")

CUPTI_SKIP_C := $(if $(CUPTI_INC),,no CUPTI headers (cupti_activity.h under $(CUDA_HOME)/include or extras/CUPTI/include): the collector's tests not run)
CUPTI_SKIP_D := $(if $(HAVE_NVCC),,no nvcc ($(NVCC)): hm-cuda-driver's tests not run)
CUPTI_SKIP := $(strip $(CUPTI_SKIP_C)$(if $(CUPTI_SKIP_C),$(if $(CUPTI_SKIP_D),; ))$(CUPTI_SKIP_D))
CUPTI_STANDIN := $(if $(CUPTI_INC),$(BUILD)/libfake_cupti.so $(BUILD)/hm-standin-gpu $(SHLIB) $(BUILD)/hm-dump $(BUILD)/hm-bench $(BUILD)/hm-floor)
CUPTI_TEST_DEPS := $(if $(CUPTI_INC),$(CUPTI_SO) $(BUILD)/test_translate_asan $(BUILD)/test_load $(BUILD)/test_collector) $(CUPTI_STANDIN) $(CUDA_BIN)
CUPTI_TMP := $(BUILD)/cupti-test.d
# With HINTMAP_VERBOSE=1 the first line says the library was loaded (what tells "not loaded" from
# "loaded, not recording", docs/GPU.md); where a driver is present (a GPU machine) the "cannot
# record" case is a real start instead, whose verbose line is "recording into ...".
CUPTI_NODRV_SAYS := "loaded into pid" $(if $(wildcard /dev/nvidiactl),"recording into","not recording")

cupti-test: $(CUPTI_TEST_DEPS)
	@$(if $(CUPTI_SKIP),echo "SKIP: cupti-test: $(CUPTI_SKIP)")
	@rm -rf $(CUPTI_TMP) && mkdir -p $(CUPTI_TMP)
ifneq ($(CUPTI_INC),)
	@echo "== CUPTI collector: translation of hand-built activity records (address,undefined)"
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ./$(BUILD)/test_translate_asan
	@echo "== CUPTI collector: dlopen + InitializeInjection where it cannot record (one stderr line each)"
	HINTMAP_VERBOSE=1 HINTMAP_FILE=$(CUPTI_TMP)/a.hints ./$(BUILD)/test_load $(CUPTI_SO) $(CUPTI_NODRV_SAYS)
	HINTMAP_VERBOSE=1 HINTMAP_FILE=$(CUPTI_TMP)/b.hints ./$(BUILD)/test_load $(CUPTI_SO) $(CUPTI_NODRV_SAYS) --preload
	HINTMAP_FILE=$(CUPTI_TMP)/c.hints ./$(BUILD)/test_load $(CUPTI_SO) "not recording"
	HINTMAP_CUPTI_LIB=/nonexistent/libcupti.so ./$(BUILD)/test_load $(CUPTI_SO) "CUPTI not found"
	HINTMAP_NAME=pretty ./$(BUILD)/test_load $(CUPTI_SO) "HINTMAP_NAME=pretty"
	HINTMAP_CAPACITY=12x ./$(BUILD)/test_load $(CUPTI_SO) "HINTMAP_CAPACITY=12x"
	HINTMAP_CAPACITY=" 5" ./$(BUILD)/test_load $(CUPTI_SO) "HINTMAP_CAPACITY= 5"
	HINTMAP_CAPACITY=+5 ./$(BUILD)/test_load $(CUPTI_SO) "HINTMAP_CAPACITY=+5"
	HINTMAP_FLUSH_MS=0x10 ./$(BUILD)/test_load $(CUPTI_SO) "HINTMAP_FLUSH_MS=0x10"
	HINTMAP_NAME_BYTES=32 ./$(BUILD)/test_load $(CUPTI_SO) "HINTMAP_NAME_BYTES=32: expected an integer in 33..1024"
	HINTMAP_HOT_THRESHOLD_NS=-1 ./$(BUILD)/test_load $(CUPTI_SO) "HINTMAP_HOT_THRESHOLD_NS=-1: expected an integer in 0..9223372036854775807"
	@if [ -e /dev/nvidiactl ]; then echo "(a driver is present: the no-driver case above was a real start)"; \
	 elif [ -e $(CUPTI_TMP)/a.hints ] || [ -e $(CUPTI_TMP)/b.hints ] || [ -e $(CUPTI_TMP)/c.hints ]; then \
	    echo "cupti-test: a hint file was created although CUPTI refused"; exit 1; fi
	@echo "== CUPTI collector: buffer path with a stand-in libcupti (cache, name reuse, drops, exit flush, fork, _exit, failures)"
	./$(BUILD)/test_collector $(abspath $(CUPTI_SO)) $(abspath $(BUILD)/libfake_cupti.so) $(abspath $(CUPTI_TMP))
	@echo "== CUPTI collector: exported symbols"
	@syms=$$(nm -D --defined-only $(CUPTI_SO) | awk '{print $$3}' | sort | tr '\n' ' '); \
	 if [ "$$syms" != "InitializeInjection " ]; then echo "cupti-test: $(CUPTI_SO) exports: $$syms(want only InitializeInjection)"; exit 1; fi; \
	 echo "nm -D $(CUPTI_SO): InitializeInjection only"
	@echo "== gpu-run.sh rehearsed with the stand-in (quick: every step, a mismatch; make gpu-run-test: every branch)"
	@sh gpu/test_gpu_run.sh quick
endif
ifneq ($(HAVE_NVCC),)
	@echo "== hm-cuda-driver: arguments, and no CUDA device (CUDA_VISIBLE_DEVICES= hides any GPU)"
	@sh cupti/test_driver.sh ./$(BUILD)/hm-cuda-driver $(CUPTI_TMP)
endif
	@rm -rf $(CUPTI_TMP)
