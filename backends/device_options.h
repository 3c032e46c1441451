/*
 * backends/device_options.h — tuning overrides a device is opened with (ff_device_open_opts in
 * backend.h): the options, their one table, and the one reader of their environment variables.
 * Knows nothing of devices: frontend.c records the options in effect in ff_device_info.
 */
#ifndef FF_DEVICE_OPTIONS_H
#define FF_DEVICE_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Tuning overrides for a device, given when it is opened. An empty string / 0 means "not
 * set": the backend's own choice (its tables) applies. Every option in effect is recorded in
 * ff_device_info.extra as "override.<name>" so it lands in the profile.
 *
 * The FF_* environment variables named below still work: ff_device_options_from_env() is the
 * one place that reads them (bench calls it and passes the result), and ff_device_open() uses it
 * when no options are given. The loader-level variables FF_VK_LOADER, FF_VK_VALIDATION and
 * FF_VK_FAULT (fault injection for tests) are not tuning and stay in backends/vulkan/vk_loader.c.
 */
struct ff_device_options {
    /* OpenCL matmul tiles "tm,tn,vw,use_local,wg0,wg1,tk" (FF_CL_MATMUL_TUNE), replacing the
     * per-device table in backends/opencl/cl_tuning.c. */
    char cl_matmul_tune[64];
    /* Vulkan register-blocked matmul tiles "tm,tn4,wx,wy" (FF_VK_TILES). */
    char vk_tiles[64];
    /* Vulkan shared-memory matmul tiles: a table entry (nvidia, amd, intel, fallback) or
     * "bm,bn,bk,tm,tn" (FF_VK_SHARED_TILES). */
    char vk_shared_tiles[64];
    /* Vulkan matmul kernel: "shared", "texel" or "storage" (FF_VK_MATMUL_PATH). */
    char vk_matmul_path[16];
    /* Seconds one Vulkan submission may run before it is reported as FF_ERR_TIMEOUT
     * (FF_VK_TIMEOUT_S); 0 = the default, 600 s. */
    uint32_t timeout_s;
};

/* One entry of the option table (for --list-options style help and docs). */
struct ff_device_option_desc {
    const char *name;    /* "vk_tiles": the key of ff_device_options_set, "override.<name>" */
    const char *env;     /* "FF_VK_TILES" */
    const char *backend; /* the backend it tunes ("vulkan"); NULL: every backend */
    const char *format;  /* accepted values, "tm,tn4,wx,wy (tm 1..64, tn4 1..4)" */
};

/* The i-th option of the table (static), NULL past the last: for help texts and docs. */
const struct ff_device_option_desc *ff_device_option_at(size_t i);
/* Every option unset. */
void ff_device_options_init(struct ff_device_options *o);
/*
 * Set option `name` from text, checked against its format: FF_ERR_INVALID (naming the option,
 * the value and what is accepted) or FF_ERR_NOT_FOUND for an unknown name. An empty value
 * unsets it.
 */
int ff_device_options_set(struct ff_device_options *o, const char *name, const char *value,
                          char *err, size_t errlen);
/*
 * The one reader of the tuning environment variables: ff_device_options_init(o), then every
 * FF_* variable of the table that is set and not empty. A malformed value is FF_ERR_INVALID
 * naming the variable (the options read before it are kept).
 */
int ff_device_options_from_env(struct ff_device_options *o, char *err, size_t errlen);
/*
 * The value of the i-th table option in o as text ("4,2,8,1", "30") into buf; false (buf "")
 * when that option is not set.
 */
bool ff_device_options_value(const struct ff_device_options *o, size_t i, char *buf, size_t n);

#endif
