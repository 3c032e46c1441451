/*
 * Every bench/ header together with libflopfit's public header and the backend interface, in
 * one translation unit: one vocabulary, no clashing names. (Each header is also compiled on
 * its own, from header_one.c.in; see meson.build.)
 */
#include <flopfit/flopfit.h>

#include "backend.h"
#include "families/bench.h"
#include "run/bench_run.h"
#include "cmd/cli.h"
#include "cmd/commands.h"
#include "families/families.h"
#include "fleet/fleet.h"
#include "check/host.h"
#include "check/kcheck.h"
#include "check/measure.h"
#include "run/paths.h"
#include "families/probe_common.h"
#include "run/profile_json.h"
#include "cmd/report.h"
#include "check/result.h"
#include "tune/tune.h"
#include "check/verify.h"
#include "cmd/writers.h"
#include "run/sink.h"

#include <criterion/criterion.h>

Test(headers, all_together)
{
    /* Names from each half, side by side. */
    struct ff_bench_cfg cfg;
    ff_bench_cfg_defaults(&cfg);
    cr_assert(cfg.prec[FF_PREC_FP32]);
    cr_assert_str_eq(ff_precision_name(FF_PREC_FP16), "fp16");
    cr_assert_not_null(ff_families()[0].name);
    cr_assert_not_null(ff_bench_writers()[0].name);
}
