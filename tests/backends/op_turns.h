/*
 * tests/backends/op_turns.h — shared by the OpenCL and Vulkan op tests: a kernel run on two
 * sets of inputs in turn and the first again, each run checked against the reference
 * (bench/check/opcheck.h). A kernel that keeps state between launches (decode attention's
 * parts: partials and counts) must not carry one launch's into the next; identical inputs
 * would hide it.
 */
#ifndef FF_TESTS_OP_TURNS_H
#define FF_TESTS_OP_TURNS_H

#include <criterion/criterion.h>

#include "check/opcheck.h"

static inline void ff_test_op_inputs_in_turn(struct ff_device *dev,
                                             const struct ff_kernel_desc *desc, const char *what)
{
    char err[1024] = "";
    struct ff_kernel *k = NULL;
    struct ff_opcheck oc[2];
    cr_assert_eq(ff_kernel_create(dev, desc, &k, err, sizeof(err)), FF_OK, "%s: create: %s", what,
                 err);
    for (int i = 0; i < 2; i++) {
        cr_assert_eq(ff_opcheck_init(&oc[i], desc, 91 + i, err, sizeof(err)), FF_OK, "%s: %s", what,
                     err);
        cr_assert_eq(ff_opcheck_upload(&oc[i], dev, err, sizeof(err)), FF_OK, "%s: %s", what, err);
    }
    int ret = FF_OK;
    for (int r = 0; r < 3 && ret == FF_OK; r++)
        ret = ff_opcheck_run(&oc[r % 2], k, err, sizeof(err));
    ff_opcheck_finish(&oc[0]);
    ff_opcheck_finish(&oc[1]);
    cr_assert_eq(ret, FF_OK, "%s [%s]: %s", what, ff_kernel_variant(k), err);
    ff_kernel_destroy(&k);
}

#endif
