#include "app/export/export_job.h"

// epoxy before GLFW: it provides the GL declarations, GLFW only the window.
#include <epoxy/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "app/export/gif.h"
#include "app/files.h"
#include "app/export/figure.h"
#include "app/ui/panels/frame.h"
#include "app/ui/style.h"
#include "app/ui/offscreen.h"
#include "core/report.h"
#include "core/text.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <unistd.h>

namespace flashstep::ui {

namespace fs = std::filesystem;

namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The writers' messages ("cannot write /x: No such file") as a sentence for the dialog.
std::string sentence(std::string s) {
  if (!s.empty()) s[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(s[0])));
  if (!s.empty() && s.back() != '.' && s.back() != '?' && s.back() != ')') s += '.';
  return s;
}

std::string size_of(const std::string& path) {
  std::error_code ec;
  const auto bytes = fs::file_size(path, ec);
  return ec ? std::string("size unknown") : human_size(bytes);
}

// The renderer's own sizing (offscreen.cpp), so the GIF is opened at the size its frames have.
int pixels(int units, float scale) {
  return std::max(1, static_cast<int>(static_cast<float>(units) * std::clamp(scale, 0.25f, 8.0f) + 0.5f));
}

RenderOptions render_options(const ExportRequest& r) {
  RenderOptions o;
  o.width = r.width;
  o.height = r.height;
  o.scale = r.scale;
  o.transparent = r.kind == ExportRequest::png && r.transparent;
  o.frame.panel = r.panel;
  return o;
}

// A panel picture switches the tab it shows (frame.cpp); the window keeps the user's.
struct KeepTab {
  AppState& app;
  Tab tab;
  explicit KeepTab(AppState& a) : app(a), tab(a.tab) {}
  ~KeepTab() {
    if (app.tab != tab) {
      app.tab = tab;
      app.tab_changed = true;
    }
  }
};

// The renderer binds its framebuffer on the window's context, and when it has just made one
// (the first picture, or a new size) that is the binding it puts back: the window's next frame
// must draw to the window again.
struct KeepFramebuffer {
  GLint bound = -1;
  explicit KeepFramebuffer(GLFWwindow* host) {
    if (host && glfwGetCurrentContext() == host) glGetIntegerv(GL_FRAMEBUFFER_BINDING, &bound);
  }
  ~KeepFramebuffer() {
    if (bound >= 0) glBindFramebuffer(GL_FRAMEBUFFER, static_cast<GLuint>(bound));
  }
};

}  // namespace

// ---- names and sizes --------------------------------------------------------------------

PictureSize picture_size(const AppState& app, float display_w, float display_h, float fb_scale, float multiple) {
  const float user = std::max(app.font_scale, 0.5f) * (app.presenting ? kPresentationScale : 1.0f);
  const float screen = std::clamp(app.ui_scale / user, 0.25f, 8.0f);
  const float fb = fb_scale > 0 ? fb_scale : 1.0f;
  PictureSize p;
  p.width = std::max(1, static_cast<int>(std::lround(display_w / screen)));
  p.height = std::max(1, static_cast<int>(std::lround(display_h / screen)));
  p.scale = multiple * screen * fb;
  p.pixels_w = std::max(1, static_cast<int>(static_cast<float>(p.width) * p.scale + 0.5f));
  p.pixels_h = std::max(1, static_cast<int>(static_cast<float>(p.height) * p.scale + 0.5f));
  return p;
}

bool steps_compare(const AppState& app, const std::string& panel) {
  // The timeline panel drives the Compare playhead while that tab is open, as in the window.
  return panel == "compare" || ((panel.empty() || panel == "timeline") && app.tab == Tab::compare);
}

const Timeline& stepped_timeline(const AppState& app, const std::string& panel) {
  return steps_compare(app, panel) ? app.compare.timeline : app.timeline;
}

const char* export_extension(ExportRequest::Kind kind) {
  switch (kind) {
    case ExportRequest::gif: return ".gif";
    case ExportRequest::json: return ".json";
    default: return ".png";
  }
}

std::string default_export_name(const AppState& app, ExportRequest::Kind kind, const std::string& panel, int from,
                                int to) {
  std::string base = app.current_lesson().id;
  if (kind == ExportRequest::json) return base + "-recording.json";
  if (!panel.empty()) base += "-" + panel;
  else if (steps_compare(app, panel)) base += "-compare";
  if (kind == ExportRequest::gif) return base + strf("-steps%d-%d.gif", from + 1, to + 1);
  return base + strf("-step%d.png", stepped_timeline(app, panel).playhead() + 1);
}

std::string with_export_extension(const std::string& path, ExportRequest::Kind kind) {
  const fs::path p(path);
  const std::string ext = lower(p.extension().string());
  if (ext != ".png" && ext != ".gif" && ext != ".json") return path;
  return path.substr(0, path.size() - ext.size()) + export_extension(kind);
}

std::string human_size(unsigned long long bytes) {
  const double b = static_cast<double>(bytes);
  if (bytes < 1000) return strf("%llu bytes", bytes);
  if (b < 9.95e3) return strf("%.1f KB", b / 1e3);
  if (b < 999.5e3) return strf("%.0f KB", b / 1e3);
  if (b < 9.95e6) return strf("%.1f MB", b / 1e6);
  return strf("%.0f MB", b / 1e6);
}

// ---- checks -----------------------------------------------------------------------------

std::string check_export(const AppState& app, const ExportRequest& r) {
  if (r.path.find_first_not_of(" \t") == std::string::npos) return "Type the name of the file to export to.";
  const fs::path p(r.path);
  std::error_code ec;
  if (!p.has_filename() || fs::is_directory(p, ec)) return r.path + " is a folder; add a file name.";
  const fs::path dir = p.parent_path().empty() ? fs::path(".") : p.parent_path();
  const fs::file_status st = fs::status(dir, ec);
  if (st.type() == fs::file_type::not_found) return "There is no folder " + dir.string() + ".";
  if (!fs::is_directory(st))
    return "Cannot write in " + dir.string() + ": " + (ec ? ec.message() : std::string("it is not a folder")) + ".";
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    return "Cannot write in the folder " + dir.string() + ": " + std::strerror(errno) + ".";
  if (r.kind == ExportRequest::json) return "";

  if (!r.panel.empty() && !is_panel_name(r.panel)) return "There is no panel '" + r.panel + "' to export.";
  if (!(r.scale >= 0.25f && r.scale <= 8.0f))
    return strf("A picture can have 0.25 to 8 pixels per window unit, not %g: choose a smaller size.", r.scale);
  if (r.width < 1 || r.height < 1 || r.width > 16384 || r.height > 16384)
    return strf("A window of %d × %d cannot be exported.", r.width, r.height);
  if (r.kind == ExportRequest::png) return "";

  // Compare's GPU side records in the background too: until it arrives the pair is the old one.
  if (app.job.busy() || (steps_compare(app, r.panel) && app.compare.recording()))
    return "A recording is still being made; export the animation when it has finished.";
  const Timeline& tl = stepped_timeline(app, r.panel);
  if (tl.empty()) {
    if (!steps_compare(app, r.panel)) return "This recording has no steps to animate.";
    return app.compare.error.empty() ? "The comparison has no steps to animate."
                                     : sentence("The comparison has no steps to animate: " + app.compare.error);
  }
  const int n = tl.count();
  if (r.from < 0 || r.to < 0 || r.from >= n || r.to >= n)
    return strf("Steps %d to %d are not all there: this recording has steps 1 to %d.", r.from + 1, r.to + 1, n);
  if (r.from > r.to) return strf("The first step (%d) comes after the last (%d).", r.from + 1, r.to + 1);
  if (!(r.fps >= kMinGifFps && r.fps <= kMaxGifFps))
    return "The speed must be from 0.1 to 100 steps per second: a GIF times frames in hundredths of a second.";
  if (r.tween < 0 || r.tween > kMaxTween)
    return strf("The frames between steps must be 0 to %d; %d is not.", kMaxTween, r.tween);
  if (r.tween > 0 && r.parts) return "Frames between steps and a frame for each part do not go together: choose one.";
  return "";
}

// ---- the job ----------------------------------------------------------------------------

ExportJob::ExportJob() = default;
ExportJob::~ExportJob() = default;

bool ExportJob::ensure_renderer(GLFWwindow* host, std::string& error) {
  if (renderer_ && renderer_host_ != host) renderer_.reset();
  if (!renderer_) {
    renderer_ = std::make_unique<OffscreenRenderer>(host);
    renderer_host_ = host;
  }
  if (renderer_->ok()) return true;
  error = sentence("Pictures cannot be rendered here: " + renderer_->error());
  renderer_.reset();  // the next export tries again
  return false;
}

bool ExportJob::start(AppState& app, const ExportRequest& r, GLFWwindow* host, std::string& error) {
  if (busy()) {
    error = "An animation is still being written: wait for it or cancel it.";
    return false;
  }
  outcome_ = Outcome::none;
  message_.clear();
  req_ = r;
  auto refuse = [&](const std::string& why) {
    outcome_ = Outcome::failed;
    message_ = error = why;
    return false;
  };
  // The Compare tab records its two runs when it is drawn; a GIF of it from another tab needs
  // them now, to know its steps.
  if (r.kind == ExportRequest::gif && steps_compare(app, r.panel) && app.compare.dirty) {
    KeepTab keep(app);
    app.tab = Tab::compare;
    app.tick(0.0);
  }
  if (std::string why = check_export(app, r); !why.empty()) return refuse(why);

  if (r.kind == ExportRequest::json) {
    const Recording& rec = *app.played.rec;
    Json j = recording_json(rec, r.steps, r.output);
    j["kernel"] = "recording";  // as `flashstep run --steps all` says of a recorded run
    if (std::string err = write_file_atomic(r.path, j.dump(1) + "\n"); !err.empty()) return refuse(sentence(err));
    done("the recording", (r.steps ? strf("%d steps, ", rec.step_count()) : std::string("no steps, ")) + size_of(r.path));
    return true;
  }

  std::string why;
  if (!ensure_renderer(host, why)) return refuse(why);
  if (r.kind == ExportRequest::png) {
    Image img;
    bool rendered;
    {
      KeepTab keep(app);
      KeepFramebuffer keep_fb(renderer_host_);
      rendered = renderer_->render(app, render_options(r), img);
    }
    if (!rendered) return refuse(sentence("The picture could not be rendered: " + renderer_->error()));
    // A panel is a figure for a slide: cropped to what it draws, haloed when transparent.
    if (!r.panel.empty()) img = slide_figure(img, figure_options(app.theme, r.scale, r.transparent));
    if (!write_png(r.path, img, why)) return refuse(sentence(why));
    done("the picture", strf("%d×%d, ", img.width, img.height) + size_of(r.path));
    return true;
  }

  auto gif = std::make_unique<GifWriter>(r.path, pixels(r.width, r.scale), pixels(r.height, r.scale), r.fps);
  if (!gif->ok()) return refuse(sentence(gif->error()));
  gif_ = std::move(gif);
  compare_ = steps_compare(app, r.panel);
  rec_ = compare_ ? app.compare.left.rec : app.played.rec;
  rec_b_ = compare_ ? app.compare.right.rec : nullptr;
  // Playback would fight the frames for the playhead.
  app.timeline.pause();
  app.compare.timeline.pause();
  playhead_before_ = stepped_timeline(app, r.panel).playhead();
  from_ = next_ = r.from;
  part_ = -1;
  to_ = r.to;
  // The moves between steps: held one frame at a time, never on Compare (its views do not move).
  plan_.clear();
  plan_at_ = 0;
  if (r.tween > 0) plan_ = tween_frames(r.from, r.to, compare_ ? 0 : r.tween);
  return true;
}

bool ExportJob::recording_unchanged(const AppState& app) const {
  return compare_ ? app.compare.left.rec == rec_ && app.compare.right.rec == rec_b_ : app.played.rec == rec_;
}

void ExportJob::step(AppState& app) {
  if (!busy()) return;
  if (!recording_unchanged(app)) {
    fail(app, "The recording changed while the animation was being written, so it was not written.");
    return;
  }
  Image img;
  bool rendered;
  int parts = 0;
  {
    KeepTab keep(app);
    if (compare_) app.tab = Tab::compare;  // sync_cursor() moves the compared runs only there
    Timeline& tl = compare_ ? app.compare.timeline : app.timeline;
    tl.pause();
    if (!plan_.empty()) {
      const TweenFrame& f = plan_[plan_at_];
      next_ = f.step;
      if (f.between) app.motion.hold(app.played.rec, f.step - 1, f.step, f.progress);
    }
    parts = req_.parts ? tl.part_count_at(next_) : 0;
    if (parts >= 2 && part_ < 0) part_ = 0;
    tl.seek(next_, parts >= 2 ? part_ : -1);
    app.sync_cursor();
    KeepFramebuffer keep_fb(renderer_host_);
    rendered = renderer_->render(app, render_options(req_), img);
    app.motion.stop();  // a held move is the picture's alone, never the window's
  }
  if (!rendered) {
    fail(app, sentence(strf("Frame %d could not be rendered: ", frames_done() + 1) + renderer_->error()));
    return;
  }
  if (!gif_->add(RgbaFrame{img.width, img.height, std::move(img.rgba)})) {
    fail(app, sentence(gif_->error()));
    return;
  }
  if (!plan_.empty()) {
    if (++plan_at_ >= plan_.size()) finish_gif(app);
    return;
  }
  // The parts of a tiled step one by one, the last being the whole step; then the next step.
  if (parts >= 2 && ++part_ < parts) return;
  part_ = -1;
  if (++next_ > to_) finish_gif(app);
}

void ExportJob::finish_gif(AppState& app) {
  const bool ok = gif_->finish();
  const std::string error = gif_->error();
  const int frames = gif_->frames();
  gif_.reset();
  put_back(app);
  if (!ok) {
    outcome_ = Outcome::failed;
    message_ = sentence(error);
    return;
  }
  done("the animation", strf("%d frame%s, %d×%d, ", frames, frames == 1 ? "" : "s", pixels(req_.width, req_.scale),
                             pixels(req_.height, req_.scale)) + size_of(req_.path));
}

void ExportJob::cancel(AppState& app) {
  if (!busy()) return;
  gif_.reset();  // removes the temporary file
  put_back(app);
  outcome_ = Outcome::cancelled;
  message_ = "Export cancelled: " + req_.path + " was not written.";
}

void ExportJob::put_back(AppState& app) {
  // A new recording has put its own playhead where it belongs.
  if (!recording_unchanged(app)) return;
  KeepTab keep(app);
  if (compare_) app.tab = Tab::compare;
  Timeline& tl = compare_ ? app.compare.timeline : app.timeline;
  tl.seek(playhead_before_);
  app.sync_cursor();
}

void ExportJob::fail(AppState& app, const std::string& why) {
  gif_.reset();
  put_back(app);
  outcome_ = Outcome::failed;
  message_ = why;
}

void ExportJob::done(const std::string& what, const std::string& details) {
  outcome_ = Outcome::done;
  message_ = "Exported " + what + " " + req_.path + " (" + details + ").";
}

float ExportJob::progress() const {
  return frame_count() > 0 ? std::clamp(static_cast<float>(frames_done()) / static_cast<float>(frame_count()), 0.0f, 1.0f)
                           : 0.0f;
}

}  // namespace flashstep::ui
