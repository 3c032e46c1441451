/*
 * backends/vulkan/vk_coopmat.h — VK_KHR_cooperative_matrix declarations for
 * Vulkan headers older than 1.3.255 (Debian 12 ships 1.3.239), taken from
 * the registry's numbers. With newer headers the real ones are used.
 */
#ifndef FF_VK_COOPMAT_H
#define FF_VK_COOPMAT_H

#include <vulkan/vulkan.h>

#ifndef VK_KHR_cooperative_matrix
#define VK_KHR_cooperative_matrix                1
#define VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME "VK_KHR_cooperative_matrix"

#define VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR                          \
    ((VkStructureType)1000506000)
#define VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_KHR ((VkStructureType)1000506001)
#define VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_PROPERTIES_KHR                        \
    ((VkStructureType)1000506002)

/* Same values as VkComponentTypeNV / VkScopeNV. */
typedef VkComponentTypeNV VkComponentTypeKHR;
typedef VkScopeNV VkScopeKHR;
#define VK_COMPONENT_TYPE_FLOAT16_KHR VK_COMPONENT_TYPE_FLOAT16_NV
#define VK_COMPONENT_TYPE_FLOAT32_KHR VK_COMPONENT_TYPE_FLOAT32_NV
#define VK_COMPONENT_TYPE_FLOAT64_KHR VK_COMPONENT_TYPE_FLOAT64_NV
#define VK_COMPONENT_TYPE_SINT8_KHR   VK_COMPONENT_TYPE_SINT8_NV
#define VK_COMPONENT_TYPE_SINT16_KHR  VK_COMPONENT_TYPE_SINT16_NV
#define VK_COMPONENT_TYPE_SINT32_KHR  VK_COMPONENT_TYPE_SINT32_NV
#define VK_COMPONENT_TYPE_SINT64_KHR  VK_COMPONENT_TYPE_SINT64_NV
#define VK_COMPONENT_TYPE_UINT8_KHR   VK_COMPONENT_TYPE_UINT8_NV
#define VK_COMPONENT_TYPE_UINT16_KHR  VK_COMPONENT_TYPE_UINT16_NV
#define VK_COMPONENT_TYPE_UINT32_KHR  VK_COMPONENT_TYPE_UINT32_NV
#define VK_COMPONENT_TYPE_UINT64_KHR  VK_COMPONENT_TYPE_UINT64_NV
#define VK_SCOPE_SUBGROUP_KHR         VK_SCOPE_SUBGROUP_NV

typedef struct VkCooperativeMatrixPropertiesKHR {
    VkStructureType sType;
    void *pNext;
    uint32_t MSize;
    uint32_t NSize;
    uint32_t KSize;
    VkComponentTypeKHR AType;
    VkComponentTypeKHR BType;
    VkComponentTypeKHR CType;
    VkComponentTypeKHR ResultType;
    VkBool32 saturatingAccumulation;
    VkScopeKHR scope;
} VkCooperativeMatrixPropertiesKHR;

typedef struct VkPhysicalDeviceCooperativeMatrixFeaturesKHR {
    VkStructureType sType;
    void *pNext;
    VkBool32 cooperativeMatrix;
    VkBool32 cooperativeMatrixRobustBufferAccess;
} VkPhysicalDeviceCooperativeMatrixFeaturesKHR;

typedef struct VkPhysicalDeviceCooperativeMatrixPropertiesKHR {
    VkStructureType sType;
    void *pNext;
    VkShaderStageFlags cooperativeMatrixSupportedStages;
} VkPhysicalDeviceCooperativeMatrixPropertiesKHR;

typedef VkResult(VKAPI_PTR *PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR)(
    VkPhysicalDevice physicalDevice, uint32_t *pPropertyCount,
    VkCooperativeMatrixPropertiesKHR *pProperties);
#endif

#endif
