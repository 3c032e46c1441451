/*
 * Every internal header of backends/ in one translation unit together with libflopfit's public
 * umbrella header: the two halves share one vocabulary (enum ff_precision, enum ff_status,
 * struct ff_device = an opened device, struct ff_spec = a datasheet), so nothing may clash.
 * The build is the test; main() checks that the shared names are the same objects.
 */
#include <flopfit/flopfit.h>

#include "backend.h"
#include "backend_impl.h"
#include "ff_util.h"
#if FF_TEST_OPENCL
#include "opencl/cl_internal.h"
#endif
#if FF_TEST_VULKAN
#include "vulkan/vk_coopmat.h"
#include "vulkan/vk_internal.h"
#endif

_Static_assert(FF_PREC_FP16 == 2 && FF_PREC_INT8 == 4, "one precision enum (flopfit/precision.h)");
_Static_assert(FF_KERNEL_COUNT == 9, "enum ff_kernel_id as listed in backend.h");

int main(void)
{
    struct ff_device_options o;
    ff_device_options_init(&o);
    const struct ff_backend *const *b = ff_backends();
    /* a name from each half: the status text of libflopfit, a backend of the registry */
    return ff_status_str(FF_ERR_TIMEOUT)[0] && b && o.timeout_s == 0 ? 0 : 1;
}
