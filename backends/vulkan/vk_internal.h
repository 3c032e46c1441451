/*
 * backends/vulkan/vk_internal.h — shared between the Vulkan backend's files.
 *
 * The backend loads libvulkan.so.1 at run time (vk_loader.c) instead of
 * linking it: a machine without the Vulkan loader still runs flopfit and
 * gets FF_ERR_NO_DEVICE with the Debian packages to install. Every Vulkan
 * entry point therefore goes through the function table `ffvk`.
 *
 * Files, one job each:
 *   vk_loader.c    loader, function table, instance, validation messenger
 *   vk_device.c    open in steps: physical device, queue, logical device, device info
 *   vk_features.c  what a physical device offers (extensions, properties, features,
 *                  cooperative-matrix shapes) and the feature chain we enable
 *   vk_memory.c    buffers, staging, blocking copies, timed transfers
 *   vk_tuning.c    matmul path and tile tables per device, tuning overrides applied, the
 *                  matmul tuning space (ff_kernel_space) and its legality checks
 *   vk_pipeline.c  shader modules, specialization, dispatch size
 *   vk_ops.c       the transformer ops (gemv, attention, norms ...): texel views, pipelines
 *   vk_ops_tuning.c  the gemv and attention tuning spaces, defaults, legality checks
 *   vk_dispatch.c  command recording, submission, timestamp queries, timeouts
 *   vk_backend.c   struct ff_backend_ops
 */
#ifndef FF_VK_INTERNAL_H
#define FF_VK_INTERNAL_H

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

#include "backend_impl.h"
#include "vk_coopmat.h"

/* ---- function table ----------------------------------------------------- */

/* Entry points needed before an instance exists. */
#define FFVK_GLOBAL_FNS(X)                                                                         \
    X(vkCreateInstance)                                                                            \
    X(vkEnumerateInstanceExtensionProperties)                                                      \
    X(vkEnumerateInstanceLayerProperties)                                                          \
    X(vkEnumerateInstanceVersion)

/* Instance and device entry points (fetched through vkGetInstanceProcAddr). */
#define FFVK_INSTANCE_FNS(X)                                                                       \
    X(vkDestroyInstance)                                                                           \
    X(vkEnumeratePhysicalDevices)                                                                  \
    X(vkGetPhysicalDeviceProperties)                                                               \
    X(vkGetPhysicalDeviceProperties2)                                                              \
    X(vkGetPhysicalDeviceFeatures2)                                                                \
    X(vkGetPhysicalDeviceMemoryProperties)                                                         \
    X(vkGetPhysicalDeviceMemoryProperties2)                                                        \
    X(vkGetPhysicalDeviceQueueFamilyProperties)                                                    \
    X(vkEnumerateDeviceExtensionProperties)                                                        \
    X(vkCreateDevice)                                                                              \
    X(vkDestroyDevice)                                                                             \
    X(vkGetDeviceQueue)                                                                            \
    X(vkDeviceWaitIdle)                                                                            \
    X(vkCreateBuffer)                                                                              \
    X(vkDestroyBuffer)                                                                             \
    X(vkGetBufferMemoryRequirements)                                                               \
    X(vkAllocateMemory)                                                                            \
    X(vkFreeMemory)                                                                                \
    X(vkBindBufferMemory)                                                                          \
    X(vkMapMemory)                                                                                 \
    X(vkUnmapMemory)                                                                               \
    X(vkCreateCommandPool)                                                                         \
    X(vkDestroyCommandPool)                                                                        \
    X(vkAllocateCommandBuffers)                                                                    \
    X(vkResetCommandBuffer)                                                                        \
    X(vkBeginCommandBuffer)                                                                        \
    X(vkEndCommandBuffer)                                                                          \
    X(vkCmdCopyBuffer)                                                                             \
    X(vkCmdPipelineBarrier)                                                                        \
    X(vkCmdBindPipeline)                                                                           \
    X(vkCmdBindDescriptorSets)                                                                     \
    X(vkCmdPushConstants)                                                                          \
    X(vkCmdDispatch)                                                                               \
    X(vkCmdWriteTimestamp)                                                                         \
    X(vkCmdResetQueryPool)                                                                         \
    X(vkCreateQueryPool)                                                                           \
    X(vkDestroyQueryPool)                                                                          \
    X(vkGetQueryPoolResults)                                                                       \
    X(vkCreateFence)                                                                               \
    X(vkDestroyFence)                                                                              \
    X(vkResetFences)                                                                               \
    X(vkWaitForFences)                                                                             \
    X(vkQueueSubmit)                                                                               \
    X(vkCreateShaderModule)                                                                        \
    X(vkDestroyShaderModule)                                                                       \
    X(vkCreateDescriptorSetLayout)                                                                 \
    X(vkDestroyDescriptorSetLayout)                                                                \
    X(vkCreatePipelineLayout)                                                                      \
    X(vkDestroyPipelineLayout)                                                                     \
    X(vkCreateComputePipelines)                                                                    \
    X(vkDestroyPipeline)                                                                           \
    X(vkCreateDescriptorPool)                                                                      \
    X(vkDestroyDescriptorPool)                                                                     \
    X(vkAllocateDescriptorSets)                                                                    \
    X(vkUpdateDescriptorSets)                                                                      \
    X(vkCreateBufferView)                                                                          \
    X(vkDestroyBufferView)                                                                         \
    X(vkGetPhysicalDeviceFormatProperties)

/* Optional entry points: NULL when the extension is absent. */
#define FFVK_OPTIONAL_FNS(X)                                                                       \
    X(vkCreateDebugUtilsMessengerEXT)                                                              \
    X(vkDestroyDebugUtilsMessengerEXT)                                                             \
    X(vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR)                                           \
    X(vkGetPhysicalDeviceCooperativeMatrixPropertiesNV)

struct ffvk_fns {
    PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr;
#define FFVK_DECL(name) PFN_##name name;
    FFVK_GLOBAL_FNS(FFVK_DECL)
    FFVK_INSTANCE_FNS(FFVK_DECL)
    FFVK_OPTIONAL_FNS(FFVK_DECL)
#undef FFVK_DECL
};

/*
 * One Vulkan instance (with its own function table, since function pointers
 * fetched from an instance are only valid for it).
 */
struct ffvk_instance {
    VkInstance instance;
    struct ffvk_fns fn;
    VkDebugUtilsMessengerEXT messenger; /* only with FF_VK_VALIDATION=1 */
    bool validation;
};

int ffvk_instance_create(struct ffvk_instance *inst, char *err, size_t errlen);
void ffvk_instance_finish(struct ffvk_instance *inst);

/*
 * Validation-layer bookkeeping (FF_VK_VALIDATION=1): errors reported by the
 * Khronos validation layer through the debug-utils messenger, process-wide.
 */
uint64_t ff_vk_validation_errors(void);
/* Copies the last error message (empty when none) into buf. */
void ff_vk_validation_last(char *buf, size_t len);
/* Forget errors counted so far (tests that provoke one on purpose). */
void ff_vk_validation_reset(void);
/* True when the layer is really active in this process (env set and layer found). */
bool ff_vk_validation_active(void);

/* ---- device ------------------------------------------------------------ */

#define FFVK_MAX_COOPMAT 32

/* One supported cooperative-matrix shape (subgroup scope only). */
struct ffvk_coopmat_shape {
    uint32_t m, n, k;
    VkComponentTypeKHR a, b, c, result;
};

struct ffvk_device {
    struct ff_device base;
    struct ffvk_instance inst;
    const struct ffvk_fns *fn; /* = &inst.fn */
    VkPhysicalDevice phys;
    VkDevice dev;
    VkQueue queue;
    uint32_t queue_family;
    VkCommandPool pool;
    VkCommandBuffer cmd;
    VkFence fence;
    VkQueryPool timestamps;  /* 2 queries; VK_NULL_HANDLE when unsupported */
    uint64_t timestamp_mask; /* respects timestampValidBits */
    double timestamp_period_ns;

    VkPhysicalDeviceProperties props;
    VkPhysicalDeviceMemoryProperties mem;
    uint32_t type_device;  /* memory type for ff_buf */
    uint32_t type_staging; /* host-visible, coherent */
    uint32_t subgroup_size;
    bool subgroup_arith;   /* subgroup arithmetic (subgroupAdd ...) in compute shaders */
    bool subgroup_shuffle; /* ... and shuffles and votes (subgroupShuffle, subgroupAny) */
    uint64_t max_storage_range;

    bool storage16, storage8, float16, int8;
    bool coopmat_khr, coopmat_nv; /* extension + feature enabled */
    bool vulkan_memory_model;     /* enabled (the coopmat SPIR-V declares it) */
    uint32_t n_coopmat;
    struct ffvk_coopmat_shape coopmat[FFVK_MAX_COOPMAT];

    /* Reusable staging buffer for blocking reads and writes. */
    VkBuffer staging;
    VkDeviceMemory staging_mem;
    void *staging_map;
    uint64_t staging_bytes;

    bool lost;      /* a device-lost error (or an endless timeout) was seen */
    bool abandoned; /* a submission never finished: leak its objects, never free them */
};

/* What a physical device offers, gathered once per open (vk_features.c). */
struct ffvk_caps {
    bool v12; /* Vulkan 1.2 core: the extensions below need not be named */
    /* extensions, or the core version that holds them */
    bool storage8, f16i8, budget, coop_khr, coop_nv, dot, driver_props, vmm;
    VkPhysicalDeviceDriverProperties drv; /* valid when driver_props */
    uint64_t max_alloc_bytes;             /* maxMemoryAllocationSize; 0 = not reported */
    bool dot_feature;                     /* shaderIntegerDotProduct */
    bool dot_accel;                       /* ... and 4x8-bit packed signed is accelerated */
};

/*
 * Query extensions, properties and features of d->phys (d->props already read) into *c and
 * the capability flags of d (storage16/8, float16, int8, coopmat_*, vulkan_memory_model,
 * subgroup_size, max_storage_range, coopmat shapes).
 */
int ffvk_query_caps(struct ffvk_device *d, struct ffvk_caps *c, char *err, size_t errlen);

/* The features and extensions the logical device is created with. */
struct ffvk_enable {
    VkPhysicalDeviceFeatures2 features; /* head of the chain: VkDeviceCreateInfo.pNext */
    VkPhysicalDevice16BitStorageFeatures s16;
    VkPhysicalDevice8BitStorageFeatures s8;
    VkPhysicalDeviceShaderFloat16Int8Features f16i8;
    VkPhysicalDeviceCooperativeMatrixFeaturesKHR coop_khr;
    VkPhysicalDeviceCooperativeMatrixFeaturesNV coop_nv;
    VkPhysicalDeviceVulkanMemoryModelFeatures vmm;
    const char *names[8];
    uint32_t n_names;
};

/* Fill *e in place (its chain points into itself: do not copy it). */
void ffvk_enable_init(struct ffvk_enable *e, const struct ffvk_device *d,
                      const struct ffvk_caps *c);

struct ffvk_buf {
    struct ff_buf base;
    VkBuffer buf;
    VkDeviceMemory mem;
};

/* ---- matmul tuning (vk_tuning.c) --------------------------------------- */

/* Register-blocked matmul (matmul.comp): rows x vec4-columns per invocation and the
 * work-group shape. */
struct ffvk_mm_tiles {
    uint32_t tm, tn4, wx, wy;
};

/* Shared-memory matmul (matmul_shared.comp): C tile per work-group (bm x bn), k-slab bk,
 * register block per invocation (tm x tn); the work-group has (bm/tm)*(bn/tn) invocations. */
struct ffvk_sh_tiles {
    uint32_t bm, bn, bk, tm, tn;
    const char *name; /* table entry ("nvidia" ...) or "env" for a numeric override */
};

enum ffvk_mm_path { FFVK_MM_STORAGE, FFVK_MM_TEXEL, FFVK_MM_SHARED };

/* Everything a matmul build needs, resolved once (ffvk_mm_resolve): the path, its tiles, and
 * for the register paths whether A is shared over a subgroup of sg lanes (0: not shared). */
struct ffvk_mm_config {
    enum ffvk_mm_path path;
    bool aligned;            /* K and N multiples of 4: vec4 loads and stores */
    struct ffvk_mm_tiles t;  /* register paths */
    struct ffvk_sh_tiles sh; /* shared path */
    uint32_t sg;
    bool from_point; /* built from desc->tune (else tables and device options) */
};

/* Register tiles for this device (table or vk_tiles), inside its work-group limits. */
struct ffvk_mm_tiles ffvk_pick_tiles(const struct ffvk_device *d, enum ff_precision prec);

/* Tuning spaces (ff_kernel_space): the dispatch by kernel id (vk_space.c), the matmul space
 * (vk_tuning.c) and the bandwidth kernels' space (vk_mem_tuning.c). */
int ffvk_kernel_space(struct ff_device *dev, const struct ff_kernel_desc *desc,
                      struct ff_tune_space *out, uint64_t *source_hash, char *err, size_t errlen);
int ffvk_point_check(struct ff_device *dev, const struct ff_kernel_desc *desc, char *err,
                     size_t errlen);
int ffvk_matmul_space(const struct ffvk_device *d, const struct ff_kernel_desc *desc,
                      struct ff_tune_space *out, uint64_t *source_hash, char *err, size_t errlen);
int ffvk_matmul_point_check(const struct ffvk_device *d, const struct ff_kernel_desc *desc,
                            char *err, size_t errlen);
int ffvk_mem_space(const struct ffvk_device *d, const struct ff_kernel_desc *desc,
                   struct ff_tune_space *out, uint64_t *source_hash, char *err, size_t errlen);
int ffvk_mem_point_check(const struct ffvk_device *d, const struct ff_kernel_desc *desc, char *err,
                         size_t errlen);
/* The bandwidth kernels' built-in point for n words, and the work-groups a point dispatches
 * (vk_mem_tuning.c; parameters vw, epi, layout, wg). */
void ffvk_mem_default(const struct ffvk_device *d, enum ff_kernel_id id, uint32_t n,
                      struct ff_tune_point *p);
VkFormat ffvk_mem_texel_format(uint32_t vw);
uint64_t ffvk_mem_groups(const struct ff_tune_point *p, uint32_t n);
/* Which kernel runs desc (default per device kind or vk_matmul_path); *sh gets the shared
 * tiles when the answer is FFVK_MM_SHARED. */
enum ffvk_mm_path ffvk_pick_path(const struct ffvk_device *d, const struct ff_kernel_desc *desc,
                                 bool aligned, struct ffvk_sh_tiles *sh);
/* The matmul build for desc: desc->tune when given (checked with ffvk_matmul_point_check),
 * else the tables and device options. *point gets the point of the space it is (n == 0 when a
 * device option chose tiles outside the space). */
int ffvk_mm_resolve(const struct ffvk_device *d, const struct ff_kernel_desc *desc,
                    struct ffvk_mm_config *cfg, struct ff_tune_point *point, char *err,
                    size_t errlen);
/* Texel-buffer format holding 4 consecutive elements of A or B. */
VkFormat ffvk_texel_format(enum ff_precision prec);
/* The SPIR-V of a matmul kernel (vk_pipeline.c): path, precision, A shared over the subgroup
 * (register paths); *bytes its size. */
const uint32_t *ffvk_mm_code(enum ff_precision prec, enum ffvk_mm_path path, bool sga,
                             size_t *bytes);
uint32_t ffvk_sh_invocations(const struct ffvk_sh_tiles *t);
/* Shared memory the tiles use (two slabs, widened to 16-byte vec4s). */
uint64_t ffvk_sh_bytes(const struct ffvk_sh_tiles *t);

/* A compute pipeline for one kernel description. */
#define FFVK_MAX_OWN 2
struct ffvk_kernel {
    struct ff_kernel base;
    VkShaderModule module;
    VkDescriptorSetLayout set_layout;
    VkPipelineLayout layout;
    VkPipeline pipeline;
    VkDescriptorPool desc_pool;
    VkDescriptorSet set;
    uint32_t groups[3];               /* dispatch size */
    uint32_t push_words;              /* push-constant words (<= 4) */
    uint32_t push[4];                 /* fixed words, params copied in per run */
    uint32_t n_fixed_push;            /* leading push words set at create time */
    uint64_t need_bytes[FF_MAX_BUFS]; /* bytes each binding reads (texel views' range) */
    VkFormat texel_format;            /* != UNDEFINED: bindings 0, 1 are texel buffers */
    /* Op kernels: binding i is a uniform texel buffer viewed in this format (UNDEFINED: a
     * storage buffer), bound over need_bytes[i] (views and storage ranges alike). */
    VkFormat bind_fmt[FF_MAX_BUFS];
    bool exact_ranges; /* bind need_bytes[i], not the whole buffer */
    /* Storage buffers the kernel keeps for itself, bound after the caller's (decode
     * attention's parts: their partials and counts). */
    struct ff_buf *own[FFVK_MAX_OWN];
    uint32_t n_own;
};

/* The descriptor type of binding i: its texel format, or UNDEFINED for a storage buffer. */
VkFormat ffvk_binding_format(const struct ffvk_kernel *k, uint32_t i);
/* Shader module, set layout (per ffvk_binding_format), pipeline with n_spec 32-bit
 * specialization constants (ids 0..n_spec-1), one descriptor set (vk_pipeline.c). */
int ffvk_build(struct ffvk_device *d, struct ffvk_kernel *k, const uint32_t *code, size_t bytes,
               uint32_t n_bufs, uint32_t push_words, const uint32_t *spec, uint32_t n_spec,
               char *err, size_t errlen);
uint32_t ffvk_div_up(uint64_t a, uint64_t b);
/* k->groups against the device's work-group count limits. */
int ffvk_check_groups(const struct ffvk_device *d, const struct ffvk_kernel *k, char *err,
                      size_t errlen);

/* ---- the transformer ops (vk_ops.c, vk_ops_tuning.c) ---------------------- */

/* Build an op kernel (ff_kernel_is_op(desc->id)). */
int ffvk_op_create(struct ffvk_device *d, struct ffvk_kernel *k, const struct ff_kernel_desc *desc,
                   char *err, size_t errlen);
int ffvk_op_space(const struct ffvk_device *d, const struct ff_kernel_desc *desc,
                  struct ff_tune_space *out, uint64_t *source_hash, char *err, size_t errlen);
int ffvk_op_point_check(const struct ffvk_device *d, const struct ff_kernel_desc *desc, char *err,
                        size_t errlen);
/* The point an op kernel builds when given none (ops with a space; n == 0 otherwise). */
void ffvk_op_default(const struct ffvk_device *d, const struct ff_kernel_desc *desc,
                     struct ff_tune_point *p);
/* The smallest subgroup a pipeline may get, and the most subgroups a work-group of wg has. */
uint32_t ffvk_op_min_subgroup(const struct ffvk_device *d);
uint32_t ffvk_op_subgroups(const struct ffvk_device *d, uint32_t wg);
/* The SPIR-V of desc's op in desc's format (NULL when there is none); *bytes its size. */
/* The head dims the attention shaders are compiled for (their arrays), at most. */
#define FFVK_ATTN_MAX_D 256
/* Which attention build runs head dim desc->k: 0 and 1 the wide ones (uvec4 texels, the head
 * dim unrolled, up to 128 and 256), 2 the generic one (one element per texel). vk_ops_code.c */
int ffvk_attn_build(const struct ff_kernel_desc *desc);
/* The point's values across the lanes (the decode tuning space's vl=1, ops_attn.comp's
 * FF_VLANES builds; FFVK_DECODE_VL: vl's index in that space, vk_ops_tuning.c). */
#define FFVK_DECODE_VL 2
bool ffvk_attn_vlanes(const struct ff_tune_point *p);
/* The point's work-groups per group of query rows (decode's parts; 1 otherwise). */
uint32_t ffvk_attn_parts(const struct ff_tune_point *p);
const uint32_t *ffvk_op_code(const struct ff_kernel_desc *desc, size_t *bytes);

static inline struct ffvk_device *ffvk_dev(struct ff_device *d)
{
    return (struct ffvk_device *)d;
}

int ffvk_device_count(uint32_t *count, char *err, size_t errlen);
int ffvk_device_open(uint32_t index, struct ff_device **out, char *err, size_t errlen);
void ffvk_device_destroy(struct ff_device *dev);

int ffvk_buf_create(struct ff_device *dev, uint64_t bytes, struct ff_buf **out, char *err,
                    size_t errlen);
void ffvk_buf_destroy(struct ff_buf *buf);
int ffvk_buf_write(struct ff_buf *buf, uint64_t offset, const void *src, uint64_t bytes, char *err,
                   size_t errlen);
int ffvk_buf_read(struct ff_buf *buf, uint64_t offset, void *dst, uint64_t bytes, char *err,
                  size_t errlen);
int ffvk_buf_transfer_timed(struct ff_buf *buf, enum ff_xfer kind, void *host, uint64_t bytes,
                            uint64_t *ns, char *err, size_t errlen);
/* Allocate a buffer + memory of a memory type; used for ff_buf and staging. */
int ffvk_alloc(struct ffvk_device *d, uint64_t bytes, uint32_t type, VkBuffer *buf,
               VkDeviceMemory *mem, char *err, size_t errlen);

int ffvk_kernel_create(struct ff_device *dev, const struct ff_kernel_desc *desc,
                       struct ff_kernel **out, char *err, size_t errlen);
void ffvk_kernel_destroy(struct ff_kernel *k);
int ffvk_kernel_run(struct ff_kernel *k, struct ff_buf *const *bufs, size_t n_bufs,
                    const uint32_t *params, size_t n_params, uint64_t *device_ns, uint64_t *wall_ns,
                    char *err, size_t errlen);
/* `count` dispatches in one submission, each after a barrier on the previous one's writes. */
int ffvk_kernel_run_chain(struct ff_kernel *k, struct ff_buf *const *bufs, size_t n_bufs,
                          const uint32_t *params, size_t n_params, uint32_t count,
                          uint64_t *device_ns, uint64_t *wall_ns, char *err, size_t errlen);

/*
 * Test/benchmark hook: build the simple 8x8 register-tiled fp32 matmul kept
 * as a baseline (not reachable through the public interface). Runs like
 * FF_KERNEL_MATMUL (bufs A, B, C; params m, n, k).
 */
int ff_vk_kernel_create_baseline(struct ff_device *dev, uint32_t m, uint32_t n, uint32_t k,
                                 struct ff_kernel **out, char *err, size_t errlen);

/* ---- command submission (vk_dispatch.c) -------------------------------- */

/* Reset and begin the device's command buffer, with a full barrier first. */
int ffvk_cmd_begin(struct ffvk_device *d, char *err, size_t errlen);
/* End, submit, wait; *wall_ns (may be NULL) = submit to fence signalled. */
int ffvk_cmd_submit_wait(struct ffvk_device *d, uint64_t *wall_ns, char *err, size_t errlen);

/*
 * Fault injection for tests: FF_VK_FAULT=<name>[,<name>...] makes the named
 * step fail as a driver would ("oom": allocations return
 * VK_ERROR_OUT_OF_DEVICE_MEMORY, "pipeline": pipeline creation fails,
 * "lost": submissions return VK_ERROR_DEVICE_LOST).
 */
bool ffvk_fault(const char *name);

/* Map a VkResult to an ff_status with a reason naming `what`. */
int ffvk_check(struct ffvk_device *d, VkResult r, const char *what, char *err, size_t errlen);
const char *ffvk_result_str(VkResult r);

#endif
