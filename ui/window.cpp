#include "window.hpp"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "core/error.hpp"
#include "core/log.hpp"
#include "render/vk_check.hpp"

namespace vfx::ui {

namespace {
void glfw_error(int code, const char* text) {
    spdlog::debug("glfw error {}: {}", code, text);
}

bool init_glfw() {
    static bool ok = [] {
        glfwSetErrorCallback(glfw_error);
        return glfwInit() == GLFW_TRUE;
    }();
    return ok;
}
}  // namespace

bool Window::display_available() {
    return init_glfw();
}

std::vector<std::string> Window::required_instance_extensions() {
    if (!init_glfw()) fail("cannot open a window: no display (use --headless)");
    if (!glfwVulkanSupported()) fail("cannot open a window: GLFW finds no Vulkan loader");
    uint32_t n = 0;
    const char** names = glfwGetRequiredInstanceExtensions(&n);
    return std::vector<std::string>(names, names + n);
}

Window::Window(int width, int height, const std::string& title) {
    if (!init_glfw()) fail("cannot open a window: no display (use --headless)");
    glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API);
    glfwWindowHint(GLFW_RESIZABLE, GLFW_TRUE);
    window_ = glfwCreateWindow(width, height, title.c_str(), nullptr, nullptr);
    if (!window_) fail("cannot open a window of {}x{}", width, height);
    glfwSetWindowUserPointer(window_, this);
    glfwSetKeyCallback(window_, [](GLFWwindow* w, int key, int, int action, int mods) {
        auto* self = static_cast<Window*>(glfwGetWindowUserPointer(w));
        if (action == GLFW_PRESS && self->on_key) self->on_key(key, mods);
        if (action == GLFW_REPEAT && self->on_key_repeat) self->on_key_repeat(key, mods);
    });
}

Window::~Window() {
    if (window_) glfwDestroyWindow(window_);
}

VkSurfaceKHR Window::create_surface(VkInstance instance) {
    VkSurfaceKHR surface = VK_NULL_HANDLE;
    VFX_VK(glfwCreateWindowSurface(instance, window_, nullptr, &surface));
    return surface;
}

void Window::poll() {
    glfwPollEvents();
}
bool Window::should_close() const {
    return glfwWindowShouldClose(window_) == GLFW_TRUE;
}
void Window::request_close() {
    glfwSetWindowShouldClose(window_, GLFW_TRUE);
}
void Window::framebuffer_size(int& w, int& h) const {
    glfwGetFramebufferSize(window_, &w, &h);
}

float Window::content_scale() const {
    float x = 1, y = 1;
    glfwGetWindowContentScale(window_, &x, &y);
    return x > 0 ? x : 1.0f;
}

void Window::toggle_fullscreen() {
    GLFWmonitor* monitor = glfwGetWindowMonitor(window_);
    if (monitor) {
        glfwSetWindowMonitor(window_, nullptr, saved_x_, saved_y_, saved_w_, saved_h_, 0);
        return;
    }
    glfwGetWindowPos(window_, &saved_x_, &saved_y_);
    glfwGetWindowSize(window_, &saved_w_, &saved_h_);
    GLFWmonitor* primary = glfwGetPrimaryMonitor();
    if (!primary) return;
    const GLFWvidmode* mode = glfwGetVideoMode(primary);
    glfwSetWindowMonitor(window_, primary, 0, 0, mode->width, mode->height, mode->refreshRate);
}

}  // namespace vfx::ui
