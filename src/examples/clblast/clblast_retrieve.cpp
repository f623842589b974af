// clblast_retrieve.cpp - the parameters CLBlast holds for a kernel, for the C runtime: CLBlast's C API can set a
// kernel's parameters (CLBlastOverrideParameters) but only its C++ API reads them back (RetrieveParameters, from
// the same cache the routines read). The runtime reads its defaults at start (to restore them for untuned calls)
// and the set in effect at each call site (to report which parameters ran, docs/PGO.md "Which kernel ran").
#define CL_TARGET_OPENCL_VERSION 120
#include <clblast.h>

#include "pgo_choice.h"

#include <string>
#include <unordered_map>

extern "C" int pgo_clblast_retrieve(cl_device_id device, const char *kernel, pgo_set *out);

// 0, or CLBlast's status code (negative).
extern "C" int pgo_clblast_retrieve(cl_device_id device, const char *kernel, pgo_set *out) {
    std::unordered_map<std::string, size_t> parameters;
    clblast::StatusCode s = clblast::RetrieveParameters(device, kernel, clblast::Precision::kSingle, parameters);
    if (s != clblast::StatusCode::kSuccess) return static_cast<int>(s) < 0 ? static_cast<int>(s) : -1;
    out->count = 0;
    for (const auto &p : parameters)
        if (p.first != "PRECISION" && pgo_set_put(out, p.first.c_str(), p.second) != 0) return -1;
    return 0;
}
