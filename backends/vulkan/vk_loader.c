/*
 * backends/vulkan/vk_loader.c — load libvulkan at run time, create
 * instances, and count validation-layer errors.
 *
 * The three environment variables read here are loader-level, not tuning, and stay here on
 * purpose: FF_VK_LOADER (which libvulkan to dlopen; tests point it at a missing one),
 * FF_VK_VALIDATION (the Khronos validation layer) and FF_VK_FAULT (fault injection for tests).
 * They act before any device exists and never change a figure. Tuning overrides (tiles, kernel
 * path, timeout) are device options: backends/device_options.c reads their variables.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vk_internal.h"

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static PFN_vkGetInstanceProcAddr loader_gipa;
static char load_error[256];

static void load_loader(void)
{
    /* FF_VK_LOADER lets tests point at a missing library to exercise the
     * no-loader path. */
    const char *names[] = {getenv("FF_VK_LOADER"), "libvulkan.so.1", "libvulkan.so"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (!names[i] || !names[i][0])
            continue;
        void *lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (!lib) {
            snprintf(load_error, sizeof(load_error), "%s", dlerror());
            if (i == 0)
                break; /* an explicit FF_VK_LOADER is the only one tried */
            continue;
        }
        /* dlsym returns void *; POSIX guarantees the conversion works. */
        void *sym = dlsym(lib, "vkGetInstanceProcAddr");
        memcpy(&loader_gipa, &sym, sizeof(sym));
        if (loader_gipa)
            return;
        snprintf(load_error, sizeof(load_error), "%s has no vkGetInstanceProcAddr", names[i]);
        dlclose(lib);
    }
}

/* ---- validation messenger -------------------------------------------------- */

static atomic_uint_fast64_t validation_errors;
static atomic_bool validation_active;
static pthread_mutex_t last_lock = PTHREAD_MUTEX_INITIALIZER;
static char last_message[512];

uint64_t ff_vk_validation_errors(void)
{
    return atomic_load(&validation_errors);
}

void ff_vk_validation_reset(void)
{
    atomic_store(&validation_errors, 0);
    pthread_mutex_lock(&last_lock);
    last_message[0] = 0;
    pthread_mutex_unlock(&last_lock);
}

bool ff_vk_validation_active(void)
{
    return atomic_load(&validation_active);
}

void ff_vk_validation_last(char *buf, size_t len)
{
    if (!buf || !len)
        return;
    pthread_mutex_lock(&last_lock);
    snprintf(buf, len, "%s", last_message);
    pthread_mutex_unlock(&last_lock);
}

static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT sev,
                                                 VkDebugUtilsMessageTypeFlagsEXT types,
                                                 const VkDebugUtilsMessengerCallbackDataEXT *data,
                                                 void *user)
{
    (void)types;
    (void)user;
    if (sev & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) {
        atomic_fetch_add(&validation_errors, 1);
        pthread_mutex_lock(&last_lock);
        snprintf(last_message, sizeof(last_message), "%s",
                 data && data->pMessage ? data->pMessage : "(no message)");
        pthread_mutex_unlock(&last_lock);
    }
    return VK_FALSE;
}

static bool validation_requested(void)
{
    const char *v = getenv("FF_VK_VALIDATION");
    return v && v[0] && strcmp(v, "0") != 0;
}

/* ---- instance ---------------------------------------------------------------- */

static bool has_ext(const VkExtensionProperties *e, uint32_t n, const char *name)
{
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(e[i].extensionName, name) == 0)
            return true;
    return false;
}

static bool has_layer(const struct ffvk_fns *fn, const char *name)
{
    uint32_t n = 0;
    if (fn->vkEnumerateInstanceLayerProperties(&n, NULL) != VK_SUCCESS || n == 0)
        return false;
    VkLayerProperties *l = calloc(n, sizeof(*l));
    if (!l)
        return false;
    bool found = false;
    if (fn->vkEnumerateInstanceLayerProperties(&n, l) == VK_SUCCESS)
        for (uint32_t i = 0; i < n && !found; i++)
            found = strcmp(l[i].layerName, name) == 0;
    free(l);
    return found;
}

#define LOAD_FN(fn, inst, name) ((fn)->name = (PFN_##name)(fn)->vkGetInstanceProcAddr(inst, #name))

int ffvk_instance_create(struct ffvk_instance *inst, char *err, size_t errlen)
{
    memset(inst, 0, sizeof(*inst));
    pthread_once(&load_once, load_loader);
    if (!loader_gipa)
        return ff_errf(err, errlen, FF_ERR_NO_DEVICE,
                       "no Vulkan loader (%s); install libvulkan1 and a driver such as "
                       "mesa-vulkan-drivers",
                       load_error[0] ? load_error : "libvulkan.so.1 not found");
    struct ffvk_fns *fn = &inst->fn;
    fn->vkGetInstanceProcAddr = loader_gipa;
#define LOAD_GLOBAL(name) LOAD_FN(fn, VK_NULL_HANDLE, name);
    FFVK_GLOBAL_FNS(LOAD_GLOBAL)
#undef LOAD_GLOBAL
    if (!fn->vkCreateInstance || !fn->vkEnumerateInstanceExtensionProperties)
        return ff_errf(err, errlen, FF_ERR_NO_DEVICE, "the Vulkan loader is unusable");

    uint32_t version = VK_API_VERSION_1_0;
    if (fn->vkEnumerateInstanceVersion)
        fn->vkEnumerateInstanceVersion(&version);
    if (version < VK_API_VERSION_1_1)
        return ff_errf(err, errlen, FF_ERR_NO_DEVICE,
                       "the Vulkan loader supports only Vulkan %u.%u; flopfit needs 1.1 "
                       "(install a current libvulkan1)",
                       VK_API_VERSION_MAJOR(version), VK_API_VERSION_MINOR(version));

    uint32_t n_ext = 0;
    VkExtensionProperties *exts = NULL;
    if (fn->vkEnumerateInstanceExtensionProperties(NULL, &n_ext, NULL) == VK_SUCCESS && n_ext) {
        exts = calloc(n_ext, sizeof(*exts));
        if (!exts)
            return ff_errf(err, errlen, FF_ERR_NO_MEMORY, "out of host memory");
        if (fn->vkEnumerateInstanceExtensionProperties(NULL, &n_ext, exts) != VK_SUCCESS)
            n_ext = 0;
    }

    const char *ext_names[4];
    uint32_t n_names = 0;
    VkInstanceCreateFlags flags = 0;
    if (has_ext(exts, n_ext, "VK_KHR_portability_enumeration")) {
        ext_names[n_names++] = "VK_KHR_portability_enumeration";
        flags |= 0x00000001; /* VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR */
    }
    const char *layers[1];
    uint32_t n_layers = 0;
    bool debug_utils = false;
    if (validation_requested() && has_layer(fn, "VK_LAYER_KHRONOS_validation")) {
        layers[n_layers++] = "VK_LAYER_KHRONOS_validation";
        /* debug utils comes from the layer when the loader lacks it */
        ext_names[n_names++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
        debug_utils = true;
    }
    free(exts);

    VkApplicationInfo app = {
        .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
        .pApplicationName = "flopfit",
        .pEngineName = "flopfit",
        .apiVersion = version >= VK_API_VERSION_1_3 ? VK_API_VERSION_1_3 : version,
    };
    VkDebugUtilsMessengerCreateInfoEXT dbg = {
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
        .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT |
                           VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT,
        .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
        .pfnUserCallback = on_message,
    };
    VkInstanceCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
        /* chaining the messenger also catches errors of vkCreate/DestroyInstance */
        .pNext = debug_utils ? &dbg : NULL,
        .flags = flags,
        .pApplicationInfo = &app,
        .enabledLayerCount = n_layers,
        .ppEnabledLayerNames = layers,
        .enabledExtensionCount = n_names,
        .ppEnabledExtensionNames = ext_names,
    };
    VkResult r = fn->vkCreateInstance(&ci, NULL, &inst->instance);
    if (r == VK_ERROR_INCOMPATIBLE_DRIVER)
        return ff_errf(err, errlen, FF_ERR_NO_DEVICE,
                       "no Vulkan driver (VK_ERROR_INCOMPATIBLE_DRIVER); install "
                       "mesa-vulkan-drivers or your GPU vendor's driver");
    if (r != VK_SUCCESS)
        return ff_errf(err, errlen,
                       r == VK_ERROR_OUT_OF_HOST_MEMORY ? FF_ERR_NO_MEMORY : FF_ERR_NO_DEVICE,
                       "vkCreateInstance failed: %s", ffvk_result_str(r));

#define LOAD_INST(name) LOAD_FN(fn, inst->instance, name);
    FFVK_INSTANCE_FNS(LOAD_INST)
    FFVK_OPTIONAL_FNS(LOAD_INST)
#undef LOAD_INST
#define CHECK_INST(name)                                                                           \
    if (!fn->name) {                                                                               \
        ff_errf(err, errlen, FF_ERR_NO_DEVICE, "the Vulkan loader lacks %s", #name);               \
        goto error_instance;                                                                       \
    }
    FFVK_INSTANCE_FNS(CHECK_INST)
#undef CHECK_INST

    if (debug_utils && fn->vkCreateDebugUtilsMessengerEXT) {
        r = fn->vkCreateDebugUtilsMessengerEXT(inst->instance, &dbg, NULL, &inst->messenger);
        if (r == VK_SUCCESS) {
            inst->validation = true;
            atomic_store(&validation_active, true);
        }
    }
    return FF_OK;

error_instance:
    if (fn->vkDestroyInstance)
        fn->vkDestroyInstance(inst->instance, NULL);
    inst->instance = VK_NULL_HANDLE;
    return FF_ERR_NO_DEVICE;
}

void ffvk_instance_finish(struct ffvk_instance *inst)
{
    if (!inst->instance)
        return;
    if (inst->messenger && inst->fn.vkDestroyDebugUtilsMessengerEXT)
        inst->fn.vkDestroyDebugUtilsMessengerEXT(inst->instance, inst->messenger, NULL);
    inst->fn.vkDestroyInstance(inst->instance, NULL);
    memset(inst, 0, sizeof(*inst));
}

bool ffvk_fault(const char *name)
{
    const char *f = getenv("FF_VK_FAULT");
    if (!f || !*f)
        return false;
    size_t n = strlen(name);
    for (const char *p = f; (p = strstr(p, name)) != NULL; p += n)
        if ((p == f || p[-1] == ',') && (p[n] == 0 || p[n] == ','))
            return true;
    return false;
}

const char *ffvk_result_str(VkResult r)
{
    switch (r) {
    case VK_SUCCESS: return "VK_SUCCESS";
    case VK_NOT_READY: return "VK_NOT_READY";
    case VK_TIMEOUT: return "VK_TIMEOUT";
    case VK_INCOMPLETE: return "VK_INCOMPLETE";
    case VK_ERROR_OUT_OF_HOST_MEMORY: return "VK_ERROR_OUT_OF_HOST_MEMORY";
    case VK_ERROR_OUT_OF_DEVICE_MEMORY: return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
    case VK_ERROR_INITIALIZATION_FAILED: return "VK_ERROR_INITIALIZATION_FAILED";
    case VK_ERROR_DEVICE_LOST: return "VK_ERROR_DEVICE_LOST";
    case VK_ERROR_MEMORY_MAP_FAILED: return "VK_ERROR_MEMORY_MAP_FAILED";
    case VK_ERROR_LAYER_NOT_PRESENT: return "VK_ERROR_LAYER_NOT_PRESENT";
    case VK_ERROR_EXTENSION_NOT_PRESENT: return "VK_ERROR_EXTENSION_NOT_PRESENT";
    case VK_ERROR_FEATURE_NOT_PRESENT: return "VK_ERROR_FEATURE_NOT_PRESENT";
    case VK_ERROR_INCOMPATIBLE_DRIVER: return "VK_ERROR_INCOMPATIBLE_DRIVER";
    case VK_ERROR_TOO_MANY_OBJECTS: return "VK_ERROR_TOO_MANY_OBJECTS";
    case VK_ERROR_FORMAT_NOT_SUPPORTED: return "VK_ERROR_FORMAT_NOT_SUPPORTED";
    case VK_ERROR_FRAGMENTED_POOL: return "VK_ERROR_FRAGMENTED_POOL";
    case VK_ERROR_OUT_OF_POOL_MEMORY: return "VK_ERROR_OUT_OF_POOL_MEMORY";
    case VK_ERROR_INVALID_SHADER_NV: return "VK_ERROR_INVALID_SHADER_NV";
    case VK_ERROR_UNKNOWN: return "VK_ERROR_UNKNOWN";
    default: return "VkResult (other)";
    }
}

int ffvk_check(struct ffvk_device *d, VkResult r, const char *what, char *err, size_t errlen)
{
    if (r == VK_SUCCESS)
        return FF_OK;
    int status;
    switch (r) {
    case VK_ERROR_DEVICE_LOST:
        if (d)
            d->lost = true;
        status = FF_ERR_DEVICE_LOST;
        break;
    case VK_ERROR_OUT_OF_DEVICE_MEMORY:
    case VK_ERROR_TOO_MANY_OBJECTS:
    case VK_ERROR_OUT_OF_POOL_MEMORY: status = FF_ERR_DEVICE_MEMORY; break;
    case VK_ERROR_OUT_OF_HOST_MEMORY: status = FF_ERR_NO_MEMORY; break;
    case VK_TIMEOUT: status = FF_ERR_TIMEOUT; break;
    case VK_ERROR_INVALID_SHADER_NV: status = FF_ERR_BUILD; break;
    default: status = FF_ERR_DEVICE; break;
    }
    return ff_errf(err, errlen, status, "%s failed: %s (%d)", what, ffvk_result_str(r), (int)r);
}
