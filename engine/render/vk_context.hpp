#pragma once
// Vulkan instance, physical/logical device, one graphics queue, debug names, validation.
//
// Validation: when enabled (debug builds, tests, --validation), every validation message of
// severity error is logged and counted; tests assert validation_errors() == 0.
#include <array>
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <vulkan/vulkan.h>

namespace vfx {

struct VkDeviceDesc {
    uint32_t index = 0;  // position in list_vk_devices(), what --vk-device takes
    std::string name;
    std::string driver;  // driver name + info when VK_KHR_driver_properties is there
    VkPhysicalDeviceType type = VK_PHYSICAL_DEVICE_TYPE_OTHER;
    uint32_t vendor_id = 0;
    uint32_t api_version = 0;
    std::array<uint8_t, 16> uuid{};      // deviceUUID, to pair with cl_khr_device_uuid
    bool external_memory_fd = false;     // VK_KHR_external_memory_fd
    bool external_semaphore_fd = false;  // VK_KHR_external_semaphore_fd
    bool external_memory_host = false;   // VK_EXT_external_memory_host
    bool swapchain = false;              // VK_KHR_swapchain

    std::string type_name() const;  // "discrete GPU", "CPU", ...
};

struct VkContextOptions {
    bool validation = false;
    std::vector<std::string> instance_extensions;  // e.g. what GLFW needs for a surface
    std::optional<uint32_t> device_index;          // --vk-device; default: prefer a GPU
    // Only devices with VK_KHR_swapchain are chosen; VK_KHR_surface is added to the instance.
    // (VK_KHR_swapchain is enabled whenever the device has it and the instance has
    // VK_KHR_surface, e.g. from instance_extensions.)
    bool need_swapchain = false;
    // With validation: also turn on the layer's synchronization validation (hazards between
    // commands, submissions and the host). Slower; tests of the render module use it.
    bool synchronization_validation = false;
};

// Preference among device types when nothing else decides: discrete 4, integrated 3,
// virtual 2, CPU 1, other 0.
int device_type_rank(VkPhysicalDeviceType t);

// Every physical device (via a short-lived instance); empty when no Vulkan driver is there.
std::vector<VkDeviceDesc> list_vk_devices();

// Validation messages of severity error seen by every VkContext of the process so far,
// including those reported while a context was being destroyed (leaked objects).
uint32_t total_validation_errors();

class VkContext {
public:
    // Creates the instance (with the validation layer and a debug messenger when asked and
    // available; absent layers are logged, not fatal), picks the device, creates the logical
    // device with one graphics+compute queue and enables every external memory/semaphore
    // extension the device has (the bridge decides which to use).
    explicit VkContext(const VkContextOptions& opts);
    ~VkContext();
    VkContext(const VkContext&) = delete;
    VkContext& operator=(const VkContext&) = delete;

    VkInstance instance() const { return instance_; }
    VkPhysicalDevice physical() const { return physical_; }
    VkDevice device() const { return device_; }
    VkQueue queue() const { return queue_; }
    uint32_t queue_family() const { return queue_family_; }
    const VkDeviceDesc& desc() const { return desc_; }
    const VkPhysicalDeviceProperties& properties() const { return props_; }
    const VkPhysicalDeviceMemoryProperties& memory_properties() const { return mem_props_; }
    bool validation_enabled() const { return validation_; }
    uint32_t api_version() const { return api_version_; }  // min(instance, device) version
    // Device extensions that were enabled on the logical device.
    const std::vector<std::string>& device_extensions() const { return device_extensions_; }
    bool has_device_extension(std::string_view name) const;
    // Timeline semaphores enabled (the Vulkan 1.2 feature; false on 1.1 devices).
    bool timeline_semaphores() const { return timeline_semaphores_; }
    // shaderStorageImageWriteWithoutFormat enabled (the renderer's compute video pass writes
    // its target, often BGRA, through an image without a format qualifier).
    bool storage_write_without_format() const { return storage_write_without_format_; }
    // Valid bits of timestamps on the queue (0: the queue cannot write timestamps).
    uint32_t timestamp_valid_bits() const { return timestamp_valid_bits_; }

    // Count of validation messages of severity error since creation.
    uint32_t validation_errors() const { return validation_errors_.load(); }

    // A memory type among `type_bits` with all of `flags`; throws GpuError when none.
    uint32_t memory_type(uint32_t type_bits, VkMemoryPropertyFlags flags) const;

    // Debug name for an object (VK_EXT_debug_utils); no-op when the extension is absent.
    void set_name(VkObjectType type, uint64_t handle, const char* name) const;
    template <typename T>
    void set_name(T handle, VkObjectType type, const char* name) const {
        set_name(type, reinterpret_cast<uint64_t>(handle), name);
    }

    // Device-level entry point (e.g. vkGetMemoryFdKHR); throws GpuError when absent.
    PFN_vkVoidFunction device_function(const char* name) const;
    PFN_vkVoidFunction instance_function(const char* name) const;

    // Host access synchronisation: the queue is used by the render thread only.
private:
    static VKAPI_ATTR VkBool32 VKAPI_CALL
    debug_callback(VkDebugUtilsMessageSeverityFlagBitsEXT, VkDebugUtilsMessageTypeFlagsEXT,
                   const VkDebugUtilsMessengerCallbackDataEXT*, void*);
    VkInstance instance_ = VK_NULL_HANDLE;
    VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
    VkPhysicalDevice physical_ = VK_NULL_HANDLE;
    VkDevice device_ = VK_NULL_HANDLE;
    VkQueue queue_ = VK_NULL_HANDLE;
    uint32_t queue_family_ = 0;
    VkDeviceDesc desc_;
    VkPhysicalDeviceProperties props_{};
    VkPhysicalDeviceMemoryProperties mem_props_{};
    bool validation_ = false;
    bool debug_utils_ = false;
    bool timeline_semaphores_ = false;
    bool storage_write_without_format_ = false;
    uint32_t api_version_ = 0;
    uint32_t timestamp_valid_bits_ = 0;
    std::vector<std::string> device_extensions_;
    PFN_vkSetDebugUtilsObjectNameEXT set_object_name_ = nullptr;
    std::atomic<uint32_t> validation_errors_{0};
};

}  // namespace vfx
