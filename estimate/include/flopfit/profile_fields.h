/*
 * flopfit/profile_fields.h — the field names of a device profile (results/SCHEMA.md), defined
 * once for the whole tree: the writer (bench/run/profile_json.c) and the reader (libflopfit's
 * flopfit/profile.h) both use these macros, so a name cannot drift between them.
 *
 * Plain string macros, no declarations: this header needs nothing else. The macro names say
 * which object a field belongs to (FF_PF_DEVICE_NAME is "name" inside "device").
 * FF_PF_FOREACH_FIELD lists every field name once, for checks that walk all of them (the
 * schema-documentation test reads results/SCHEMA.md against it).
 */
#ifndef FLOPFIT_PROFILE_FIELDS_H
#define FLOPFIT_PROFILE_FIELDS_H

/* ---- identity: the value of "schema" and the version this flopfit writes ---- */
#define FF_PF_SCHEMA_ID       "flopfit.profile"
#define FF_PF_VERSION_WRITTEN "1.1"
#define FF_PF_VERSION_MAJOR   1 /* readers accept "1.<minor>"; another major is refused */

/* ---- top level ---- */
#define FF_PF_SCHEMA         "schema"
#define FF_PF_SCHEMA_VERSION "schema_version"
#define FF_PF_TOOL           "tool"
#define FF_PF_CREATED        "created" /* UTC, "2026-11-29T22:40:11Z" */
#define FF_PF_HOST           "host"
#define FF_PF_DEVICE         "device"
#define FF_PF_COMPLETE       "complete"
#define FF_PF_TESTS          "tests"
#define FF_PF_RUN            "run"          /* 1.1: how the run was asked for */
#define FF_PF_CONTENT_HASH   "content_hash" /* 1.1: "sha256:<hex>" of device and tests */

/* ---- "run" (1.1) ---- */
#define FF_PF_RUN_KIND "kind" /* FF_PF_RUN_KIND_* */
#define FF_PF_RUN_ARGV "argv" /* the command line as typed, the home folder as "~" */

/* ---- "tool" ---- */
#define FF_PF_TOOL_NAME    "name"
#define FF_PF_TOOL_VERSION "version"
#define FF_PF_TOOL_GIT     "git"

/* ---- "host" ---- */
#define FF_PF_HOST_OS        "os"
#define FF_PF_HOST_KERNEL    "kernel"
#define FF_PF_HOST_CPU       "cpu"
#define FF_PF_HOST_CPUS      "cpus"
#define FF_PF_HOST_RAM_BYTES "ram_bytes"

/* ---- "device" ---- */
#define FF_PF_DEVICE_BACKEND            "backend"
#define FF_PF_DEVICE_PLATFORM           "platform"
#define FF_PF_DEVICE_NAME               "name"
#define FF_PF_DEVICE_VENDOR             "vendor"
#define FF_PF_DEVICE_DRIVER_VERSION     "driver_version"
#define FF_PF_DEVICE_API_VERSION        "api_version"
#define FF_PF_DEVICE_TYPE               "type"
#define FF_PF_DEVICE_COMPUTE_UNITS      "compute_units"
#define FF_PF_DEVICE_CLOCK_MHZ          "clock_mhz"
#define FF_PF_DEVICE_GLOBAL_MEM_BYTES   "global_mem_bytes"
#define FF_PF_DEVICE_MAX_ALLOC_BYTES    "max_alloc_bytes"
#define FF_PF_DEVICE_BUDGET_BYTES       "budget_bytes"
#define FF_PF_DEVICE_HOST_SHARED_MEMORY "host_shared_memory"
#define FF_PF_DEVICE_FEATURES           "features"
#define FF_PF_DEVICE_OVERRIDES          "overrides"
#define FF_PF_DEVICE_ID                 "device_id" /* 1.1: Vulkan "0x10005:0x0000" */

/* ---- "device"."features" ---- */
#define FF_PF_FEATURE_FP16     "fp16"
#define FF_PF_FEATURE_INT8     "int8"
#define FF_PF_FEATURE_INT8_DOT "int8_dot"
#define FF_PF_FEATURE_COOPMAT  "coopmat"

/* ---- one element of "tests" ---- */
#define FF_PF_TEST_FAMILY        "family"
#define FF_PF_TEST_NAME          "name"
#define FF_PF_TEST_IMPL          "impl"
#define FF_PF_TEST_PRECISION     "precision"
#define FF_PF_TEST_VARIANT       "variant"
#define FF_PF_TEST_SHAPE         "shape"
#define FF_PF_TEST_BYTES         "bytes"
#define FF_PF_TEST_STATUS        "status"
#define FF_PF_TEST_REASON        "reason"
#define FF_PF_TEST_VERIFIED      "verified"
#define FF_PF_TEST_ERROR         "error"
#define FF_PF_TEST_REPETITIONS   "repetitions"
#define FF_PF_TEST_DEVICE_TIME_S "device_time_s"
#define FF_PF_TEST_WALL_TIME_S   "wall_time_s"
#define FF_PF_TEST_VALUE         "value"
#define FF_PF_TEST_UNIT          "unit"
#define FF_PF_TEST_TUNING        "tuning" /* the tuning point the kernel was built with */

/* "shape" (matmul), "error" (a verified kernel), and the timing objects */
#define FF_PF_SHAPE_M         "m"
#define FF_PF_SHAPE_N         "n"
#define FF_PF_SHAPE_K         "k"
#define FF_PF_SHAPE_G         "g" /* op: attention/rope group */
#define FF_PF_ERROR_MAX_ABS   "max_abs"
#define FF_PF_ERROR_MAX_REL   "max_rel"
#define FF_PF_ERROR_TOLERANCE "tolerance"
#define FF_PF_TIME_MEDIAN     "median"
#define FF_PF_TIME_MIN        "min"
#define FF_PF_TIME_MAX        "max"
#define FF_PF_TUNING_POINT    "point"  /* "tm=6,tn=16,vw=8", an override's value, "default" */
#define FF_PF_TUNING_SOURCE   "source" /* FF_PF_TUNING_SOURCE_* */

/* Extra fields some families add to a test (bench/families/probe_memory.c, probe_bandwidth.c). */
#define FF_PF_TEST_REPORTED_BYTES    "reported_bytes"    /* memory/usable */
#define FF_PF_TEST_DIFFERENCE_BYTES  "difference_bytes"  /* memory/usable, may be < 0 */
#define FF_PF_TEST_CAP_BYTES         "cap_bytes"         /* memory/usable */
#define FF_PF_TEST_CAPPED            "capped"            /* memory/usable, boolean */
#define FF_PF_TEST_CHUNK_BYTES       "chunk_bytes"       /* memory/usable */
#define FF_PF_TEST_TIME_LIMITED      "time_limited"      /* memory/usable, boolean */
#define FF_PF_TEST_PROBE_S           "probe_s"           /* memory/usable */
#define FF_PF_TEST_LIMIT_BYTES_PER_S "limit_bytes_per_s" /* bandwidth */
#define FF_PF_TEST_SCOPE             "scope"             /* interconnect: intra_node, inter_node */
#define FF_PF_TEST_RANKS             "ranks"             /* interconnect: ranks taking part */
#define FF_PF_TEST_ALGBW_BYTES_PER_S "algbw_bytes_per_s" /* interconnect: bytes / time */
#define FF_PF_TEST_LATENCY_S         "latency_s"         /* interconnect: smallest-message time */
/* --concurrent: the figure measured while every device ran, and how many ran at once */
#define FF_PF_TEST_CONC_VALUE        "concurrent_value"
#define FF_PF_TEST_CONC_DEVICES      "concurrent_devices"
#define FF_PF_TEST_PEAK_FRACTION     "peak_fraction" /* matmul: value / the measured peak */
#define FF_PF_TEST_PEAK_OF_FP32      "peak_of_fp32"  /* matmul: that peak is fp32's, boolean */
#define FF_PF_TEST_PEAK_PAIRED       "peak_paired"   /* matmul: that peak, measured beside it */

/* ---- values of enumerated fields ---- */
#define FF_PF_STATUS_OK           "ok"
#define FF_PF_STATUS_UNSUPPORTED  "unsupported"
#define FF_PF_STATUS_FAILED       "failed"
#define FF_PF_FAMILY_MATMUL       "matmul"
#define FF_PF_FAMILY_MEMORY       "memory"
#define FF_PF_FAMILY_BANDWIDTH    "bandwidth"
#define FF_PF_FAMILY_TRANSFER     "transfer"
#define FF_PF_FAMILY_LATENCY      "latency"
#define FF_PF_FAMILY_PEAK         "peak"
#define FF_PF_FAMILY_INTERCONNECT "interconnect"
/* Operator tests: one kernel of a model step measured on the device. "weight_stream" (unit
 * B/s, precision the weight format): a decode GEMV streaming weights of that format, read
 * by the estimator as that format's fraction of the read bandwidth. */
#define FF_PF_FAMILY_OP           "op"
#define FF_PF_OP_WEIGHT_STREAM    "weight_stream"
/* The op tests of `flopfit bench --model M` (flopfit/ops.h, ff_op_kind_name): one kernel of the
 * model's step at the step's shape ("shape" m, n, k and for attention and rope g), "bytes"
 * ff_op_bytes, "value" B/s (FLOP/s or OP/s for gemm), the time in "device_time_s". */
#define FF_PF_OP_GEMM             "gemm"
#define FF_PF_OP_GEMV             "gemv"
#define FF_PF_OP_ATTN_DECODE      "attn_decode"
#define FF_PF_OP_ATTN_PREFILL     "attn_prefill"
#define FF_PF_OP_RMSNORM          "rmsnorm"
#define FF_PF_OP_ROPE             "rope"
#define FF_PF_OP_SWIGLU           "swiglu"
#define FF_PF_OP_ADD              "add"
#define FF_PF_OP_XENT             "xent"
/* The latency family's empty-kernel test: the device time of one launch, s. */
#define FF_PF_LATENCY_LAUNCH      "launch"
#define FF_PF_LATENCY_DISPATCH    "dispatch" /* what a launch adds in a dependent chain */
#define FF_PF_SCOPE_INTRA_NODE    "intra_node"
#define FF_PF_SCOPE_INTER_NODE    "inter_node"
#define FF_PF_UNIT_FLOPS          "FLOP/s"
#define FF_PF_UNIT_OPS            "OP/s"
#define FF_PF_UNIT_BYTES_PER_S    "B/s"
#define FF_PF_UNIT_BYTES          "B"
#define FF_PF_UNIT_SECONDS        "s"

/* values of "run"."kind" */
#define FF_PF_RUN_KIND_QUICK    "quick"    /* bench --quick */
#define FF_PF_RUN_KIND_STANDARD "standard" /* bench --standard */
#define FF_PF_RUN_KIND_FULL     "full"     /* a plain bench: every family, size and format */
#define FF_PF_RUN_KIND_CUSTOM   "custom"   /* anything else */

/* values of "tuning"."source" */
#define FF_PF_TUNING_SOURCE_TUNE     "tune"     /* tuned in this run */
#define FF_PF_TUNING_SOURCE_CACHE    "cache"    /* the tuning cache's entry */
#define FF_PF_TUNING_SOURCE_DEFAULT  "default"  /* the built-in default */
#define FF_PF_TUNING_SOURCE_OVERRIDE "override" /* a device option (--override, FF_*) */

/* Every field name above, once: X(macro) for each. */
#define FF_PF_FOREACH_FIELD(X)                                                                     \
    X(FF_PF_SCHEMA)                                                                                \
    X(FF_PF_SCHEMA_VERSION)                                                                        \
    X(FF_PF_TOOL)                                                                                  \
    X(FF_PF_CREATED)                                                                               \
    X(FF_PF_HOST)                                                                                  \
    X(FF_PF_DEVICE)                                                                                \
    X(FF_PF_COMPLETE)                                                                              \
    X(FF_PF_TESTS)                                                                                 \
    X(FF_PF_RUN)                                                                                   \
    X(FF_PF_CONTENT_HASH)                                                                          \
    X(FF_PF_RUN_KIND)                                                                              \
    X(FF_PF_RUN_ARGV)                                                                              \
    X(FF_PF_TOOL_NAME)                                                                             \
    X(FF_PF_TOOL_VERSION)                                                                          \
    X(FF_PF_TOOL_GIT)                                                                              \
    X(FF_PF_HOST_OS)                                                                               \
    X(FF_PF_HOST_KERNEL)                                                                           \
    X(FF_PF_HOST_CPU)                                                                              \
    X(FF_PF_HOST_CPUS)                                                                             \
    X(FF_PF_HOST_RAM_BYTES)                                                                        \
    X(FF_PF_DEVICE_BACKEND)                                                                        \
    X(FF_PF_DEVICE_PLATFORM)                                                                       \
    X(FF_PF_DEVICE_NAME)                                                                           \
    X(FF_PF_DEVICE_VENDOR)                                                                         \
    X(FF_PF_DEVICE_DRIVER_VERSION)                                                                 \
    X(FF_PF_DEVICE_API_VERSION)                                                                    \
    X(FF_PF_DEVICE_TYPE)                                                                           \
    X(FF_PF_DEVICE_COMPUTE_UNITS)                                                                  \
    X(FF_PF_DEVICE_CLOCK_MHZ)                                                                      \
    X(FF_PF_DEVICE_GLOBAL_MEM_BYTES)                                                               \
    X(FF_PF_DEVICE_MAX_ALLOC_BYTES)                                                                \
    X(FF_PF_DEVICE_BUDGET_BYTES)                                                                   \
    X(FF_PF_DEVICE_HOST_SHARED_MEMORY)                                                             \
    X(FF_PF_DEVICE_FEATURES)                                                                       \
    X(FF_PF_DEVICE_OVERRIDES)                                                                      \
    X(FF_PF_DEVICE_ID)                                                                             \
    X(FF_PF_FEATURE_FP16)                                                                          \
    X(FF_PF_FEATURE_INT8)                                                                          \
    X(FF_PF_FEATURE_INT8_DOT)                                                                      \
    X(FF_PF_FEATURE_COOPMAT)                                                                       \
    X(FF_PF_TEST_FAMILY)                                                                           \
    X(FF_PF_TEST_NAME)                                                                             \
    X(FF_PF_TEST_IMPL)                                                                             \
    X(FF_PF_TEST_PRECISION)                                                                        \
    X(FF_PF_TEST_VARIANT)                                                                          \
    X(FF_PF_TEST_SHAPE)                                                                            \
    X(FF_PF_TEST_BYTES)                                                                            \
    X(FF_PF_TEST_STATUS)                                                                           \
    X(FF_PF_TEST_REASON)                                                                           \
    X(FF_PF_TEST_VERIFIED)                                                                         \
    X(FF_PF_TEST_ERROR)                                                                            \
    X(FF_PF_TEST_REPETITIONS)                                                                      \
    X(FF_PF_TEST_DEVICE_TIME_S)                                                                    \
    X(FF_PF_TEST_WALL_TIME_S)                                                                      \
    X(FF_PF_TEST_VALUE)                                                                            \
    X(FF_PF_TEST_UNIT)                                                                             \
    X(FF_PF_TEST_TUNING)                                                                           \
    X(FF_PF_SHAPE_M)                                                                               \
    X(FF_PF_SHAPE_N)                                                                               \
    X(FF_PF_SHAPE_K)                                                                               \
    X(FF_PF_SHAPE_G)                                                                               \
    X(FF_PF_ERROR_MAX_ABS)                                                                         \
    X(FF_PF_ERROR_MAX_REL)                                                                         \
    X(FF_PF_ERROR_TOLERANCE)                                                                       \
    X(FF_PF_TIME_MEDIAN)                                                                           \
    X(FF_PF_TIME_MIN)                                                                              \
    X(FF_PF_TIME_MAX)                                                                              \
    X(FF_PF_TUNING_POINT)                                                                          \
    X(FF_PF_TUNING_SOURCE)                                                                         \
    X(FF_PF_TEST_REPORTED_BYTES)                                                                   \
    X(FF_PF_TEST_DIFFERENCE_BYTES)                                                                 \
    X(FF_PF_TEST_CAP_BYTES)                                                                        \
    X(FF_PF_TEST_CAPPED)                                                                           \
    X(FF_PF_TEST_CHUNK_BYTES)                                                                      \
    X(FF_PF_TEST_TIME_LIMITED)                                                                     \
    X(FF_PF_TEST_PROBE_S)                                                                          \
    X(FF_PF_TEST_LIMIT_BYTES_PER_S)                                                                \
    X(FF_PF_TEST_SCOPE)                                                                            \
    X(FF_PF_TEST_RANKS)                                                                            \
    X(FF_PF_TEST_ALGBW_BYTES_PER_S)                                                                \
    X(FF_PF_TEST_LATENCY_S)                                                                        \
    X(FF_PF_TEST_CONC_VALUE)                                                                       \
    X(FF_PF_TEST_CONC_DEVICES)                                                                     \
    X(FF_PF_TEST_PEAK_FRACTION)                                                                    \
    X(FF_PF_TEST_PEAK_OF_FP32)                                                                     \
    X(FF_PF_TEST_PEAK_PAIRED)

#endif
