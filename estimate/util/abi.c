/* estimate/util/abi.c — the struct_size checks of ff_abi.h. */
#include <string.h>

#include "ff_abi.h"
#include "ff_util.h"

int ff_abi_size(const char *type, const char *init, size_t size, size_t min, size_t full, char *err,
                size_t errlen)
{
    if (size == 0)
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "struct %s: struct_size is 0 (set it with %s before the call)", type, init);
    if (size < min || size > full)
        return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                       "struct %s: struct_size %zu, this libflopfit accepts %zu to %zu (a program "
                       "built against other flopfit headers; doc/abi.md)",
                       type, size, min, full);
    return FF_OK;
}

size_t ff_abi_get_size(const void *s)
{
    size_t size;
    memcpy(&size, s, sizeof(size));
    return size;
}

void ff_abi_set_size(void *s, size_t size)
{
    memcpy(s, &size, sizeof(size));
}

void ff_abi_copy_out(void *dst, const void *full, size_t full_size)
{
    size_t size = ff_abi_get_size(dst);
    memcpy(dst, full, size < full_size ? size : full_size);
    ff_abi_set_size(dst, size);
}
