#pragma once
// The GLFW window: no client API (Vulkan draws into it), key and resize events.
// Lives in ui/ because engine/ has no window code; the renderer only sees a VkSurfaceKHR.
#include <functional>
#include <string>
#include <vector>

#include <vulkan/vulkan.h>

struct GLFWwindow;

namespace vfx::ui {

class Window {
public:
    // Throws vfx::Error when GLFW cannot start or has no Vulkan support.
    Window(int width, int height, const std::string& title);
    ~Window();
    Window(const Window&) = delete;
    Window& operator=(const Window&) = delete;

    // Instance extensions GLFW needs for a surface.
    static std::vector<std::string> required_instance_extensions();
    // True when a display server can be reached (GLFW initialises).
    static bool display_available();

    VkSurfaceKHR create_surface(
        VkInstance instance);  // caller destroys it with vkDestroySurfaceKHR
    GLFWwindow* handle() const { return window_; }

    void poll();
    bool should_close() const;
    void request_close();
    void framebuffer_size(int& w, int& h) const;
    float content_scale() const;
    void toggle_fullscreen();

    // Key presses (GLFW key codes), delivered from poll().
    std::function<void(int key, int mods)> on_key;
    // Auto-repeats of a held key (frame steps and seeks repeat; toggles should not).
    std::function<void(int key, int mods)> on_key_repeat;

private:
    GLFWwindow* window_ = nullptr;
    int saved_x_ = 0, saved_y_ = 0, saved_w_ = 0, saved_h_ = 0;
};

}  // namespace vfx::ui
