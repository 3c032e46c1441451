/* estimate/cli/messages.c — the only places `flopfit estimate` writes its errors (stderr), in
 * bench's style: "flopfit estimate: <message>" on one line; option errors name the option,
 * the bad value and what is accepted (ff_bad_value) and point at --help themselves. */
#include <stdarg.h>
#include <stdio.h>

#include "estcli.h"

int ff_estcli_usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "flopfit estimate: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return FF_ESTCLI_EXIT_USAGE;
}

int ff_estcli_fail(int rc, const char *err)
{
    fprintf(stderr, "flopfit estimate: %s\n", err);
    return rc == FF_ERR_NO_MEMORY ? 1 : FF_ESTCLI_EXIT_USAGE;
}
