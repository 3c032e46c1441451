/* tests/estimate/test_abi.c — the leading struct_size of the growing structs (doc/abi.md): the
 * _init functions set it, every entry point refuses a struct that lacks it or comes from
 * other headers, with a message saying so, and results keep the caller's size. */
#include <string.h>

#include "../common.h"

static struct ff_model m;
static struct ff_spec d;

static void setup(void)
{
    m = preset("llama-2-7b");
    d = device("h100");
}

TestSuite(abi, .init = setup);

Test(abi, init_sets_the_callers_size)
{
    struct ff_plan p;
    struct ff_estimate e;
    struct ff_plan_choice c[3];
    cr_assert_eq(ff_plan_init(&p), FF_OK);
    cr_assert_eq(ff_estimate_init(&e), FF_OK);
    cr_assert_eq(ff_plan_choice_init(c, 3), FF_OK);
    cr_expect_eq(p.struct_size, sizeof(p));
    cr_expect_eq(e.struct_size, sizeof(e));
    for (int i = 0; i < 3; i++) {
        cr_expect_eq(c[i].struct_size, sizeof(c[i]));
        cr_expect_eq(c[i].plan.struct_size, sizeof(c[i].plan));
    }
    cr_expect_eq(p.batch, 1, "the defaults are still set");
}

Test(abi, an_uninitialised_plan_is_refused_by_name)
{
    struct ff_plan p;
    ff_plan_init(&p);
    p.struct_size = 0;
    struct ff_estimate e;
    ff_estimate_init(&e);
    char err[256] = "";
    cr_expect_eq(ff_est_run(&m, &d, &p, &e, err, sizeof(err)), FF_ERR_INVALID);
    cr_expect(strstr(err, "struct ff_plan: struct_size is 0") && strstr(err, "ff_plan_init"), "%s",
              err);
    cr_expect_eq(ff_plan_check(&m, &p, err, sizeof(err)), FF_ERR_INVALID);
    struct ff_memory mem;
    cr_expect_eq(ff_est_memory(&m, &p, 1, 1, &mem), FF_ERR_INVALID);
    struct ff_flops f;
    cr_expect_eq(ff_est_flops(&m, &p, 1e9, &f), FF_ERR_INVALID);
    struct ff_step st;
    cr_expect_eq(ff_est_step(&m, &d, &p, &st, err, sizeof(err)), FF_ERR_INVALID);
}

Test(abi, a_newer_layout_is_unsupported)
{
    struct ff_plan p;
    ff_plan_init(&p);
    p.struct_size = sizeof(p) + 8;
    struct ff_estimate e;
    ff_estimate_init(&e);
    char err[256] = "";
    cr_expect_eq(ff_est_run(&m, &d, &p, &e, err, sizeof(err)), FF_ERR_UNSUPPORTED);
    cr_expect(strstr(err, "struct ff_plan: struct_size") && strstr(err, "doc/abi.md"), "%s", err);

    ff_plan_init(&p);
    e.struct_size = 0;
    cr_expect_eq(ff_est_run(&m, &d, &p, &e, err, sizeof(err)), FF_ERR_INVALID);
    cr_expect(strstr(err, "ff_estimate_init"), "%s", err);
}

Test(abi, an_unknown_size_at_init_poisons_the_struct)
{
    unsigned char big[sizeof(struct ff_estimate) + 64];
    memset(big, 0xa5, sizeof(big));
    struct ff_estimate *e = (struct ff_estimate *)(void *)big;
    cr_expect_eq(ff_estimate_init_sized(e, sizeof(big)), FF_ERR_UNSUPPORTED);
    cr_expect_eq(e->struct_size, sizeof(big));
    struct ff_plan p;
    ff_plan_init(&p);
    char err[256] = "";
    cr_expect_eq(ff_est_run(&m, &d, &p, e, err, sizeof(err)), FF_ERR_UNSUPPORTED, "%s", err);
    cr_expect_eq(big[sizeof(big) - 1], 0xa5, "nothing is written past this library's size");
}

Test(abi, best_plans_fill_elements_of_the_callers_size)
{
    struct ff_plan p;
    ff_plan_init(&p);
    p.gpus = 16;
    struct ff_plan_choice c[2];
    ff_plan_choice_init(c, 2);
    size_t n = 0;
    char err[256] = "";
    cr_assert_eq(ff_est_best_plans(&m, &d, &p, c, 2, &n, err, sizeof(err)), FF_OK, "%s", err);
    cr_assert_eq(n, 2);
    for (size_t i = 0; i < n; i++) {
        cr_expect_eq(c[i].struct_size, sizeof(c[i]));
        cr_expect_eq(c[i].plan.struct_size, sizeof(c[i].plan));
        cr_expect_eq(c[i].plan.gpus, 16);
    }
    struct ff_estimate e = run(&m, &d, &c[0].plan);
    cr_expect(e.fits);

    c[0].struct_size = 0;
    cr_expect_eq(ff_est_best_plans(&m, &d, &p, c, 2, &n, err, sizeof(err)), FF_ERR_INVALID);
    cr_expect(strstr(err, "ff_plan_choice_init"), "%s", err);
}

Test(abi, models_and_devices_need_their_init)
{
    struct ff_model x;
    memset(&x, 0, sizeof(x));
    cr_expect_eq(ff_model_preset_find("llama-2-7b", &x), FF_ERR_INVALID, "no ff_model_init");
    char err[256] = "";
    cr_expect_eq(ff_model_rough(1e9, &x, err, sizeof(err)), FF_ERR_INVALID);
    cr_expect(strstr(err, "struct ff_model: struct_size is 0") && strstr(err, "ff_model_init"),
              "%s", err);
    cr_expect_eq(ff_model_context(&x), 0, "a count of an uninitialised model is 0");
    struct ff_param_count pc;
    cr_expect_eq(ff_model_params(&x, &pc), FF_ERR_INVALID);

    struct ff_spec y;
    memset(&y, 0, sizeof(y));
    cr_expect_eq(ff_spec_find("h100", &y), FF_ERR_INVALID, "no ff_spec_init");
    cr_expect_eq(ff_spec_rate(&y, FF_PREC_BF16), 0.0);
    struct ff_plan p;
    ff_plan_init(&p);
    struct ff_estimate e;
    ff_estimate_init(&e);
    cr_expect_eq(ff_est_run(&m, &y, &p, &e, err, sizeof(err)), FF_ERR_INVALID);
    cr_expect(strstr(err, "ff_spec_init"), "%s", err);
}

Test(abi, catalog_entries_carry_the_librarys_size)
{
    cr_assert_gt(ff_spec_catalog_count(), 0);
    for (size_t i = 0; i < ff_spec_catalog_count(); i++)
        cr_expect_eq(ff_spec_catalog_at(i)->struct_size, sizeof(struct ff_spec), "%s",
                     ff_spec_catalog_at(i)->slug);
    cr_expect_null(ff_spec_catalog_at(ff_spec_catalog_count()));
    size_t n = 0;
    const struct ff_model_preset *pr = ff_model_presets(&n);
    for (size_t i = 0; i < n; i++)
        cr_expect_eq(pr[i].model->struct_size, sizeof(struct ff_model), "%s", pr[i].slug);
    cr_expect_eq(m.struct_size, sizeof(m), "a lookup keeps the caller's size");
}
