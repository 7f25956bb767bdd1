#include "app/export/commands.h"

#include "app/export/figure.h"
#include "app/export/gif.h"
#include "app/files.h"
#include "app/ui/labs/lab_measure.h"
#include "app/ui/model/app_state.h"
#include "app/ui/model/document.h"
#include "app/ui/panels/frame.h"
#include "app/ui/offscreen.h"
#include "app/ui/style.h"
#include "core/text.h"
#include "core/lessons.h"
#include "core/scenario_json.h"
#include "gpu/gpu_engine.h"

#include <cstdio>
#include <cstdlib>
#include <memory>

namespace flashstep {
namespace {

int bad(const std::string& message) {
  std::fprintf(stderr, "flashstep: %s\n", message.c_str());
  return 2;
}

// A step as the window numbers it ("step 5/20"): from 1, or "last". `step` gets its index from 0,
// −1 for the last step; the problem, naming `option`, when the text is not one.
std::string parse_step(const char* option, const std::string& text, int& step) {
  if (text == "last") {
    step = -1;
    return "";
  }
  char* end = nullptr;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || v < 0 || v > 1 << 30)
    return std::string(option) + " '" + text + "': use a step number from 1 (as the window counts), or last";
  if (v == 0)
    return std::string(option) + " 0: steps count from 1, as the window shows them; the first step is 1";
  step = static_cast<int>(v) - 1;
  return "";
}

// Checks what shot and gif share; returns "" or the problem.
std::string check(const PictureOptions& o) {
  if (!o.lesson.empty() && !o.scenario.empty())
    return "give --lesson ID or --scenario FILE, not both";
  if (o.lesson.empty() && o.scenario.empty())
    return "--lesson ID or --scenario FILE is required; `flashstep lessons` lists the lessons";
  if (!o.lesson.empty() && !find_lesson(o.lesson))
    return "--lesson '" + o.lesson + "' is not a lesson; `flashstep lessons` lists them";
  if (!ui::parse_theme(o.theme)) return "--theme '" + o.theme + "': use " + ui::kThemeNames;
  if (!o.panel.empty() && !ui::is_panel_name(o.panel)) {
    std::string names;
    for (const auto& n : ui::panel_names()) names += (names.empty() ? "" : ", ") + n;
    return "--panel '" + o.panel + "' is not a panel; use one of " + names;
  }
  if (o.width < 64 || o.height < 64 || o.width > 8192 || o.height > 8192)
    return "--width and --height must be 64..8192 pixels";
  if (!(o.scale >= 0.25f && o.scale <= 8.0f)) return "--scale must be 0.25..8";
  if (!(o.font_scale >= 1.0f && o.font_scale <= 3.0f)) return "--font-scale must be 1..3";
  if (o.present && !o.panel.empty())
    return "--present draws the whole slide (the view with the memory panel, explanation and pseudocode); leave "
           "out --panel, or --present for one panel";
  if (o.out.empty()) return "--out FILE is required";
  gpu::GlPath path;
  if (!gpu::parse_gl_path(o.gl, path)) return "--gl '" + o.gl + "': use auto, egl or glfw";
  return "";
}

gpu::GlPath gl_path(const PictureOptions& o) {
  gpu::GlPath path = gpu::GlPath::auto_path;
  gpu::parse_gl_path(o.gl, path);  // checked by check()
  return path;
}

// The GPU backend of a picture: the gpu/ engine in the renderer's own context, registered while
// the picture is made, so that a lesson on the GPU (cpu-vs-gpu) is drawn from a GPU run, as in
// the window. None when that context has no compute shaders: the lesson then says it shows the
// CPU run.
class PictureGpu {
 public:
  explicit PictureGpu(const ui::OffscreenRenderer& r) : context_(r.context()) {
    if (!context_ || !context_->info().has_compute()) return;
    gpu::SavedContext keep;
    context_->make_current();
    try {
      engine_ = std::make_unique<gpu::Engine>();
    } catch (const gpu::GpuError& e) {
      std::fprintf(stderr, "flashstep: note: no GPU backend for the picture: %s\n", e.what());
      return;
    }
    gpu::Engine* e = engine_.get();
    gpu::HiddenContext* c = context_;
    // The renderer makes its context current only while it draws: each call makes it current.
    ui::set_gpu_backend({[e, c](const Resolved& r, const RecordOptions& opt) {
                           gpu::SavedContext keep_caller;
                           c->make_current();
                           return e->record(r, opt);
                         },
                         [e](const Resolved& r) { return e->unsupported(r, true); }, c->info().renderer});
  }
  ~PictureGpu() {
    if (!engine_) return;
    ui::set_gpu_backend({});
    gpu::SavedContext keep;
    context_->make_current();
    engine_.reset();  // its GL objects go while the context is current
  }
  PictureGpu(const PictureGpu&) = delete;
  PictureGpu& operator=(const PictureGpu&) = delete;

 private:
  gpu::HiddenContext* context_;
  std::unique_ptr<gpu::Engine> engine_;
};

// The state a picture is drawn from: the lesson's preset or the scenario file (lesson, inputs,
// panels and playhead), in the asked theme, recorded on this thread. "" or the problem.
std::string load(const PictureOptions& o, ui::AppState& app) {
  app.background_allowed = false;
  app.set_theme(*ui::parse_theme(o.theme));
  app.set_font_scale(o.font_scale);
  app.presenting = o.present;
  if (o.scenario.empty()) {
    app.open_lesson(o.lesson);
    return "";
  }
  std::string text, error;
  if (!read_file(o.scenario, text, error)) return "--scenario " + error;
  ScenarioDocument doc;
  try {
    doc = parse_document(text);
  } catch (const InputError& e) {
    return o.scenario + ": " + e.what();
  }
  if (!ui::apply_document(app, doc, error)) return o.scenario + ": " + error;
  return "";
}

// Says on stderr where a lesson on the GPU backend was recorded, or that the picture shows the
// CPU run: the two pictures differ, and a lecturer should know which one a slide holds.
void say_backend(const ui::AppState& app, const ui::OffscreenRenderer& r) {
  if (app.inputs.backend != ui::Backend::gpu) return;
  if (ui::gpu_backend())
    std::fprintf(stderr, "flashstep: note: the GPU run is recorded on %s (context: %s)\n",
                 r.context()->info().renderer.c_str(), r.context()->info().path.c_str());
  else
    std::fprintf(stderr, "flashstep: note: no OpenGL 4.3 compute shaders in this context: the picture shows the CPU run\n");
}

// What the steps are named after in messages.
std::string source(const PictureOptions& o) {
  return o.scenario.empty() ? "lesson '" + o.lesson + "'" : o.scenario;
}

// The Compare panel alone is the Compare tab: its steps are Compare's (the longer of its two
// runs), as the window's export dialog counts them.
void open_panel_tab(const PictureOptions& o, ui::AppState& app) {
  if (o.panel == "compare") app.tab = ui::Tab::compare;
}

// What the steps are counted on in messages: the lesson, or its Compare tab.
std::string steps_of(const PictureOptions& o, const ui::AppState& app) {
  return source(o) + (app.tab == ui::Tab::compare && o.panel == "compare" ? " on Compare" : "");
}

// The room left around a cropped panel: 8 window units.
int panel_margin(const PictureOptions& o) { return static_cast<int>(8 * o.scale + 0.5f); }

ui::RenderOptions render_options(const PictureOptions& o) {
  ui::RenderOptions r;
  r.width = o.width;
  r.height = o.height;
  r.scale = o.scale;
  r.transparent = o.transparent;
  r.frame.panel = o.panel;
  return r;
}

// A picture of Measure it yourself is its points: the lab is run first, on the CPU, as R runs
// it in the window (a picture has no window to plot them into as they come). --measure-n and
// --measure-d set its sizes, and are refused where the picture does not show it. "" or the
// problem.
std::string measure_if_shown(const PictureOptions& o, ui::AppState& app) {
  const bool shown = o.panel == "measure-lab" || (o.panel.empty() && app.tab == ui::Tab::measure_lab);
  const char* given = o.measure_n ? "--measure-n" : o.measure_d ? "--measure-d" : nullptr;
  if (!shown) {
    if (!given) return "";
    return std::string(given) + ": " + source(o) +
           " does not open on Measure it yourself; add --panel measure-lab for the lab alone";
  }
  if (std::string err = ui::set_measure_sizes(app.measure_lab, o.measure_n, o.measure_d); !err.empty()) return err;
  const int n = 1 << app.measure_lab.max_attention_log2;
  const std::string sizes = n == 1 << ui::kMeasureMinLog2 ? "N = " + std::to_string(n)
                                                          : "N = " + std::to_string(1 << ui::kMeasureMinLog2) + " to " + std::to_string(n);
  std::fprintf(stderr,
               "flashstep: Measure it yourself: timing naive and tiled attention for %s at d = %d, and safe and "
               "online softmax, on this machine's CPU first\n",
               sizes.c_str(), app.measure_lab.d);
  ui::measure_now(app.measure_lab);
  return "";
}

// --ask [--answer VALUE]: the picture of Ask me first at the question of `step` (the first
// question when no --step was given): asking, on the step before it; answered, on its step
// with the answer scored. `step` becomes the step to show. "" or the problem.
std::string ask_question(ui::AppState& app, const ShotOptions& o, int& step) {
  if (!o.ask) return "--answer needs --ask";
  if (!o.panel.empty()) return "--ask draws the question over the window; leave out --panel";
  if (app.tab != ui::Tab::lesson) return "--ask: " + source(o) + " does not open on the lesson's view";
  if (o.part != 0) return "--ask shows whole steps; leave out --part";
  ui::Quiz& q = app.quiz;
  q.on = true;
  ui::quiz_load(q, app.played.rec);
  std::string steps;
  for (const Question& qu : q.questions) steps += (steps.empty() ? "" : ", ") + std::to_string(qu.step + 1);
  if (q.questions.empty()) return "--ask: " + source(o) + " asks no questions (too few steps)";
  const Question* qu = o.step.empty() ? &q.questions.front() : ui::quiz_question_at(q, step);
  if (!qu) return "--ask: step " + o.step + " has no question; " + source(o) + " asks at steps " + steps;
  q.seen = qu->step - 1;
  step = ui::quiz_hold(q, qu->step - 1, qu->step, false);
  if (o.answer.empty()) return "";
  q.input = o.answer;
  step = ui::quiz_answer(q);
  if (step < 0) return "--answer '" + o.answer + "': " + q.error;
  return "";
}

}  // namespace

int shot_command(const ShotOptions& o) {
  if (auto err = check(o); !err.empty()) return bad(err);
  int step = 0;
  // --pen: strokes over the presented view, as the pen draws them in presentation mode, or over
  // the view panel alone.
  std::vector<ui::PenStroke> strokes;
  for (const std::string& text : o.pen) {
    ui::PenStroke s;
    if (std::string err = ui::Pen::parse_stroke(text, s); !err.empty()) return bad(err);
    strokes.push_back(std::move(s));
  }
  if (!strokes.empty() && !o.present && o.panel != "view")
    return bad("--pen draws over the presented view or the view panel; add --present or --panel view");
  if (!o.step.empty())
    if (std::string err = parse_step("--step", o.step, step); !err.empty()) return bad(err);
  int stop = -1;  // from 0
  if (!o.tour_stop.empty()) {
    if (!o.step.empty() || o.part != 0 || o.ask)
      return bad("--tour-stop " + o.tour_stop + " places the step itself; leave out --step, --part and --ask");
    char* end = nullptr;
    const long v = std::strtol(o.tour_stop.c_str(), &end, 10);
    if (*end != '\0' || v < 1 || v > 1000)
      return bad("--tour-stop '" + o.tour_stop + "': use a stop number from 1, as the tour counts them");
    stop = static_cast<int>(v) - 1;
  }
  ui::OffscreenRenderer renderer(nullptr, gl_path(o));
  if (!renderer.ok()) return bad(renderer.error());
  PictureGpu gpu(renderer);
  ui::AppState app;
  if (auto err = load(o, app); !err.empty()) return bad(err);
  open_panel_tab(o, app);
  // The steps of what the picture shows: Compare's on the Compare tab (the CPU vs GPU lesson,
  // --panel compare).
  ui::Timeline& timeline = app.settled_timeline();
  const int count = timeline.count();
  if (o.step.empty()) step = timeline.playhead();  // the first step, or the scenario file's playhead
  if (step >= count)
    return bad("--step " + o.step + ": " + steps_of(o, app) + " has steps 1.." + std::to_string(count));
  if (step < 0) step = count - 1;
  const int parts = timeline.part_count_at(step);
  if (o.part < 0 || (o.part > 0 && parts < 2) || o.part > parts)
    return bad("--part " + std::to_string(o.part) + ": step " + std::to_string(step + 1) +
               (parts < 2 ? " has no parts; leave --part out" : " has parts 1.." + std::to_string(parts)));
  if (o.ask || !o.answer.empty())
    if (std::string err = ask_question(app, o, step); !err.empty()) return bad(err);
  app.seek_active(step, o.part - 1);
  // An explicit step is a step of the recording: a lab tab would not show it (as in the window,
  // where moving the playhead leaves a lab).
  if (!o.step.empty()) app.timeline_used();
  if (stop >= 0) {
    // The lesson's recording at the stop's step, the tour shown (the lesson's view, as N does).
    const Tour& tour = ui::shown_tour(app);
    const int stops = static_cast<int>(tour.stops.size());
    if (stop >= stops)
      return bad("--tour-stop " + o.tour_stop + ": the tour of " + source(o) + " has stops 1.." + std::to_string(stops));
    const int at = ui::tour_stop_steps(*app.played.rec, tour)[static_cast<std::size_t>(stop)];
    if (at < 0) return bad("--tour-stop " + o.tour_stop + ": " + ui::skipped_note(tour, stop));
    app.tour.on = true;
    ui::go_to_tour_stop(app, stop);  // as N does: Compare's playhead on a lesson that opens there
  }
  app.pen.observe(app.played.cursor->position(), app.played.cursor->part(), app.presenting);
  app.pen.strokes = std::move(strokes);
  if (std::string err = measure_if_shown(o, app); !err.empty()) return bad(err);
  say_backend(app, renderer);
  ui::Image img;
  if (!renderer.render(app, render_options(o), img)) return bad(renderer.error());
  if (!o.panel.empty()) img = ui::slide_figure(img, ui::figure_options(app.theme, o.scale, o.transparent));
  std::string error;
  if (!ui::write_png(o.out, img, error)) return bad(error);
  return 0;
}

int gif_command(const GifOptions& o) {
  if (auto err = check(o); !err.empty()) return bad(err);
  int from = 0, to = 0;
  if (std::string err = parse_step("--from", o.from, from); !err.empty()) return bad(err);
  if (std::string err = parse_step("--to", o.to, to); !err.empty()) return bad(err);
  if (!(o.fps >= kMinGifFps && o.fps <= kMaxGifFps))
    return bad("--fps " + num(o.fps) + ": must be from 0.1 to 100 frames per second (a GIF times frames in "
               "hundredths of a second)");
  ui::OffscreenRenderer renderer(nullptr, gl_path(o));
  if (!renderer.ok()) return bad(renderer.error());
  PictureGpu gpu(renderer);
  ui::AppState app;
  if (auto err = load(o, app); !err.empty()) return bad(err);
  open_panel_tab(o, app);
  const int count = app.settled_timeline().count();
  if (from < 0) from = count - 1;
  if (to < 0) to = count - 1;
  if (from >= count || to >= count) return bad(steps_of(o, app) + " has steps 1.." + std::to_string(count));
  if (from > to) return bad("--from " + o.from + " is after --to " + o.to);
  if (o.tween < 0 || o.tween > ui::kMaxTween)
    return bad("--tween " + std::to_string(o.tween) + ": give 0 to " + std::to_string(ui::kMaxTween) +
               " in-between frames per step");
  if (o.tween > 0 && o.parts) return bad("--tween moves between whole steps; leave out --parts");
  if (std::string err = measure_if_shown(o, app); !err.empty()) return bad(err);
  say_backend(app, renderer);
  const ui::RenderOptions ropt = render_options(o);
  // A panel is cropped to what it draws; the frames of an animation share one crop, the union
  // of theirs, so nothing jumps.
  std::vector<ui::Image> frames;
  ui::PixelRect crop;
  auto add_frame = [&](ui::Image&& img) {
    crop = ui::united(crop, o.panel.empty() ? ui::PixelRect{0, 0, img.width, img.height}
                                            : ui::content_rect(img, panel_margin(o)));
    frames.push_back(std::move(img));
  };
  // --tween: before each step after the first, the move into it held at fixed progress; the
  // steps' own frames are drawn with no move, as shot draws them.
  if (o.tween > 0)
    for (const ui::TweenFrame& f : ui::tween_frames(from, to, o.tween)) {
      if (f.between) app.motion.hold(app.played.rec, f.step - 1, f.step, f.progress);
      else app.motion.stop();
      app.seek_active(f.step);
      ui::Image img;
      if (!renderer.render(app, ropt, img)) return bad(renderer.error());
      add_frame(std::move(img));
    }
  app.motion.stop();
  for (int k = from; k <= to && o.tween == 0; ++k) {
    // --parts: the step's parts one by one (the last part is the whole step).
    const int parts = o.parts ? app.settled_timeline().part_count_at(k) : 0;
    for (int part = parts >= 2 ? 0 : -1; part < std::max(parts, 0); ++part) {
      app.seek_active(k, part);
      ui::Image img;
      if (!renderer.render(app, ropt, img)) return bad(renderer.error());
      add_frame(std::move(img));
      if (part < 0) break;
    }
  }
  GifWriter gif(o.out, crop.w, crop.h, o.fps);
  if (!gif.ok()) return bad(gif.error());
  for (ui::Image& img : frames) {
    ui::Image c = ui::cropped(img, crop);
    if (!gif.add(RgbaFrame{c.width, c.height, std::move(c.rgba)})) return bad(gif.error());
  }
  if (!gif.finish()) return bad(gif.error());
  return 0;
}

}  // namespace flashstep
