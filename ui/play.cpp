// `vfx play`: the bundled sample or any input through a chain, in a window with the overlay or
// headless (offscreen) with a report.
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <vector>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/log.hpp"
#include "encode/sink.hpp"
#include "options.hpp"
#include "overlay.hpp"
#include "render/renderer.hpp"
#include "render/vk_context.hpp"
#include "session/player.hpp"
#include "session/report.hpp"
#include "transport.hpp"
#include "window.hpp"

namespace vfx::ui {

namespace {

// One picture written as a PNG through the same sink `vfx process` uses, tagged with the
// source's colours (`stream`: neither the chain nor the renderer converts the transfer curve or
// the primaries). The caller publishes its file (finish / finish_into).
std::unique_ptr<Sink> write_png(const uint8_t* pixels, const FrameGeometry& g,
                                const std::string& path, const StreamInfo& stream) {
    SinkOptions so;
    so.path = path;
    so.color_primaries = stream.color_primaries;
    so.color_trc = stream.color_trc;
    auto sink = Sink::open(so, g);
    sink->write(pixels, g, 0, 0.0);
    return sink;
}

// The headless --screenshot (the rendered RGBA8 image), its file into `files` unpublished
// (published with the run's report).
void save_png(const RgbaImage& img, const std::string& path, const StreamInfo& stream,
              std::vector<TempFile>& files) {
    FrameGeometry g;
    g.width = img.width;
    g.height = img.height;
    g.format = WorkFormat::rgba8;
    g.pitch = size_t{img.width} * 4;
    write_png(img.pixels.data(), g, path, stream)->finish_into(files);
}

// A processed frame as the viewer sees it: turned upright by its rotation (pixels of 4 or 8
// bytes are moved whole; nothing is resampled).
CapturedFrame upright(const CapturedFrame& c) {
    if (c.rotation % 360 == 0) return c;
    CapturedFrame out = c;
    out.rotation = 0;
    out.geometry = turn_upright(c.pixels.data(), c.geometry, c.rotation, out.pixels);
    return out;
}

// The S key: the processed frame (no overlay), upright, as the first free
// DIR/vfx-shot-NNNN.png. A failure to write is logged and said in `state` (the overlay's Status
// panel); playback goes on.
void save_screenshot(const CapturedFrame& c, const StreamInfo& stream, const std::string& dir,
                     int& counter, OverlayState& state) {
    namespace fs = std::filesystem;
    std::string path;
    std::error_code ec;
    do {
        path = (fs::path(dir) / fmt::format("vfx-shot-{:04}.png", ++counter)).string();
    } while (fs::exists(path, ec) && counter < 9999);
    try {
        const CapturedFrame up = upright(c);
        write_png(up.pixels.data(), up.geometry, path, stream)->finish();
        spdlog::info("screenshot: {} ({}x{}, at {:.2f} s)", path, up.geometry.width,
                     up.geometry.height, c.position_s);
        state.screenshot = "screenshot: " + path;
        state.screenshot_failed = false;
    } catch (const Error& e) {
        spdlog::error("screenshot not written: {}", e.what());
        state.screenshot = fmt::format("screenshot not written: {}", e.what());
        state.screenshot_failed = true;
    }
}

bool debug_build() {
#ifdef NDEBUG
    return false;
#else
    return true;
#endif
}

}  // namespace

int run_play(const PlayOptions& o) {
    if (!o.report.empty()) check_can_create(o.report, "report");
    if (!o.screenshot.empty()) {
        std::string ext = std::filesystem::path(o.screenshot).extension().string();
        std::transform(ext.begin(), ext.end(), ext.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        if (ext != ".png" || o.screenshot.find('%') != std::string::npos)
            fail("--screenshot '{}': the screenshot is one PNG; name it NAME.png", o.screenshot);
        check_can_create(o.screenshot, "screenshot");
        if (o.headless)
            check_png_size(o.headless_size.first, o.headless_size.second,
                           "--screenshot '" + o.screenshot + "'");
    }
    check_distinct_files(
        files_of_run(o.source, {{"--report", o.report}, {"--screenshot", o.screenshot}}));
    if (o.realtime && o.clock == "fast")
        fail("--realtime and --clock fast contradict each other (--realtime is --clock realtime)");
    {
        std::error_code ec;
        if (!std::filesystem::is_directory(o.screenshot_dir, ec))
            fail("--screenshot-dir '{}' is not a folder", o.screenshot_dir);
    }
    const bool headless = o.headless || !Window::display_available();
    if (!o.headless && headless) spdlog::info("no display: playing headless");

    DeviceChoice devices = choose(o.devices);
    const TierChoice tier = require_tier(devices);
    spdlog::info("{}", short_name(devices.cl_device()));
    spdlog::info("{}", short_name(*devices.vk_device()));
    spdlog::info("interop: {} — {}", to_string(tier.tier), tier.reason);

    VkContextOptions vo;
    vo.validation = o.devices.validation || debug_build();
    vo.device_index = static_cast<uint32_t>(devices.pair.vk);
    vo.need_swapchain = !headless;
    if (!headless) vo.instance_extensions = Window::required_instance_extensions();
    VkContext vk(vo);
    ClContext cl(devices.cl_device());

    std::unique_ptr<Window> window;
    SurfaceHandle surface;
    std::unique_ptr<Renderer> renderer;
    RendererOptions ro;
    ro.frames_in_flight = o.frames_in_flight;
    ro.vsync = o.vsync;
    ro.video_pass = o.video_pass == "compute"    ? VideoPass::compute
                    : o.video_pass == "fragment" ? VideoPass::fragment
                                                 : VideoPass::automatic;
    if (headless) {
        renderer = std::make_unique<Renderer>(
            vk, OffscreenTarget{{o.headless_size.first, o.headless_size.second}}, ro);
    } else {
        window = std::make_unique<Window>(1280, 720, "vfx — " + o.source.input);
        surface = SurfaceHandle(vk.instance(), window->create_surface(vk.instance()));
        int w = 0, h = 0;
        window->framebuffer_size(w, h);
        renderer = std::make_unique<Renderer>(
            vk,
            SwapchainTarget{surface.get(), {static_cast<uint32_t>(w), static_cast<uint32_t>(h)}},
            ro);
    }

    PlayerOptions po;
    po.source = o.source;
    po.chain = o.chain;
    po.chain_origin = o.chain_origin;
    po.frames_in_flight = o.frames_in_flight;
    po.max_frames = o.frames;
    po.paced = o.clock.empty() ? !headless || o.realtime : o.clock == "realtime";
    po.speed = o.speed;
    po.source.loop = o.loop;
    // Room for the decoder's bursts (frame threading hands frames over in runs); live sources
    // are clamped to one frame by the source itself.
    po.source.queue_depth = std::max<size_t>(po.source.queue_depth, 8);
    // Stepping back needs the last decoded frames kept; a run as fast as possible (profiling,
    // `--clock fast`) keeps none, so the decoder's frame pool stays small and warm.
    if (!po.paced) po.step_back_frames = 0;
    po.kernels_dir = o.kernels_dir;
    po.direct_decode = o.direct_decode;
    po.keep_open = window != nullptr;
    const auto start = std::chrono::steady_clock::now();
    auto player = std::make_unique<Player>(po, cl, vk, *renderer, tier.tier);
    if (const std::string w = cfa_mismatch(player->chain(), player->stream().pixel_format);
        !w.empty())
        spdlog::warn("{}", w);

    std::unique_ptr<Overlay> overlay;
    std::function<void(int)> handle_key;
    std::vector<int> pending_keys;  // pressed since the overlay's last frame
    bool overlay_had_keys = false;  // Overlay::keyboard_busy() after its last frame
    if (window) {
        // ImGui cycles ImageCount vertex buffers: as many as frames in flight at least, so it
        // never rewrites one an in-flight command buffer still reads.
        overlay = std::make_unique<Overlay>(
            vk, window->handle(), renderer->render_pass(), renderer->min_image_count(),
            std::max(renderer->image_count(), renderer->frames_in_flight()));
        // Key presses wait for the overlay's next frame (pending_keys, below), then act unless
        // the overlay had the keyboard before that frame or has it after.
        handle_key = [&](int key) {
            if (key == GLFW_KEY_V) overlay->toggle_split();
            if (key == GLFW_KEY_ESCAPE || key == GLFW_KEY_Q) window->request_close();
            if (key == GLFW_KEY_H) overlay->set_visible(!overlay->visible());
            if (key == GLFW_KEY_F) window->toggle_fullscreen();
            switch (key) {
                case GLFW_KEY_SPACE:
                    player->set_paused(!player->paused());
                    break;
                case GLFW_KEY_PERIOD:
                    player->step_frames(1);
                    break;
                case GLFW_KEY_COMMA:
                    player->step_frames(-1);
                    break;
                case GLFW_KEY_RIGHT:
                    player->seek_by(5);
                    break;
                case GLFW_KEY_LEFT:
                    player->seek_by(-5);
                    break;
                case GLFW_KEY_UP:
                    player->seek_by(60);
                    break;
                case GLFW_KEY_DOWN:
                    player->seek_by(-60);
                    break;
                case GLFW_KEY_L:
                    player->set_loop(!player->loop());
                    break;
                case GLFW_KEY_LEFT_BRACKET:
                    player->set_speed(player->speed() * 0.5);
                    break;
                case GLFW_KEY_RIGHT_BRACKET:
                    player->set_speed(player->speed() * 2);
                    break;
                case GLFW_KEY_S:
                    player->request_capture();
                    break;
                default:
                    break;
            }
        };
        window->on_key = [&](int key, int) {
            pending_keys.push_back(key);
            overlay->note_key_press(key);
        };
        window->on_key_repeat = [&](int key, int) {
            // Held, the frame-step and seek keys go on stepping and seeking.
            for (int k : {GLFW_KEY_PERIOD, GLFW_KEY_COMMA, GLFW_KEY_LEFT, GLFW_KEY_RIGHT,
                          GLFW_KEY_UP, GLFW_KEY_DOWN})
                if (key == k) pending_keys.push_back(key);
        };
    }

    OverlayState state;
    state.cl_device = short_name(cl.info());
    state.vk_device = short_name(vk.desc());
    state.interop = std::string(to_string(tier.tier));
    state.interop_reason = tier.reason;
    state.timing = &player->timing();
    TransportBar transport;
    state.extra_ui = [&] {
        if (auto target = transport.draw(state)) player->seek(*target);
    };
    int shots = 0;

    int fb_w = 0, fb_h = 0;
    while (true) {
        OverlayFn draw;
        if (window) {
            window->poll();
            if (window->should_close()) break;
            int w = 0, h = 0;
            window->framebuffer_size(w, h);
            if (w != fb_w || h != fb_h) {
                renderer->resize({static_cast<uint32_t>(w), static_cast<uint32_t>(h)});
                overlay->set_min_image_count(renderer->min_image_count());
                fb_w = w;
                fb_h = h;
            }
            SourceStats ss = player->source_stats();
            state.fps = player->fps();
            state.frames = player->frames_shown();
            state.dropped = player->frames_dropped();
            state.corrupt = ss.packets_corrupt;
            state.concealed = ss.frames_concealed;
            state.queue_depth = ss.queue_depth;
            state.queue_capacity = ss.queue_capacity;
            state.source = player->frame_description() + "  " + player->stream().codec;
            state.histogram = player->histogram() ? &*player->histogram() : nullptr;
            state.chain = &player->chain();
            update_overlay_state(state, *player);
            state.position_s = player->position_s();
            state.duration_s = player->duration_s();
            state.paused = player->paused();
            state.loop = player->loop();
            state.speed = player->speed();
            state.latency_ms = player->latency_ms();
            if (auto edited = overlay->build(state, window->content_scale()))
                player->set_chain(std::move(*edited));
            // The frame just built took the keys pressed since the last one: a key that went
            // to the overlay (a field clicked in the same batch of events and typed into, the
            // Escape that closed a combo's list) is not a hotkey too.
            const bool busy = overlay->keyboard_busy();
            for (int key : pending_keys) {
                if (!busy && !overlay_had_keys)
                    handle_key(key);
                else if (key == GLFW_KEY_ESCAPE && busy)
                    overlay->release_keyboard();  // closes the combo's list, not the player
            }
            pending_keys.clear();
            overlay_had_keys = busy;
            player->set_view(overlay->view());
            draw = [&](VkCommandBuffer cmd) { overlay->record(cmd); };
        }
        if (!player->step(draw)) break;
        if (auto shot = player->take_capture())
            save_screenshot(*shot, player->stream(), o.screenshot_dir, shots, state);
    }
    player->finish();
    const double wall_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    // The screenshot and the report are published together at the end: all or none.
    std::vector<TempFile> files;
    const bool shot = headless && !o.screenshot.empty() && player->frames_shown() > 0;
    if (shot) save_png(renderer->read_back(), o.screenshot, player->stream(), files);

    RunInfo info;
    info.command = "play";
    info.chain = format_chain(player->chain());
    info.interop = std::string(to_string(tier.tier));
    info.interop_reason = tier.reason;
    info.frames = player->frames_shown();
    info.wall_s = wall_s;
    info.source = player->source_stats();
    info.staged_copies = player->bridge().stats().copies;
    info.validation_errors = vk.validation_errors();
    auto report = make_report(info, player->stream(), devices, player->timing());
    report["dropped_frames"] = player->frames_dropped();
    report["headless"] = headless;
    report["paced"] = po.paced;
    report["speed"] = player->speed();
    report["source_stats"]["queue_capacity"] = info.source.queue_capacity;
    report["source_stats"]["max_queue_depth"] = info.source.max_queue_depth;
    report["source_stats"]["seeks"] = info.source.seeks;
    report["max_frames_in_flight"] = player->max_frames_in_flight();
    report["video_pass"] = to_string(renderer->video_pass());
    if (const auto c = renderer->video_pass_choice()) {
        report["video_pass_choice"] = {
            {"size", fmt::format("{}x{}", c->extent.width, c->extent.height)},
            {"compute_ms", c->compute_ms},
            {"fragment_ms", c->fragment_ms}};
    }
    report["uploads"] = {{"direct", player->upload_stats().direct},
                         {"copied", player->upload_stats().copied}};
    if (player->frames_in_flight_limit() > 0)
        report["frames_in_flight_limit"] = player->frames_in_flight_limit();
    if (player->latency_ms() >= 0) report["latency_ms"] = player->latency_ms();
    if (player->histogram()) report["histogram"] = histogram_json(*player->histogram());
    if (!o.report.empty()) files.push_back(json_file(o.report, report));
    publish_all(files);
    if (shot) spdlog::info("screenshot: {}", o.screenshot);

    std::printf(
        "%lld frames in %.2f s (%.1f fps), %lld dropped, interop %s%s\n",
        static_cast<long long>(info.frames), wall_s,
        wall_s > 0 ? static_cast<double>(info.frames) / wall_s : 0.0,
        static_cast<long long>(player->frames_dropped()), info.interop.c_str(),
        info.staged_copies ? fmt::format(" ({} staged copies)", info.staged_copies).c_str() : "");
    std::printf("%s", summary_table(player->timing()).c_str());
    if (vk.validation_errors() > 0)
        spdlog::warn("{} Vulkan validation errors", vk.validation_errors());

    // Tear down in dependency order: the player's bridge waits on the renderer; the overlay and
    // the renderer before the surface; everything before the contexts.
    player.reset();
    overlay.reset();
    renderer.reset();
    surface.reset();
    return 0;
}

}  // namespace vfx::ui
