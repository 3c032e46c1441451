#include "flopfit/status.h"

const char *ff_status_str(int status)
{
    switch (status) {
    case FF_OK: return "ok";
    case FF_ERR_INVALID: return "invalid argument";
    case FF_ERR_UNSUPPORTED: return "unsupported";
    case FF_ERR_NO_MEMORY: return "host memory exhausted";
    case FF_ERR_DEVICE_MEMORY: return "device memory exhausted";
    case FF_ERR_BUILD: return "kernel build failed";
    case FF_ERR_DEVICE_LOST: return "device lost";
    case FF_ERR_TIMEOUT: return "device timed out";
    case FF_ERR_DEVICE: return "device error";
    case FF_ERR_NOT_FOUND: return "not found";
    case FF_ERR_IO: return "input/output error";
    case FF_ERR_VERIFY: return "result does not match the CPU reference";
    case FF_ERR_NO_DEVICE: return "no driver or device";
    case FF_ERR_RANGE: return "number out of range";
    case FF_ERR_INTERRUPTED: return "interrupted";
    }
    return "unknown status";
}
