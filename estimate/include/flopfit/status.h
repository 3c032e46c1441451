/*
 * flopfit/status.h — the one status enum of flopfit.
 *
 * Every call returns int: 0 (FF_OK) on success or a negative enum ff_status.
 * Detail goes to a caller-supplied message buffer; nothing in flopfit's
 * libraries prints or exits.
 */
#ifndef FLOPFIT_STATUS_H
#define FLOPFIT_STATUS_H

#include "flopfit/export.h"

#ifdef __cplusplus
extern "C" {
#endif

enum ff_status {
    FF_OK = 0,
    FF_ERR_INVALID = -1,       /* an argument or input is invalid */
    FF_ERR_UNSUPPORTED = -2,   /* the device/library lacks what is needed */
    FF_ERR_NO_MEMORY = -3,     /* host allocation failed */
    FF_ERR_DEVICE_MEMORY = -4, /* device allocation failed / out of resources */
    FF_ERR_BUILD = -5,         /* kernel or pipeline build failed */
    FF_ERR_DEVICE_LOST = -6,   /* device lost / reset */
    FF_ERR_TIMEOUT = -7,       /* device did not finish in time */
    FF_ERR_DEVICE = -8,        /* any other API error */
    FF_ERR_NOT_FOUND = -9,     /* a named thing (model, device, file) does not exist */
    FF_ERR_IO = -10,           /* reading or writing a file failed */
    FF_ERR_VERIFY = -11,       /* a result did not match the CPU reference */
    FF_ERR_NO_DEVICE = -12,    /* no loader/driver/platform for an API */
    FF_ERR_RANGE = -13,        /* a number out of range or an overflow */
    FF_ERR_INTERRUPTED = -14,  /* stopped by the user (Ctrl-C) */
};

/* Short English text for a status ("device memory exhausted"); never NULL. */
FF_API const char *ff_status_str(int status);

#ifdef __cplusplus
}
#endif

#endif
