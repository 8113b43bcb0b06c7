#include "render/vk_context.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstring>

#include "core/error.hpp"
#include "render/vk_check.hpp"

namespace vfx {

namespace {

std::atomic<uint32_t> g_validation_errors{0};

constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";
constexpr uint32_t kMaxApi = VK_API_VERSION_1_3;
constexpr uint32_t kMinApi = VK_API_VERSION_1_1;

// The device extensions we enable wherever the device has them (their dependencies,
// VK_KHR_external_memory and VK_KHR_external_semaphore, are core in Vulkan 1.1).
constexpr const char* kOptionalDeviceExtensions[] = {
    VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME,
    VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME,
    VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME,
    VK_KHR_SWAPCHAIN_EXTENSION_NAME,
};

std::vector<VkExtensionProperties> instance_extensions(const char* layer) {
    uint32_t n = 0;
    if (vkEnumerateInstanceExtensionProperties(layer, &n, nullptr) != VK_SUCCESS) return {};
    std::vector<VkExtensionProperties> v(n);
    if (vkEnumerateInstanceExtensionProperties(layer, &n, v.data()) != VK_SUCCESS) return {};
    v.resize(n);
    return v;
}

std::vector<VkExtensionProperties> enumerate_device_extensions(VkPhysicalDevice pd) {
    uint32_t n = 0;
    VFX_VK(vkEnumerateDeviceExtensionProperties(pd, nullptr, &n, nullptr));
    std::vector<VkExtensionProperties> v(n);
    VFX_VK(vkEnumerateDeviceExtensionProperties(pd, nullptr, &n, v.data()));
    v.resize(n);
    return v;
}

bool has_ext(const std::vector<VkExtensionProperties>& exts, std::string_view name) {
    return std::any_of(exts.begin(), exts.end(),
                       [&](const VkExtensionProperties& e) { return name == e.extensionName; });
}

bool has_layer(const char* name) {
    uint32_t n = 0;
    if (vkEnumerateInstanceLayerProperties(&n, nullptr) != VK_SUCCESS) return false;
    std::vector<VkLayerProperties> v(n);
    if (vkEnumerateInstanceLayerProperties(&n, v.data()) != VK_SUCCESS) return false;
    v.resize(n);
    return std::any_of(v.begin(), v.end(), [&](const VkLayerProperties& l) {
        return std::strcmp(l.layerName, name) == 0;
    });
}

uint32_t loader_version() {
    uint32_t v = VK_API_VERSION_1_0;
    if (vkEnumerateInstanceVersion(&v) != VK_SUCCESS) v = VK_API_VERSION_1_0;
    return v;
}

std::string version_string(uint32_t v) {
    return fmt::format("{}.{}.{}", VK_API_VERSION_MAJOR(v), VK_API_VERSION_MINOR(v),
                       VK_API_VERSION_PATCH(v));
}

// First queue family with graphics and compute; nullopt when none.
std::optional<uint32_t> graphics_family(VkPhysicalDevice pd, uint32_t* timestamp_bits) {
    uint32_t n = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, nullptr);
    std::vector<VkQueueFamilyProperties> fams(n);
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, fams.data());
    for (uint32_t i = 0; i < n; ++i) {
        const VkQueueFlags need = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
        if ((fams[i].queueFlags & need) == need && fams[i].queueCount > 0) {
            if (timestamp_bits) *timestamp_bits = fams[i].timestampValidBits;
            return i;
        }
    }
    return std::nullopt;
}

VkDeviceDesc describe(VkPhysicalDevice pd, uint32_t index, uint32_t instance_version) {
    VkDeviceDesc d;
    d.index = index;
    VkPhysicalDeviceProperties props{};
    vkGetPhysicalDeviceProperties(pd, &props);
    d.name = props.deviceName;
    d.type = props.deviceType;
    d.vendor_id = props.vendorID;
    d.api_version = props.apiVersion;
    d.driver = fmt::format("driver version {:#x}", props.driverVersion);

    std::vector<VkExtensionProperties> exts = enumerate_device_extensions(pd);
    d.external_memory_fd = has_ext(exts, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
    d.external_semaphore_fd = has_ext(exts, VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME);
    d.external_memory_host = has_ext(exts, VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME);
    d.swapchain = has_ext(exts, VK_KHR_SWAPCHAIN_EXTENSION_NAME);

    if (instance_version >= VK_API_VERSION_1_1 && props.apiVersion >= VK_API_VERSION_1_1) {
        VkPhysicalDeviceIDProperties id{};
        id.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES;
        VkPhysicalDeviceDriverProperties drv{};
        drv.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES;
        const bool driver_props = props.apiVersion >= VK_API_VERSION_1_2 ||
                                  has_ext(exts, VK_KHR_DRIVER_PROPERTIES_EXTENSION_NAME);
        if (driver_props) id.pNext = &drv;
        VkPhysicalDeviceProperties2 p2{};
        p2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
        p2.pNext = &id;
        vkGetPhysicalDeviceProperties2(pd, &p2);
        std::copy(std::begin(id.deviceUUID), std::end(id.deviceUUID), d.uuid.begin());
        if (driver_props) d.driver = fmt::format("{} {}", drv.driverName, drv.driverInfo);
    }
    return d;
}

std::vector<VkPhysicalDevice> physical_devices(VkInstance instance) {
    uint32_t n = 0;
    VFX_VK(vkEnumeratePhysicalDevices(instance, &n, nullptr));
    std::vector<VkPhysicalDevice> v(n);
    if (n > 0) VFX_VK(vkEnumeratePhysicalDevices(instance, &n, v.data()));
    v.resize(n);
    return v;
}

}  // namespace

std::string VkDeviceDesc::type_name() const {
    switch (type) {
        case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
            return "discrete GPU";
        case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
            return "integrated GPU";
        case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
            return "virtual GPU";
        case VK_PHYSICAL_DEVICE_TYPE_CPU:
            return "CPU";
        default:
            return "other";
    }
}

uint32_t total_validation_errors() {
    return g_validation_errors.load();
}

int device_type_rank(VkPhysicalDeviceType t) {
    switch (t) {
        case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
            return 4;
        case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
            return 3;
        case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
            return 2;
        case VK_PHYSICAL_DEVICE_TYPE_CPU:
            return 1;
        default:
            return 0;
    }
}

std::vector<VkDeviceDesc> list_vk_devices() {
    const uint32_t version = std::min(loader_version(), kMaxApi);
    VkApplicationInfo app{};
    app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
    app.pApplicationName = "vfx device list";
    app.apiVersion = version;
    VkInstanceCreateInfo ci{};
    ci.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    ci.pApplicationInfo = &app;
    VkInstance instance = VK_NULL_HANDLE;
    const VkResult r = vkCreateInstance(&ci, nullptr, &instance);
    if (r != VK_SUCCESS) {
        // VK_ERROR_INCOMPATIBLE_DRIVER: no driver at all, the usual "no Vulkan here".
        if (r == VK_ERROR_INCOMPATIBLE_DRIVER) {
            spdlog::debug("list_vk_devices: vkCreateInstance: {}", vk_result_name(r));
        } else {
            spdlog::warn("list_vk_devices: vkCreateInstance failed: {}", vk_result_name(r));
        }
        return {};
    }
    std::vector<VkDeviceDesc> out;
    try {
        std::vector<VkPhysicalDevice> pds = physical_devices(instance);
        for (uint32_t i = 0; i < pds.size(); ++i)
            out.push_back(describe(pds[i], i, version));
    } catch (...) {
        vkDestroyInstance(instance, nullptr);
        throw;
    }
    vkDestroyInstance(instance, nullptr);
    return out;
}

VkContext::VkContext(const VkContextOptions& opts) {
    const uint32_t loader = loader_version();
    if (loader < kMinApi) {
        throw GpuError(
            fmt::format("Vulkan loader {} is too old (1.1 needed)", version_string(loader)),
            VK_ERROR_INCOMPATIBLE_DRIVER);
    }
    const uint32_t instance_version = std::min(loader, kMaxApi);

    // --- instance: extensions, layers ---
    std::vector<const char*> layers;
    std::vector<const char*> exts;
    const std::vector<VkExtensionProperties> available = instance_extensions(nullptr);
    for (const std::string& e : opts.instance_extensions) {
        if (!has_ext(available, e)) {
            std::string msg = fmt::format("Vulkan instance extension {} is not available", e);
            spdlog::error("{}", msg);
            throw GpuError(std::move(msg), VK_ERROR_EXTENSION_NOT_PRESENT);
        }
        exts.push_back(e.c_str());
    }
    bool validation_features = false;
    if (opts.validation) {
        if (has_layer(kValidationLayer)) {
            layers.push_back(kValidationLayer);
            validation_ = true;
            validation_features = opts.synchronization_validation &&
                                  has_ext(instance_extensions(kValidationLayer),
                                          VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
            if (opts.synchronization_validation && !validation_features) {
                spdlog::warn(
                    "Vulkan: VK_EXT_validation_features is absent; "
                    "synchronization validation stays off");
            }
        } else {
            spdlog::warn("Vulkan: validation asked for but {} is not installed; running without",
                         kValidationLayer);
        }
    }
    debug_utils_ = has_ext(available, VK_EXT_DEBUG_UTILS_EXTENSION_NAME) ||
                   (validation_ && has_ext(instance_extensions(kValidationLayer),
                                           VK_EXT_DEBUG_UTILS_EXTENSION_NAME));
    auto add_ext = [&](const char* name) {
        if (std::none_of(exts.begin(), exts.end(),
                         [&](const char* e) { return std::strcmp(e, name) == 0; })) {
            exts.push_back(name);
        }
    };
    if (debug_utils_) add_ext(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    if (opts.need_swapchain && has_ext(available, VK_KHR_SURFACE_EXTENSION_NAME)) {
        add_ext(VK_KHR_SURFACE_EXTENSION_NAME);
    }
    // VK_KHR_swapchain needs VK_KHR_surface on the instance.
    const bool surface = std::any_of(exts.begin(), exts.end(), [](const char* e) {
        return std::strcmp(e, VK_KHR_SURFACE_EXTENSION_NAME) == 0;
    });
    if (validation_features) add_ext(VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);

    VkApplicationInfo app{};
    app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
    app.pApplicationName = "vfx";
    app.applicationVersion = VK_MAKE_API_VERSION(0, 0, 1, 0);
    app.pEngineName = "vfx";
    app.engineVersion = VK_MAKE_API_VERSION(0, 0, 1, 0);
    app.apiVersion = instance_version;

    VkDebugUtilsMessengerCreateInfoEXT mci{};
    mci.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT;
    mci.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                          VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    mci.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                      VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                      VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    mci.pfnUserCallback = &VkContext::debug_callback;
    mci.pUserData = this;

    const VkValidationFeatureEnableEXT enables[] = {
        VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
    VkValidationFeaturesEXT vf{};
    vf.sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT;
    vf.enabledValidationFeatureCount = 1;
    vf.pEnabledValidationFeatures = enables;

    VkInstanceCreateInfo ici{};
    ici.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    ici.pApplicationInfo = &app;
    ici.enabledLayerCount = static_cast<uint32_t>(layers.size());
    ici.ppEnabledLayerNames = layers.data();
    ici.enabledExtensionCount = static_cast<uint32_t>(exts.size());
    ici.ppEnabledExtensionNames = exts.data();
    const void* chain = nullptr;
    if (validation_ && debug_utils_) {
        mci.pNext = chain;
        chain = &mci;  // also reports problems of vkCreateInstance / vkDestroyInstance
    }
    if (validation_features) {
        vf.pNext = chain;
        chain = &vf;
    }
    ici.pNext = chain;
    VFX_VK(vkCreateInstance(&ici, nullptr, &instance_));

    try {
        if (validation_ && debug_utils_) {
            auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
                vkGetInstanceProcAddr(instance_, "vkCreateDebugUtilsMessengerEXT"));
            mci.pNext = nullptr;
            if (create) VFX_VK(create(instance_, &mci, nullptr, &messenger_));
        }
        if (debug_utils_) {
            set_object_name_ = reinterpret_cast<PFN_vkSetDebugUtilsObjectNameEXT>(
                vkGetInstanceProcAddr(instance_, "vkSetDebugUtilsObjectNameEXT"));
        }

        // --- physical device ---
        std::vector<VkPhysicalDevice> pds = physical_devices(instance_);
        if (pds.empty()) {
            spdlog::error("Vulkan: no physical device");
            throw GpuError("Vulkan: no physical device", VK_ERROR_INITIALIZATION_FAILED);
        }
        std::optional<uint32_t> chosen;
        if (opts.device_index) {
            if (*opts.device_index >= pds.size()) {
                fail("--vk-device {} does not exist ({} Vulkan device(s); see --list-devices)",
                     *opts.device_index, pds.size());
            }
            chosen = *opts.device_index;
        } else {
            int best = -1;
            for (uint32_t i = 0; i < pds.size(); ++i) {
                VkDeviceDesc d = describe(pds[i], i, instance_version);
                if (d.api_version < kMinApi || !graphics_family(pds[i], nullptr)) continue;
                if (opts.need_swapchain && !d.swapchain) continue;
                if (device_type_rank(d.type) > best) {
                    best = device_type_rank(d.type);
                    chosen = i;
                }
            }
            if (!chosen) {
                spdlog::error("Vulkan: no device with Vulkan 1.1, a graphics queue{}",
                              opts.need_swapchain ? " and VK_KHR_swapchain" : "");
                throw GpuError("Vulkan: no suitable device", VK_ERROR_INITIALIZATION_FAILED);
            }
        }
        physical_ = pds[*chosen];
        desc_ = describe(physical_, *chosen, instance_version);
        if (desc_.api_version < kMinApi) {
            fail("Vulkan device {} ({}) supports only Vulkan {}; 1.1 is needed", desc_.index,
                 desc_.name, version_string(desc_.api_version));
        }
        if (opts.need_swapchain && !desc_.swapchain) {
            fail("Vulkan device {} ({}) cannot present to a window (no VK_KHR_swapchain)",
                 desc_.index, desc_.name);
        }
        std::optional<uint32_t> family = graphics_family(physical_, &timestamp_valid_bits_);
        if (!family) {
            fail("Vulkan device {} ({}) has no graphics+compute queue", desc_.index, desc_.name);
        }
        queue_family_ = *family;
        vkGetPhysicalDeviceProperties(physical_, &props_);
        vkGetPhysicalDeviceMemoryProperties(physical_, &mem_props_);
        api_version_ = std::min(instance_version, props_.apiVersion);

        // --- logical device ---
        const std::vector<VkExtensionProperties> dev_exts = enumerate_device_extensions(physical_);
        std::vector<const char*> enable;
        for (const char* e : kOptionalDeviceExtensions) {
            if (!surface && std::strcmp(e, VK_KHR_SWAPCHAIN_EXTENSION_NAME) == 0) continue;
            if (has_ext(dev_exts, e)) enable.push_back(e);
        }
        for (const char* e : enable)
            device_extensions_.emplace_back(e);

        VkPhysicalDeviceTimelineSemaphoreFeatures timeline{};
        timeline.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES;
        VkPhysicalDeviceFeatures2 features{};
        features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
        if (api_version_ >= VK_API_VERSION_1_2) features.pNext = &timeline;
        vkGetPhysicalDeviceFeatures2(physical_, &features);
        timeline_semaphores_ = timeline.timelineSemaphore == VK_TRUE;
        storage_write_without_format_ =
            features.features.shaderStorageImageWriteWithoutFormat == VK_TRUE;
        // Enable only what we use: storage image writes without a format (the compute video
        // pass) and timeline semaphores, when there.
        features.features = VkPhysicalDeviceFeatures{};
        features.features.shaderStorageImageWriteWithoutFormat =
            storage_write_without_format_ ? VK_TRUE : VK_FALSE;
        timeline.timelineSemaphore = timeline_semaphores_ ? VK_TRUE : VK_FALSE;

        const float priority = 1.0f;
        VkDeviceQueueCreateInfo qci{};
        qci.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
        qci.queueFamilyIndex = queue_family_;
        qci.queueCount = 1;
        qci.pQueuePriorities = &priority;
        VkDeviceCreateInfo dci{};
        dci.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
        dci.pNext = &features;
        dci.queueCreateInfoCount = 1;
        dci.pQueueCreateInfos = &qci;
        dci.enabledExtensionCount = static_cast<uint32_t>(enable.size());
        dci.ppEnabledExtensionNames = enable.data();
        VFX_VK(vkCreateDevice(physical_, &dci, nullptr, &device_));
        vkGetDeviceQueue(device_, queue_family_, 0, &queue_);

        // Not the instance or physical device: Mesa 22.x frees such names with the device's
        // allocator after the device is gone (a crash in vkDestroyInstance on lavapipe).
        set_name(device_, VK_OBJECT_TYPE_DEVICE, "vfx device");
        set_name(queue_, VK_OBJECT_TYPE_QUEUE, "vfx graphics queue");

        spdlog::info("Vulkan: {} ({}, {}), API {}, queue family {}{}{}", desc_.name,
                     desc_.type_name(), desc_.driver, version_string(props_.apiVersion),
                     queue_family_, validation_ ? ", validation on" : "",
                     validation_features ? " (+sync)" : "");
        spdlog::debug("Vulkan device extensions enabled: {}", fmt::join(device_extensions_, ", "));
    } catch (...) {
        if (device_) vkDestroyDevice(device_, nullptr);
        if (messenger_) {
            auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
                vkGetInstanceProcAddr(instance_, "vkDestroyDebugUtilsMessengerEXT"));
            if (destroy) destroy(instance_, messenger_, nullptr);
        }
        vkDestroyInstance(instance_, nullptr);
        throw;
    }
}

VkContext::~VkContext() {
    if (device_) {
        vkDeviceWaitIdle(device_);
        vkDestroyDevice(device_, nullptr);
    }
    if (messenger_) {
        auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
            vkGetInstanceProcAddr(instance_, "vkDestroyDebugUtilsMessengerEXT"));
        if (destroy) destroy(instance_, messenger_, nullptr);
    }
    if (instance_) vkDestroyInstance(instance_, nullptr);
}

bool VkContext::has_device_extension(std::string_view name) const {
    return std::find(device_extensions_.begin(), device_extensions_.end(), name) !=
           device_extensions_.end();
}

uint32_t VkContext::memory_type(uint32_t type_bits, VkMemoryPropertyFlags flags) const {
    for (uint32_t i = 0; i < mem_props_.memoryTypeCount; ++i) {
        if ((type_bits & (1u << i)) && (mem_props_.memoryTypes[i].propertyFlags & flags) == flags) {
            return i;
        }
    }
    std::string msg =
        fmt::format("no Vulkan memory type in {:#x} with properties {:#x}", type_bits, flags);
    spdlog::error("{}", msg);
    throw GpuError(std::move(msg), VK_ERROR_OUT_OF_DEVICE_MEMORY);
}

void VkContext::set_name(VkObjectType type, uint64_t handle, const char* name) const {
    if (!set_object_name_ || !device_ || handle == 0) return;
    VkDebugUtilsObjectNameInfoEXT info{};
    info.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT;
    info.objectType = type;
    info.objectHandle = handle;
    info.pObjectName = name;
    set_object_name_(device_, &info);
}

PFN_vkVoidFunction VkContext::device_function(const char* name) const {
    PFN_vkVoidFunction f = vkGetDeviceProcAddr(device_, name);
    if (!f) {
        std::string msg = fmt::format("Vulkan device function {} is not available", name);
        spdlog::error("{}", msg);
        throw GpuError(std::move(msg), VK_ERROR_EXTENSION_NOT_PRESENT);
    }
    return f;
}

PFN_vkVoidFunction VkContext::instance_function(const char* name) const {
    PFN_vkVoidFunction f = vkGetInstanceProcAddr(instance_, name);
    if (!f) {
        std::string msg = fmt::format("Vulkan instance function {} is not available", name);
        spdlog::error("{}", msg);
        throw GpuError(std::move(msg), VK_ERROR_EXTENSION_NOT_PRESENT);
    }
    return f;
}

VKAPI_ATTR VkBool32 VKAPI_CALL VkContext::debug_callback(
    VkDebugUtilsMessageSeverityFlagBitsEXT severity, VkDebugUtilsMessageTypeFlagsEXT,
    const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
    auto* self = static_cast<VkContext*>(user);
    const char* id = data && data->pMessageIdName ? data->pMessageIdName : "";
    const char* msg = data && data->pMessage ? data->pMessage : "";
    if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) {
        if (self) self->validation_errors_.fetch_add(1);
        g_validation_errors.fetch_add(1);
        spdlog::error("Vulkan validation: [{}] {}", id, msg);
    } else if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) {
        spdlog::warn("Vulkan validation: [{}] {}", id, msg);
    } else if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_INFO_BIT_EXT) {
        spdlog::debug("Vulkan: [{}] {}", id, msg);
    } else {
        spdlog::trace("Vulkan: [{}] {}", id, msg);
    }
    return VK_FALSE;
}

}  // namespace vfx
