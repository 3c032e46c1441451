/*
 * tests/headers/test_all_headers.c — every header of the tree, public and internal, in one
 * translation unit: one vocabulary, no clashing names or macros. check_listed.py fails when a
 * header of the tree is missing here. The build is the test; main() checks that names from
 * each half (libflopfit, the backends, bench/) are the same objects.
 */
#include <stdbool.h>
#include <string.h>

#include "backends/backend.h"
#include "backends/backend_impl.h"
#include "backends/device_options.h"
#if FF_TEST_OPENCL
#include "backends/opencl/cl_internal.h"
#endif
#if FF_TEST_VULKAN
#include "backends/vulkan/vk_coopmat.h"
#endif
#if FF_TEST_VULKAN
#include "backends/vulkan/vk_internal.h"
#endif
#include "bench/families/bench.h"
#include "bench/run/bench_run.h"
#include "bench/cmd/cli.h"
#include "bench/cmd/commands.h"
#include "bench/families/families.h"
#include "bench/fleet/fleet.h"
#include "bench/check/host.h"
#include "bench/check/kcheck.h"
#include "bench/check/opcheck.h"
#include "bench/check/measure.h"
#if FF_TEST_MPI
#include "bench/fleet/mpi_net.h"
#endif
#include "bench/run/paths.h"
#include "bench/families/probe_common.h"
#include "bench/run/profile_json.h"
#include "bench/run/sink.h"
#include "bench/cmd/report.h"
#include "bench/check/result.h"
#include "bench/tune/tune.h"
#include "bench/check/verify.h"
#include "bench/cmd/writers.h"
#include "estimate/cli/cli_report.h"
#include "estimate/cli/estcli.h"
#include "estimate/cli/estimate_cli.h"
#include <flopfit/estimate.h>
#include <flopfit/export.h>
#include <flopfit/flopfit.h>
#include <flopfit/gguf.h>
#include <flopfit/model.h>
#include <flopfit/ops.h>
#include <flopfit/precision.h>
#include <flopfit/profile.h>
#include <flopfit/profile_fields.h>
#include <flopfit/spec.h>
#include <flopfit/status.h>
#include "estimate/src/internal.h"
#include "estimate/src/hf/reader.h"
#include "estimate/util/ff_abi.h"
#include "estimate/util/ff_json.h"
#include "estimate/util/ff_util.h"
#include "results/src/escape.h"
#include "results/src/jschema.h"
#include "results/src/results.h"
#include "results/src/results_impl.h"
#include "results/src/sb.h"

_Static_assert(FF_PREC_FP16 == 2 && FF_PREC_INT8 == 4, "one precision enum (flopfit/precision.h)");
_Static_assert(FF_KERNEL_COUNT == 17, "enum ff_kernel_id as listed in backend.h");

int main(void)
{
    struct ff_device_options o;
    ff_device_options_init(&o);
    struct ff_bench_cfg cfg;
    ff_bench_cfg_defaults(&cfg);
    bool ok = ff_status_str(FF_OK)[0] && ff_version()[0];
    ok = ok && ff_status_str(FF_ERR_TIMEOUT)[0] && ff_backends() && o.timeout_s == 0;
    ok = ok && cfg.prec[FF_PREC_FP32] && strcmp(ff_precision_name(FF_PREC_FP16), "fp16") == 0;
    ok = ok && ff_families()[0].name && ff_bench_writers()[0].name;
    return ok ? 0 : 1;
}
