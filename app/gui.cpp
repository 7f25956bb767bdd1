// The window's frame loop: poll events, let the AppState play and collect recordings, draw the
// flat list of panels (app/ui/frame.cpp), present. Everything else lives in app/ui/.
#include "app/gui.h"

#include <epoxy/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "app/files.h"
#include "app/settings.h"
#include "app/ui/app_state.h"
#include "app/ui/document.h"
#include "app/ui/export_dialog.h"
#include "app/ui/file_dialog.h"
#include "core/scenario_json.h"
#include "app/ui/frame.h"
#include "app/ui/style.h"
#include "gpu/gpu_engine.h"

#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace flashstep {

namespace {

void glfw_error(int code, const char* text) {
  std::fprintf(stderr, "flashstep: GLFW error %d: %s\n", code, text);
}

// Puts an attention lesson at the benchmark's size (N × d, tiles of 16 from M = 4096).
void bench_setup(ui::AppState& app, const GuiOptions& opt) {
  if (!is_attention(app.inputs.algorithm)) return;
  app.inputs.N = opt.bench_n;
  app.inputs.d = opt.bench_d;
  app.inputs.blocks = ui::BlockChoice::from_sram;
  app.inputs.M = 4096;
  app.inputs_changed();
  app.seek(0);
}

struct FrameStats {
  std::vector<double> total_ms, draw_ms, render_ms, cpu_ms;
  long long vertices = 0, commands = 0;  // of the last frame
  void print(const ui::AppState& app, const GuiOptions& opt, const char* renderer) const {
    if (total_ms.empty()) return;
    auto stat = [](std::vector<double> v, double q) {
      std::sort(v.begin(), v.end());
      return v[std::min(v.size() - 1, static_cast<std::size_t>(q * static_cast<double>(v.size())))];
    };
    auto mean_of = [](const std::vector<double>& v) {
      double m = 0;
      for (double t : v) m += t;
      return m / static_cast<double>(v.size());
    };
    const double mean = mean_of(total_ms), draw = mean_of(draw_ms), render = mean_of(render_ms);
    const Recording& rec = *app.played.rec;
    std::printf("bench: lesson %s (%s backend), N = %d, d = %d, Br = %d, Bc = %d, %d steps, %dx%d, %zu frames\n",
                app.current_lesson().id.c_str(), rec.backend.c_str(), rec.n, rec.d, rec.Br, rec.Bc,
                rec.step_count(), opt.width, opt.height, total_ms.size());
    std::printf("bench: renderer %s; %lld vertices in %lld draw calls per frame\n", renderer, vertices,
                commands);
    std::printf("bench: frame time mean %.2f ms, median %.2f ms, p95 %.2f ms, max %.2f ms\n", mean,
                stat(total_ms, 0.5), stat(total_ms, 0.95), stat(total_ms, 1.0));
    std::printf("bench: CPU time of this process (all threads, llvmpipe's included) per frame mean "
                "%.2f ms, median %.2f ms\n", mean_of(cpu_ms), stat(cpu_ms, 0.5));
    std::printf("bench: of which building the ImGui frame %.2f ms, rasterising it (to glFinish) %.2f ms, "
                "presenting the rest\n", draw, render);
    // One line for scripts (bench/run_frame_bench.sh).
    std::printf("bench-result wall_mean=%.2f wall_median=%.2f wall_p95=%.2f wall_max=%.2f cpu_mean=%.2f "
                "cpu_median=%.2f build=%.2f raster=%.2f vertices=%lld calls=%lld frames=%zu Br=%d Bc=%d "
                "steps=%d\n",
                mean, stat(total_ms, 0.5), stat(total_ms, 0.95), stat(total_ms, 1.0), mean_of(cpu_ms),
                stat(cpu_ms, 0.5), draw, render, vertices, commands, total_ms.size(), rec.Br, rec.Bc,
                rec.step_count());
  }
};

double cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

// Files dropped on the window wait here until the frame loop takes them.
void on_drop(GLFWwindow* window, int count, const char** paths) {
  auto* dropped = static_cast<std::vector<std::string>*>(glfwGetWindowUserPointer(window));
  if (!dropped) return;
  for (int i = 0; i < count; ++i) dropped->emplace_back(paths[i]);
}

// Full screen on the window's monitor while presenting; back to the old place and size after.
struct FullScreen {
  bool on = false;
  int x = 0, y = 0, w = 0, h = 0;
  void set(GLFWwindow* window, bool want) {
    if (want == on) return;
    if (want) {
      GLFWmonitor* monitor = glfwGetPrimaryMonitor();
      const GLFWvidmode* mode = monitor ? glfwGetVideoMode(monitor) : nullptr;
      if (!mode) return;
      glfwGetWindowPos(window, &x, &y);
      glfwGetWindowSize(window, &w, &h);
      glfwSetWindowMonitor(window, monitor, 0, 0, mode->width, mode->height, mode->refreshRate);
    } else {
      glfwSetWindowMonitor(window, nullptr, x, y, std::max(w, 320), std::max(h, 240), 0);
    }
    on = want;
  }
};

// Rebuilds the fonts (rasterised at the final size, never scaled as bitmaps) and the style when
// the font scale, presentation mode or the theme changed.
struct StyleState {
  float scale = 0;
  ui::Theme theme = ui::Theme::dark;
  void update(ui::AppState& app, float dpi) {
    const float want = std::clamp(dpi * app.font_scale * (app.presenting ? ui::kPresentationScale : 1.0f), 1.0f, 4.0f * dpi);
    if (want == scale && app.theme == theme) return;
    if (want != scale) {
      ui::load_fonts(want);
      ImGui_ImplOpenGL3_DestroyFontsTexture();
      ImGui_ImplOpenGL3_CreateFontsTexture();
    }
    ui::apply_style(want, app.theme);
    scale = want;
    theme = app.theme;
    app.ui_scale = want;
  }
};

// The last session's scenario, put back at start-up. Not open_document(): the file is ours, so it
// must not become the document or a recent file.
void restore_last(ui::AppState& app, const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return;
  std::string text, error;
  if (!read_file(path, text, error)) {
    app.note(ui::Severity::warning, "The last session was not restored: " + error);
    return;
  }
  try {
    if (!ui::apply_document(app, parse_document(text), error))
      app.note(ui::Severity::warning, "The last session was not restored: " + error);
  } catch (const InputError& e) {
    app.note(ui::Severity::warning, std::string("The last session was not restored: ") + e.what());
  }
}

// File ▸ Open / Save / Save as and the keys: the dialog, or a save straight to the open document.
void serve_file_requests(ui::AppState& app, ui::FileDialog& dialog, Settings& settings) {
  namespace fs = std::filesystem;
  ui::AppState::Requests& q = app.requests;
  const std::string folder =
      app.document_path.empty() ? settings.last_folder : fs::path(app.document_path).parent_path().string();
  if (!dialog.is_open()) {
    if (q.open) {
      dialog.open(ui::FileDialog::Mode::open, "Open scenario", folder, "", ".json", app.recent_files);
    } else if (q.save && !app.document_path.empty()) {
      ui::save_document(app, app.document_path);
    } else if (q.save || q.save_as) {
      const std::string name = app.document_path.empty() ? app.current_lesson().id + ".json"
                                                         : fs::path(app.document_path).filename().string();
      dialog.open(ui::FileDialog::Mode::save, "Save scenario as", folder, name, ".json", app.recent_files);
    }
  }
  q.open = q.save = q.save_as = false;
  if (dialog.draw()) {
    settings.last_folder = dialog.folder();
    if (dialog.mode() == ui::FileDialog::Mode::open) ui::open_document(app, dialog.path());
    else ui::save_document(app, dialog.path());
  }
}

double now_ms() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

}  // namespace

int run_gui(const GuiOptions& opt) {
  glfwSetErrorCallback(glfw_error);
  // Settings from the last run; benchmarks leave them alone so their figures are reproducible.
  const bool bench = opt.bench_frames > 0;
  const std::string config = bench ? "" : config_dir();
  std::vector<std::string> notices;
  Settings settings = config.empty() ? Settings{} : load_settings(settings_path(config), notices);
  const int width = opt.size_given ? opt.width : settings.window_width;
  const int height = opt.size_given ? opt.height : settings.window_height;
  if (!glfwInit()) {
    std::fprintf(stderr, "flashstep: cannot open a window (no display?); `flashstep run` works without one\n");
    return 2;
  }
  // OpenGL 4.3 core for the compute shaders; 3.3 core is enough for the window alone.
  GLFWwindow* window = nullptr;
  const int versions[][2] = {{4, 3}, {3, 3}};
  for (const auto& v : versions) {
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, v[0]);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, v[1]);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_MAXIMIZED, settings.maximized && !opt.size_given ? GLFW_TRUE : GLFW_FALSE);
    window = glfwCreateWindow(std::max(width, 320), std::max(height, 240), "FlashStep", nullptr, nullptr);
    if (window) break;
  }
  if (!window) {
    std::fprintf(stderr, "flashstep: cannot create an OpenGL 3.3 window\n");
    glfwTerminate();
    return 2;
  }
  glfwMakeContextCurrent(window);
  glfwSwapInterval(bench ? 0 : 1);

  // High-DPI screens report a content scale above 1: fonts and sizes follow it.
  float sx = 1, sy = 1;
  glfwGetWindowContentScale(window, &sx, &sy);
  const float scale = std::clamp(std::max(sx, sy), 1.0f, 4.0f);

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  ImGui_ImplOpenGL3_Init("#version 330");
  std::vector<std::string> dropped;
  glfwSetWindowUserPointer(window, &dropped);
  glfwSetDropCallback(window, on_drop);

  // The GPU backend runs on this window's context when it has compute shaders (OpenGL 4.3).
  std::unique_ptr<gpu::Engine> engine;
  const gpu::GlInfo info = gpu::gl_info();
  std::string gpu_note;
  if (info.has_compute()) {
    try {
      engine = std::make_unique<gpu::Engine>();
      gpu::Engine* e = engine.get();
      ui::set_gpu_backend({[e](const Resolved& r, const RecordOptions& o) { return e->record(r, o); },
                           [e](const Resolved& r) { return e->unsupported(r, true); }, info.renderer});
    } catch (const std::exception& ex) {
      gpu_note = std::string("GPU backend unavailable: ") + ex.what();
    }
  } else {
    gpu_note = gpu::needs_compute_message(info);
  }

  {
    auto app = std::make_unique<ui::AppState>();
    if (!gpu_note.empty()) app->note(ui::Severity::warning, gpu_note);
    if (!app->open_lesson(opt.lesson)) app->open_lesson(0);
    app->set_theme(settings.theme);
    app->set_font_scale(settings.font_scale);
    app->recent_files = settings.recent_files;
    for (const std::string& n : notices) app->note(ui::Severity::warning, n);
    if (!config.empty() && opt.lesson.empty() && settings.restore_last) restore_last(*app, last_scenario_path(config));
    StyleState style;
    FullScreen full_screen;
    ui::FileDialog dialog;
    ui::ExportDialog export_dialog;  // before the window goes: it may hold an off-screen renderer
    if (bench) bench_setup(*app, opt);

    FrameStats stats;
    int frames = 0;
    double last = glfwGetTime();
    double frame_start = now_ms(), frame_cpu = cpu_ms();
    while (!glfwWindowShouldClose(window) && !app->quit_requested) {
      // Idle (nothing playing or recording): sleep until an event instead of spinning.
      const bool busy = bench || app->timeline.playing() || app->compare.timeline.playing() || app->job.busy() ||
                        ui::export_dialog_busy(export_dialog);
      if (busy) glfwPollEvents();
      else glfwWaitEventsTimeout(0.1);
      const double t = glfwGetTime();
      app->tick(bench ? 0.0 : t - last);
      last = t;
      if (bench) {
        // One step per frame, round and round: the cursor changes every frame.
        ui::Timeline& tl = app->timeline;
        if (tl.playhead() + 1 >= tl.count()) tl.first();
        else tl.step(1);
        app->sync_cursor();
      }
      for (const std::string& path : dropped) {
        if (path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0)
          app->requests.open_path = path;
        else
          app->note(ui::Severity::error, "Not opened: " + path + " is not a scenario file (.json)");
      }
      dropped.clear();
      if (!app->requests.open_path.empty()) {
        ui::open_document(*app, app->requests.open_path);
        app->requests.open_path.clear();
      }
      full_screen.set(window, app->presenting);
      style.update(*app, scale);
      const double draw_start = now_ms();
      ImGui_ImplOpenGL3_NewFrame();
      ImGui_ImplGlfw_NewFrame();
      ImGui::NewFrame();
      ui::draw_frame(*app);
      serve_file_requests(*app, dialog, settings);
      ui::draw_export_dialog(*app, export_dialog);
      ImGui::Render();
      const double draw_end = now_ms();
      int w, h;
      glfwGetFramebufferSize(window, &w, &h);
      glViewport(0, 0, w, h);
      const ImVec4 bg = ui::clear_colour(app->theme);
      glClearColor(bg.x, bg.y, bg.z, bg.w);
      glClear(GL_COLOR_BUFFER_BIT);
      ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
      double render_end = 0;
      if (bench) {
        glFinish();
        render_end = now_ms();
      }
      glfwSwapBuffers(window);
      // Exports render off-screen with this context and their own ImGui context: between frames.
      ui::export_dialog_tick(*app, export_dialog, window);
      ++frames;
      if (bench) {
        glFinish();
        const double end = now_ms(), end_cpu = cpu_ms();
        // The first frames build the font atlas and the caches: not what a student sees.
        if (frames > 10) {
          stats.total_ms.push_back(end - frame_start);
          stats.draw_ms.push_back(draw_end - draw_start);
          stats.render_ms.push_back(render_end - draw_end);
          stats.cpu_ms.push_back(end_cpu - frame_cpu);
          const ImDrawData* dd = ImGui::GetDrawData();
          stats.vertices = dd->TotalVtxCount;
          stats.commands = 0;
          for (int i = 0; i < dd->CmdListsCount; ++i) stats.commands += dd->CmdLists[i]->CmdBuffer.Size;
        }
        frame_start = end;
        frame_cpu = end_cpu;
        if (frames >= opt.bench_frames + 10) break;
      }
      if (opt.quit_after_frames > 0 && frames >= opt.quit_after_frames) break;
    }
    if (bench) stats.print(*app, opt, reinterpret_cast<const char*>(glGetString(GL_RENDERER)));
    // A GIF cut short by quitting leaves no file, and the playhead is saved where the user left it.
    export_dialog.job.cancel(*app);
    app->cancel_recording();
    if (!config.empty()) {
      settings.theme = app->theme;
      settings.font_scale = app->font_scale;
      settings.recent_files = app->recent_files;
      settings.maximized = glfwGetWindowAttrib(window, GLFW_MAXIMIZED) == GLFW_TRUE;
      if (full_screen.on) {
        settings.window_width = full_screen.w;
        settings.window_height = full_screen.h;
      } else if (!settings.maximized) {
        glfwGetWindowSize(window, &settings.window_width, &settings.window_height);
      }
      std::string err = save_settings(settings_path(config), settings);
      if (err.empty())
        err = write_file_atomic(last_scenario_path(config), document_to_json(ui::make_document(*app)).dump(2) + "\n");
      if (!err.empty()) std::fprintf(stderr, "flashstep: settings not saved: %s\n", err.c_str());
    }
  }
  ui::set_gpu_backend({});
  engine.reset();

  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window);
  glfwTerminate();
  return 0;
}

}  // namespace flashstep
