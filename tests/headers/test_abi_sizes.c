/*
 * tests/headers/test_abi_sizes.c — the size of every public struct of libflopfit on x86_64
 * (LP64), so that a change to one is seen: a change is an ABI change, which doc/abi.md says
 * how to make. check_abi_sizes.py checks that this table names every public struct.
 * Other ABIs skip (exit 77): the figures are x86_64's.
 */
#include <stdio.h>

#include "flopfit/flopfit.h"

/* One row of sizes[], inside its braces. */
#define SIZE(name, bytes) #name, sizeof(struct name), bytes

static const struct {
    const char *name;
    size_t now, recorded;
} sizes[] = {
    {SIZE(ff_plan, 320)},         {SIZE(ff_memory, 88)},        {SIZE(ff_suggestion, 144)},
    {SIZE(ff_step_part, 128)},    {SIZE(ff_step, 1000)},        {SIZE(ff_estimate, 3544)},
    {SIZE(ff_flops, 24)},         {SIZE(ff_plan_choice, 1432)}, {SIZE(ff_model, 672)},
    {SIZE(ff_param_count, 56)},   {SIZE(ff_model_preset, 24)},  {SIZE(ff_profile_device, 368)},
    {SIZE(ff_profile_info, 520)}, {SIZE(ff_profile_times, 32)}, {SIZE(ff_profile_test, 376)},
    {SIZE(ff_spec, 7480)},        {SIZE(ff_gguf_info, 160)},    {SIZE(ff_op, 56)},
    {SIZE(ff_op_list, 3592)},     {SIZE(ff_op_params, 24)},     {SIZE(ff_spec_op, 40)},
    {SIZE(ff_bu_term, 88)},       {SIZE(ff_bottom_up, 9160)},
};

int main(void)
{
#if !defined(__x86_64__) || !defined(__LP64__)
    puts("SKIP: the recorded sizes are x86_64 (LP64) ones");
    return 77;
#else
    int failed = 0;
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        if (sizes[i].now == sizes[i].recorded)
            continue;
        fprintf(stderr,
                "sizeof(struct %s) changed from %zu to %zu: bump the ABI (doc/abi.md), then "
                "record the new size in tests/headers/test_abi_sizes.c\n",
                sizes[i].name, sizes[i].recorded, sizes[i].now);
        failed = 1;
    }
    if (!failed)
        printf("%zu public structs keep their recorded sizes\n", sizeof(sizes) / sizeof(sizes[0]));
    return failed;
#endif
}
