/* The human table of `flopfit bench` (bench/cmd/report.c): the driver's words reach the terminal
 * without control characters, escape sequences or invalid UTF-8, and each row stays one line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "cmd/report.h"

/* The text f received, NUL-terminated; the caller frees it. */
static char *contents(FILE *f)
{
    long n = ftell(f);
    cr_assert(n >= 0);
    char *s = calloc((size_t)n + 1, 1);
    cr_assert(s);
    rewind(f);
    cr_assert_eq(fread(s, 1, (size_t)n, f), (size_t)n);
    return s;
}

static void assert_safe(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        cr_assert(*p >= 0x20 || *p == '\n', "control byte 0x%02x at %zu in:\n%s", *p,
                  (size_t)(p - (const unsigned char *)s), s);
        cr_assert(*p != 0x7f && *p != 0xff, "byte 0x%02x in:\n%s", *p, s);
        cr_assert(!(p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f), "a C1 control in:\n%s", s);
    }
}

Test(report, header_drops_escape_sequences)
{
    struct ff_run run;
    memset(&run, 0, sizeof(run));
    snprintf(run.info.name, sizeof(run.info.name), "\x1b[31mred\x1b]0;pwned\x07 GPU\xff\r\nfake");
    snprintf(run.info.platform, sizeof(run.info.platform), "plat\x1b[2J\u202eform");
    snprintf(run.info.driver_version, sizeof(run.info.driver_version),
             "1.0\xc2\x9b"
             "31m\x9b");
    snprintf(run.info.type, sizeof(run.info.type), "gpu\t\x01");
    struct ff_result *r = ff_run_add(&run);
    cr_assert(r);
    ff_result_set(r, "matmul", "matmul", "flopfit");
    r->prec = -1;
    ff_result_fail(r, FF_RES_FAILED, "build log: \x1b[1merror\x1b[0m\nline two");
    FILE *f = tmpfile();
    cr_assert(f);
    ff_report_header(f, "opencl:0", &run.info);
    ff_report_table(f, &run);
    char *s = contents(f);
    fclose(f);
    assert_safe(s);
    cr_assert(strstr(s, "[31mred]0;pwned GPU\xef\xbf\xbd  fake"), "name:\n%s", s);
    cr_assert(strstr(s, "plat[2Jform, driver 1.031m\xef\xbf\xbd, gpu ,"), "%s", s);
    cr_assert(strstr(s, "build log: [1merror[0m line two\n"), "reason:\n%s", s);
    free(s);
    ff_run_finish(&run);
}
