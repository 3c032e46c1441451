/* estimate/src/version.c — what libflopfit is, at run time. */
#include "flopfit/version.h"

const char *ff_version(void)
{
    return FF_VERSION_STRING;
}

unsigned ff_version_number(void)
{
    return FF_VERSION_NUMBER;
}
