# The OpenCL layer (libhintmap_opencl.so) and its tests. Included by native-bench/Makefile (paths are
# relative to native-bench/); see README "OpenCL layer" and docs/OPENCL.md.
#
#   make opencl       build/libhintmap_opencl.so (where the OpenCL headers with CL/cl_layer.h are; part of `make all`)
#                     and build/hm-opencl-bench, the program opencl/overhead.sh measures (where libOpenCL.so is too)
#   make opencl-test  (part of `make test`) the layer's parts under ASan+UBSan, then the layer through the real ICD
#                     loader (ocl-icd's libOpenCL) on a stand-in platform (opencl/fake_icd.c, registered with
#                     OCL_ICD_VENDORS in a temporary folder): counts, names, ns, bytes, flushes, exit with work in
#                     flight, pass-through, threads, fork; then the same layer on PoCL where a PoCL platform is
#                     installed. Without the headers, libOpenCL.so or a loader with layers: one SKIP line;
#                     without PoCL: one SKIP line for that part.
#
# The layer is C11 built with gcc against the Khronos headers; it links no OpenCL library (it calls
# the driver through the dispatch table the loader hands it). Only the tests link libOpenCL.

OPENCL_INC  := $(wildcard /usr/include/CL/cl_layer.h)
OPENCL_LIB  := $(realpath $(filter /%,$(shell $(CC) -print-file-name=libOpenCL.so 2>/dev/null)))
OPENCL_CPPFLAGS := -Iinclude -Iopencl -Icollect -Isrc
OPENCL_SO   := $(BUILD)/libhintmap_opencl.so
OPENCL_PARTS := opencl/hmo_map.c opencl/hmo_kernel_args.c opencl/hmo_naming.c opencl/hmo_queue_props.c
OPENCL_SRC  := opencl/hintmap_opencl.c $(OPENCL_PARTS) $(COLLECT_SRC)
OPENCL_HDR  := opencl/hmo_map.h opencl/hmo_kernel_args.h opencl/hmo_naming.h opencl/hmo_queue_props.h $(COLLECT_HDR)
OPENCL_ALL  := $(if $(OPENCL_INC),$(OPENCL_SO))
OPENCL_BENCH := $(if $(OPENCL_INC),$(if $(OPENCL_LIB),$(BUILD)/hm-opencl-bench))
# A loader that reads OPENCL_LAYERS names the variable in its binary (ocl-icd >= 2.3, the Khronos loader built with layers).
OPENCL_LAYERED := $(if $(OPENCL_LIB),$(shell grep -q -a OPENCL_LAYERS $(OPENCL_LIB) 2>/dev/null && echo yes))
OPENCL_SKIP := $(if $(OPENCL_INC),$(if $(OPENCL_LIB),$(if $(OPENCL_LAYERED),,the ICD loader $(OPENCL_LIB) has no layer support (no OPENCL_LAYERS in it; ocl-icd >= 2.3 has it): the layer's tests not run),no libOpenCL.so (an ICD loader's development files, e.g. ocl-icd-opencl-dev): the layer's tests not run),no CL/cl_layer.h (the OpenCL headers, e.g. opencl-headers): the layer and its tests not built)
OPENCL_TMP  := $(BUILD)/opencl-test.d

.PHONY: opencl opencl-test
opencl: $(OPENCL_ALL) $(OPENCL_BENCH)
	@$(if $(OPENCL_INC),,echo "no CL/cl_layer.h: skipping libhintmap_opencl.so")

$(BUILD)/hm-opencl-bench: opencl/enqueue_bench.c | $(BUILD)
	$(CC) $(CSTD) $(WARN) $(OPT) $< -o $@ -lOpenCL

# Only clGetLayerInfo and clInitLayer are exported (checked by opencl-test).
$(OPENCL_SO): $(OPENCL_SRC) $(OPENCL_HDR) opencl/exports.map $(BUILD)/libhintmap.a | $(BUILD)
	$(CC) $(OPENCL_CPPFLAGS) $(CSTD) $(WARN) $(OPT) -fPIC -fvisibility=hidden -shared \
	    -Wl,--version-script=opencl/exports.map -Wl,--exclude-libs,ALL -Wl,-z,defs \
	    $(OPENCL_SRC) $(BUILD)/libhintmap.a -o $@ $(LDLIBS)

# The test builds: the layer, the stand-in platform and the test program under ASan+UBSan (the
# layer with the library's sources compiled in, position-independent, as the production .so has
# libhintmap.a; the test programs with the sanitized library objects tools-sanitized builds); and the
# test program as built for users, with the production layer, for PoCL (which is no sanitizer's).
OPENCL_SAN_SO := $(BUILD)/libhintmap_opencl_asan.so
OPENCL_FAKE   := $(BUILD)/libhm_fake_icd.so
OPENCL_SAN_LIB := $(patsubst src/%.c,$(BUILD)/san/obj/%.o,$(LIB_SRC) $(HOOK_SRC))
$(OPENCL_SAN_SO): $(OPENCL_SRC) $(OPENCL_HDR) opencl/exports.map $(LIB_SRC) $(LIB_HDR) | $(BUILD)
	$(CC) $(OPENCL_CPPFLAGS) $(CSTD) $(WARN) -O1 -g $(ASAN) -fPIC -fvisibility=hidden -shared \
	    -Wl,--version-script=opencl/exports.map $(OPENCL_SRC) $(LIB_SRC) -o $@ $(LDLIBS)

$(OPENCL_FAKE): opencl/fake_icd.c | $(BUILD)
	$(CC) $(CSTD) $(WARN) -O1 -g $(ASAN) -fPIC -fvisibility=hidden -shared $< -o $@ -lpthread

$(BUILD)/test_opencl_parts_asan: opencl/test_parts.c $(OPENCL_PARTS) $(COLLECT_SRC) $(OPENCL_HDR) collect/hmc_check.h $(OPENCL_SAN_LIB) | $(BUILD)
	$(CC) $(OPENCL_CPPFLAGS) $(CSTD) $(WARN) -O1 -g $(ASAN) opencl/test_parts.c $(OPENCL_PARTS) $(COLLECT_SRC) $(OPENCL_SAN_LIB) -o $@ $(LDLIBS)

$(BUILD)/test_opencl_layer_asan: opencl/test_layer.c opencl/hmo_naming.c opencl/hmo_naming.h collect/hmc_check.h $(OPENCL_SAN_LIB) | $(BUILD)
	$(CC) $(OPENCL_CPPFLAGS) $(CSTD) $(WARN) -O1 -g $(ASAN) opencl/test_layer.c opencl/hmo_naming.c $(OPENCL_SAN_LIB) -o $@ -lOpenCL -ldl $(LDLIBS)

$(BUILD)/test_opencl_layer: opencl/test_layer.c opencl/hmo_naming.c opencl/hmo_naming.h collect/hmc_check.h $(BUILD)/libhintmap.a | $(BUILD)
	$(CC) $(OPENCL_CPPFLAGS) $(CSTD) $(WARN) $(OPT) opencl/test_layer.c opencl/hmo_naming.c $(BUILD)/libhintmap.a -o $@ -lOpenCL -ldl $(LDLIBS)

# The same under TSan (-Wno-tsan: see TSAN in the Makefile), for the scenarios where threads meet:
# the program's, the driver's callbacks, the flushes.
OPENCL_TSAN_DIR := $(BUILD)/opencl-tsan
$(OPENCL_TSAN_DIR)/libhintmap_opencl.so: $(OPENCL_SRC) $(OPENCL_HDR) opencl/exports.map $(LIB_SRC) $(LIB_HDR)
	@mkdir -p $(OPENCL_TSAN_DIR)
	$(CC) $(OPENCL_CPPFLAGS) $(CSTD) $(WARN) -O1 -g $(TSAN) -fPIC -fvisibility=hidden -shared \
	    -Wl,--version-script=opencl/exports.map $(OPENCL_SRC) $(LIB_SRC) -o $@ $(LDLIBS)
$(OPENCL_TSAN_DIR)/libhm_fake_icd.so: opencl/fake_icd.c
	@mkdir -p $(OPENCL_TSAN_DIR)
	$(CC) $(CSTD) $(WARN) -O1 -g $(TSAN) -fPIC -fvisibility=hidden -shared $< -o $@ -lpthread
$(OPENCL_TSAN_DIR)/test_opencl_layer: opencl/test_layer.c opencl/hmo_naming.c opencl/hmo_naming.h collect/hmc_check.h $(BUILD)/libhintmap.a
	@mkdir -p $(OPENCL_TSAN_DIR)
	$(CC) $(OPENCL_CPPFLAGS) $(CSTD) $(WARN) -O1 -g $(TSAN) opencl/test_layer.c opencl/hmo_naming.c $(BUILD)/libhintmap.a -o $@ -lOpenCL -ldl $(LDLIBS)

OPENCL_TEST_DEPS := $(if $(OPENCL_SKIP),,$(OPENCL_SO) $(OPENCL_SAN_SO) $(OPENCL_FAKE) $(BUILD)/test_opencl_parts_asan \
                    $(BUILD)/test_opencl_layer_asan $(BUILD)/test_opencl_layer \
                    $(addprefix $(OPENCL_TSAN_DIR)/,libhintmap_opencl.so libhm_fake_icd.so test_opencl_layer))
# The sanitizers' children end with exit() while the stand-in platform and the layer still hold
# what a driver holds at exit (contexts, events in flight): leak detection would report those; the
# tests count the layer's events instead (every one released).
OPENCL_SAN_ENV := ASAN_OPTIONS=detect_leaks=0:halt_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

opencl-test: $(OPENCL_TEST_DEPS)
ifneq ($(OPENCL_SKIP),)
	@echo "SKIP: opencl-test: $(OPENCL_SKIP)"
else
	@rm -rf $(OPENCL_TMP) && mkdir -p $(OPENCL_TMP)
	@echo "== OpenCL layer: its parts (tables, argument bytes, names, queue properties) under address,undefined"
	$(OPENCL_SAN_ENV) ./$(BUILD)/test_opencl_parts_asan
	@echo "== OpenCL layer: through the ICD loader on a stand-in platform (address,undefined)"
	$(OPENCL_SAN_ENV) ./$(BUILD)/test_opencl_layer_asan $(abspath $(OPENCL_SAN_SO)) $(abspath $(OPENCL_FAKE)) $(abspath $(OPENCL_TMP)) \
	    main shape build finish release in_flight never passthrough badenv noprofiling threads fork reuse nocallback
	@echo "== OpenCL layer: where threads meet, under thread"
	TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 ./$(OPENCL_TSAN_DIR)/test_opencl_layer $(abspath $(OPENCL_TSAN_DIR)/libhintmap_opencl.so) \
	    $(abspath $(OPENCL_TSAN_DIR)/libhm_fake_icd.so) $(abspath $(OPENCL_TMP)) threads main in_flight finish nocallback fork
	@echo "== OpenCL layer: exported symbols"
	@syms=$$(nm -D --defined-only $(OPENCL_SO) | awk '{print $$3}' | sort | tr '\n' ' '); \
	 if [ "$$syms" != "clGetLayerInfo clInitLayer " ]; then echo "opencl-test: $(OPENCL_SO) exports: $$syms(want clGetLayerInfo clInitLayer)"; exit 1; fi; \
	 echo "nm -D $(OPENCL_SO): clGetLayerInfo clInitLayer"
	@echo "== OpenCL layer: on PoCL, the production build"
	@./$(BUILD)/test_opencl_layer $(abspath $(OPENCL_SO)) $(abspath $(OPENCL_FAKE)) $(abspath $(OPENCL_TMP)) pocl pocl_exit; rc=$$?; \
	 if [ $$rc -eq 77 ]; then echo "SKIP: opencl-test (PoCL): no PoCL platform through the ICD loader (e.g. the pocl-opencl-icd package): the PoCL scenarios not run"; \
	 elif [ $$rc -ne 0 ]; then exit $$rc; fi
	@rm -rf $(OPENCL_TMP)
endif
