#pragma once
// RAII for Vulkan objects, and deferred destruction of objects the GPU may still be using.
//
//   BufferHandle buf(device, raw_buffer);   // owns raw_buffer, vkDestroyBuffer in ~BufferHandle
//   VkBuffer b = buf.get();
//   deferred.retire(std::move(buf), frame_serial);   // destroyed by collect(serial) or later
//
// VkHandle<T, Destroy, Owner> is move-only. Destroy is the vkDestroy*/vkFree* function; Owner
// is what it takes first (VkDevice for almost everything, VkInstance for surfaces). Objects
// freed with their pool (command buffers, descriptor sets) are not wrapped.
#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include <vulkan/vulkan.h>

namespace vfx {

template <typename T, auto Destroy, typename Owner = VkDevice>
class VkHandle {
public:
    VkHandle() = default;
    // Takes ownership of `handle` (may be VK_NULL_HANDLE).
    VkHandle(Owner owner, T handle) : owner_(owner), handle_(handle) {}
    VkHandle(const VkHandle&) = delete;
    VkHandle& operator=(const VkHandle&) = delete;
    VkHandle(VkHandle&& o) noexcept
        : owner_(std::exchange(o.owner_, VK_NULL_HANDLE)),
          handle_(std::exchange(o.handle_, VK_NULL_HANDLE)) {}
    VkHandle& operator=(VkHandle&& o) noexcept {
        if (this != &o) {
            reset();
            owner_ = std::exchange(o.owner_, VK_NULL_HANDLE);
            handle_ = std::exchange(o.handle_, VK_NULL_HANDLE);
        }
        return *this;
    }
    ~VkHandle() { reset(); }

    // Destroys the object now (the caller knows the GPU no longer uses it).
    void reset() noexcept {
        if (handle_ != VK_NULL_HANDLE) Destroy(owner_, handle_, nullptr);
        handle_ = VK_NULL_HANDLE;
    }
    // Gives up ownership without destroying.
    T release() noexcept { return std::exchange(handle_, VK_NULL_HANDLE); }

    T get() const { return handle_; }
    Owner owner() const { return owner_; }
    explicit operator bool() const { return handle_ != VK_NULL_HANDLE; }

private:
    Owner owner_ = VK_NULL_HANDLE;
    T handle_ = VK_NULL_HANDLE;
};

using BufferHandle = VkHandle<VkBuffer, vkDestroyBuffer>;
using MemoryHandle = VkHandle<VkDeviceMemory, vkFreeMemory>;
using ImageHandle = VkHandle<VkImage, vkDestroyImage>;
using ImageViewHandle = VkHandle<VkImageView, vkDestroyImageView>;
using SamplerHandle = VkHandle<VkSampler, vkDestroySampler>;
using SemaphoreHandle = VkHandle<VkSemaphore, vkDestroySemaphore>;
using FenceHandle = VkHandle<VkFence, vkDestroyFence>;
using CommandPoolHandle = VkHandle<VkCommandPool, vkDestroyCommandPool>;
using QueryPoolHandle = VkHandle<VkQueryPool, vkDestroyQueryPool>;
using DescriptorPoolHandle = VkHandle<VkDescriptorPool, vkDestroyDescriptorPool>;
using DescriptorSetLayoutHandle = VkHandle<VkDescriptorSetLayout, vkDestroyDescriptorSetLayout>;
using PipelineLayoutHandle = VkHandle<VkPipelineLayout, vkDestroyPipelineLayout>;
using PipelineHandle = VkHandle<VkPipeline, vkDestroyPipeline>;
using ShaderModuleHandle = VkHandle<VkShaderModule, vkDestroyShaderModule>;
using RenderPassHandle = VkHandle<VkRenderPass, vkDestroyRenderPass>;
using FramebufferHandle = VkHandle<VkFramebuffer, vkDestroyFramebuffer>;
using SwapchainHandle = VkHandle<VkSwapchainKHR, vkDestroySwapchainKHR>;
using SurfaceHandle = VkHandle<VkSurfaceKHR, vkDestroySurfaceKHR, VkInstance>;

// Objects retired with the serial of the last frame (or other GPU work) that used them; they
// are destroyed once collect() is told that serial has completed. Any movable object can be
// retired (a VkHandle, a struct of them, a vector...); its destructor does the destroying.
// Not thread-safe: use from the thread that submits the work. The destructor destroys what is
// left, so destroy the queue only once the GPU is idle (and before the VkDevice).
class DeferredQueue {
public:
    DeferredQueue() = default;
    DeferredQueue(const DeferredQueue&) = delete;
    DeferredQueue& operator=(const DeferredQueue&) = delete;
    DeferredQueue(DeferredQueue&&) noexcept = default;
    DeferredQueue& operator=(DeferredQueue&&) noexcept = default;
    ~DeferredQueue() { clear(); }

    template <typename T>
    void retire(T&& object, uint64_t serial) {
        using V = std::decay_t<T>;
        items_.push_back({serial, std::make_unique<Holder<V>>(std::forward<T>(object))});
    }

    // Destroys (in retirement order) everything retired with a serial <= completed_serial.
    // Returns how many were destroyed.
    size_t collect(uint64_t completed_serial) {
        size_t kept = 0;
        size_t destroyed = 0;
        for (size_t i = 0; i < items_.size(); ++i) {
            if (items_[i].serial <= completed_serial) {
                items_[i].object.reset();
                ++destroyed;
            } else {
                if (kept != i) items_[kept] = std::move(items_[i]);
                ++kept;
            }
        }
        items_.resize(kept);
        return destroyed;
    }

    // Destroys everything now (the GPU must be idle).
    void clear() {
        for (Item& item : items_)
            item.object.reset();
        items_.clear();
    }

    size_t size() const { return items_.size(); }
    bool empty() const { return items_.empty(); }

private:
    struct Base {
        virtual ~Base() = default;
    };
    template <typename V>
    struct Holder final : Base {
        explicit Holder(V&& v) : value(std::move(v)) {}
        explicit Holder(const V& v) : value(v) {}
        V value;
    };
    struct Item {
        uint64_t serial = 0;
        std::unique_ptr<Base> object;
    };
    std::vector<Item> items_;
};

}  // namespace vfx
