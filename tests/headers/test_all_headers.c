/*
 * tests/headers/test_all_headers.c — every header of the tree, public and internal, in one
 * translation unit: one vocabulary, no clashing names or macros. check_listed.py fails when a
 * header of the tree is missing here. The build is the test.
 */
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
#include "bench/bench.h"
#include "bench/bench_run.h"
#include "bench/cli.h"
#include "bench/commands.h"
#include "bench/families.h"
#include "bench/fleet.h"
#include "bench/host.h"
#include "bench/kcheck.h"
#include "bench/measure.h"
#if FF_TEST_MPI
#include "bench/mpi_net.h"
#endif
#include "bench/paths.h"
#include "bench/probe_common.h"
#include "bench/profile_json.h"
#include "bench/report.h"
#include "bench/result.h"
#include "bench/tune.h"
#include "bench/verify.h"
#include "bench/writers.h"
#include "estimate/cli/cli_report.h"
#include "estimate/cli/estcli.h"
#include "estimate/cli/estimate_cli.h"
#include <flopfit/estimate.h>
#include <flopfit/export.h>
#include <flopfit/flopfit.h>
#include <flopfit/model.h>
#include <flopfit/precision.h>
#include <flopfit/profile.h>
#include <flopfit/profile_fields.h>
#include <flopfit/spec.h>
#include <flopfit/status.h>
#include "estimate/src/internal.h"
#include "estimate/src/hf/hf_internal.h"
#include "estimate/util/ff_json.h"
#include "estimate/util/ff_util.h"
#include "results/src/results.h"
#include "results/src/results_impl.h"
#include "results/src/sb.h"

int main(void)
{
    return ff_status_str(FF_OK)[0] && ff_version()[0] ? 0 : 1;
}
