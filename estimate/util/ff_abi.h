/*
 * estimate/util/ff_abi.h — the leading struct_size of libflopfit's growing public structs
 * (doc/abi.md): the sizes the library accepts and the checks every entry point makes, for the
 * library's rooms (estimate/src and the readers under it). Private, like ff_util.h.
 */
#ifndef FF_ABI_H
#define FF_ABI_H

#include <stddef.h>

#include "flopfit/estimate.h"
#include "flopfit/model.h"
#include "flopfit/spec.h"

#define FF_ABI_END(type, member) (offsetof(type, member) + sizeof(((type *)0)->member))
/* The smallest struct_size accepted: the end of the last field of the soname's first layout.
 * Fields appended later leave these as they are. */
#define FF_PLAN_SIZE_MIN         FF_ABI_END(struct ff_plan, global_batch)
#define FF_ESTIMATE_SIZE_MIN     FF_ABI_END(struct ff_estimate, step)
#define FF_PLAN_CHOICE_SIZE_MIN  (offsetof(struct ff_plan_choice, plan) + FF_PLAN_SIZE_MIN)
#define FF_MODEL_SIZE_MIN        FF_ABI_END(struct ff_model, stored_format)
#define FF_SPEC_SIZE_MIN         FF_ABI_END(struct ff_spec, inter_ranks)

/* 0, or FF_ERR_INVALID (size 0: `init` was not called) / FF_ERR_UNSUPPORTED (outside
 * [min, full]) with a message naming `type` and the sizes. */
int ff_abi_size(const char *type, const char *init, size_t size, size_t min, size_t full, char *err,
                size_t errlen);
/* The leading size_t of a struct, read and written without assuming its type. */
size_t ff_abi_get_size(const void *s);
void ff_abi_set_size(void *s, size_t size);
/* Copy a full-size result into a caller's struct of its own struct_size (the leading field of
 * dst, already checked), keeping that size. */
void ff_abi_copy_out(void *dst, const void *full, size_t full_size);

/* Whether a caller's *out may be filled: as ff_abi_size for its struct_size. */
static inline int ff_model_out_check(const struct ff_model *out, char *err, size_t errlen)
{
    return ff_abi_size("ff_model", "ff_model_init", out->struct_size, FF_MODEL_SIZE_MIN,
                       sizeof(*out), err, errlen);
}
static inline int ff_spec_out_check(const struct ff_spec *out, char *err, size_t errlen)
{
    return ff_abi_size("ff_spec", "ff_spec_init", out->struct_size, FF_SPEC_SIZE_MIN, sizeof(*out),
                       err, errlen);
}

#endif
