/*
 * bench/run/paths.h — where `flopfit bench` puts profiles and what it names them.
 *
 * Profiles of a run go to a per-user data folder, $XDG_DATA_HOME/flopfit/profiles
 * (~/.local/share/flopfit/profiles), never into the source tree: the repository's results/
 * holds only curated profiles. A file is named
 * `<backend>-<device slug>-<device id>-<UTC time>.json`, at most 62 bytes before ".json" so
 * a reader that keeps 63 characters of a name (the estimator's profile slug) still tells two
 * runs apart; the device's full name is kept inside the profile.
 */
#ifndef FF_PATHS_H
#define FF_PATHS_H

#include <stddef.h>

#include "backend.h"

/*
 * The default profile folder into dst: $XDG_DATA_HOME/flopfit/profiles when XDG_DATA_HOME is
 * an absolute path, else $HOME/.local/share/flopfit/profiles. FF_ERR_NOT_FOUND (with the
 * reason in err) when neither is set.
 */
int ff_bench_default_dir(char *dst, size_t n, char *err, size_t errlen);

/* Six hex digits from the device's backend, platform, name and driver: the same device gives
 * the same id in every run; two devices whose names share a long prefix get different ones. */
void ff_bench_device_id(const struct ff_device_info *info, char *dst, size_t n);

/* "opencl-pthread-haswell-amd-epyc-3fa2c1-20261201-101010.json" for a device and a compact
 * UTC time ("20261201-101010"). The slug is cut so the stem stays within 62 bytes. */
void ff_bench_profile_name(const struct ff_device_info *info, const char *utc_compact, char *dst,
                           size_t n);

#endif
