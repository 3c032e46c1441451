/*
 * tests/common.h — shared by the device tests: open the first device of a
 * backend, or skip (on a user's machine without that API) or fail (CI=true:
 * PoCL and lavapipe are real devices on every CI machine).
 */
#ifndef FF_TESTS_COMMON_H
#define FF_TESTS_COMMON_H

#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "backend.h"

static inline int ff_test_in_ci(void)
{
    const char *ci = getenv("CI");
    return ci && (strcmp(ci, "true") == 0 || strcmp(ci, "1") == 0);
}

/* The backend, or the end of the test (skip; a failure under CI) when it has no device. */
static inline const struct ff_backend *ff_test_require_backend(const char *backend)
{
    char err[512] = "";
    const struct ff_backend *b = ff_backend_find(backend);
    uint32_t n = 0;
    int ret = b ? ff_backend_device_count(b, &n, err, sizeof(err)) : FF_ERR_NOT_FOUND;
    if (!b || ret < 0 || n == 0) {
        if (ff_test_in_ci())
            cr_assert_fail("CI=true but no %s device: %s", backend, b ? err : "backend not built");
        cr_skip_test("no %s device here (%s)", backend, b ? err : "backend not built");
    }
    return b;
}

/* Opens device 0 of `backend` or ends the test as above. */
static inline struct ff_device *ff_test_open(const char *backend)
{
    char err[512] = "";
    const struct ff_backend *b = ff_test_require_backend(backend);
    struct ff_device *dev = NULL;
    int ret = ff_device_open(b, 0, &dev, err, sizeof(err));
    cr_assert_eq(ret, FF_OK, "opening %s:0 failed: %s", backend, err);
    return dev;
}

#endif
