/*
 * Every bench/ header together with libflopfit's public header and the backend interface, in
 * one translation unit: one vocabulary, no clashing names. (Each header is also compiled on
 * its own, from header_one.c.in; see meson.build.)
 */
#include <flopfit/flopfit.h>

#include "backend.h"
#include "bench.h"
#include "bench_run.h"
#include "cli.h"
#include "commands.h"
#include "families.h"
#include "fleet.h"
#include "host.h"
#include "kcheck.h"
#include "measure.h"
#include "paths.h"
#include "probe_common.h"
#include "profile_json.h"
#include "report.h"
#include "result.h"
#include "tune.h"
#include "verify.h"
#include "writers.h"

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
