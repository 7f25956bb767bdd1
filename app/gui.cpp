// The window's frame loop, composed of its rooms: the platform window (app/window.h), the
// session that carries over between runs (app/session.h) and the bench's frame timing
// (app/frame_stats.h). Each frame: take the events, let the AppState play and collect
// recordings, draw the flat list of panels (app/ui/panels/frame.cpp), present. The rest is in app/ui/.
#include "app/gui.h"

#include "app/frame_stats.h"
#include "app/gpu_worker.h"
#include "app/session.h"
#include "app/ui/model/app_state.h"
#include "app/ui/model/document.h"
#include "app/ui/dialogs/export_dialog.h"
#include "app/ui/panels/frame.h"
#include "app/ui/style.h"
#include "app/window.h"

#include <imgui.h>

#include <algorithm>
#include <memory>
#include <string>

namespace flashstep {

namespace {

// What sizes are multiplied by: the screen's DPI scale × the user's font size, larger while
// presenting, and never more than 4× the screen's own scale.
float wanted_ui_scale(const ui::AppState& app, float dpi) {
  return std::clamp(dpi * app.font_scale * (app.presenting ? ui::kPresentationScale : 1.0f), 1.0f, 4.0f * dpi);
}

}  // namespace

int run_gui(const GuiOptions& opt) {
  // Benchmarks leave the settings alone so their figures are reproducible.
  const bool bench = opt.bench_frames > 0;
  Session session(bench);
  WindowOptions window_options = session.window_options(opt);
  window_options.vsync = !bench;
  const std::unique_ptr<Window> window = Window::open(window_options);
  if (!window) return 2;

  // The GPU backend: the window's context for recordings on this thread, and a worker with a
  // context sharing it for the rest (app/gpu_worker.h).
  std::string gpu_note;
  auto gpu = std::make_unique<WindowGpu>(window->handle(), gpu_note);
  {
    auto app = std::make_unique<ui::AppState>();
    if (!gpu_note.empty()) app->note(ui::Severity::warning, gpu_note);
    if (!app->open_lesson(opt.lesson)) app->open_lesson(0);
    session.restore(*app, !opt.lesson.empty() || !opt.scenario.empty());
    // A file that cannot be opened says why in the status bar; the window opens all the same.
    if (!opt.scenario.empty()) ui::open_document(*app, opt.scenario);
    ui::ExportDialog export_dialog;  // before the window goes: it may hold an off-screen renderer
    if (bench && opt.scenario.empty()) bench_setup(*app, opt);

    FrameStats stats(opt.bench_frames);
    int frames = 0;
    double last = Window::time();
    while (!window->should_close() && !app->quit_requested) {
      window->wait_events(bench || app->timeline.playing() || app->compare.timeline.playing() ||
                          app->job.busy() || app->compare.recording() || app->opening.busy() ||
                          ui::export_dialog_busy(export_dialog) || app->motion.active());
      const double t = Window::time();
      app->tick(bench ? 0.0 : t - last);
      last = t;
      if (bench) bench_step(*app);
      session.open_pending(*app, window->take_dropped());
      window->set_full_screen(app->presenting);
      const float scale = wanted_ui_scale(*app, window->content_scale());
      if (window->use_style(scale, app->theme)) app->ui_scale = scale;

      stats.build_started();
      app->key_presses = window->take_keys();
      app->key_presses_from_window = true;
      window->begin_frame(*app);
      ui::FrameOptions live;
      live.live = true;
      ui::draw_frame(*app, live);
      session.serve_file_requests(*app);
      ui::draw_export_dialog(*app, export_dialog);
      ImGui::Render();
      stats.build_done();
      window->render(app->theme);
      stats.raster_done();
      window->present();
      // Exports render off-screen with this context and their own ImGui context: between frames.
      ui::export_dialog_tick(*app, export_dialog, window->handle());
      // A crash or a kill loses at most the last few seconds (benchmarks write nothing).
      // The idle wait above wakes at least every 0.1 s, so the look comes when it is due.
      if (!bench) session.autosave(*app, window->placement(), Window::time());
      ++frames;
      if (stats.frame_done(frames, app->job.busy())) break;
      if (opt.quit_after_frames > 0 && frames >= opt.quit_after_frames) break;
    }
    if (bench) stats.print(*app, opt, window->renderer());
    // A GIF cut short by quitting leaves no file, and the playhead is saved where the user left it.
    export_dialog.job.cancel(*app);
    app->cancel_recording();
    session.save(*app, window->placement());
  }
  // After the AppState, whose recordings use it; its GL objects go while the window's context
  // still exists.
  gpu.reset();
  return 0;
}

}  // namespace flashstep
