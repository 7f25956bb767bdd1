// Exports from the window: the picture (PNG), an animation of a step range (GIF) and the
// Recording (JSON, the schema of `flashstep run`). No ImGui here, so every rule is tested without
// a dialog (tests/app/test_export_job.cpp); export_dialog.cpp draws the choices.
//
// A picture is rendered off-screen from the window's own AppState, so it shows exactly what
// the user sees: the theme, the font size, the tab, the open panels. A GIF is one frame per
// step() call, so the window keeps drawing (and the Cancel button keeps working) in between.
// Nothing is ever half-written: every file goes through a temporary file and a rename, and a
// failed or cancelled export leaves the folder as it was.
#pragma once

#include "app/ui/model/app_state.h"

#include <memory>
#include <string>

struct GLFWwindow;

namespace flashstep {
class GifWriter;
}

namespace flashstep::ui {

class OffscreenRenderer;

struct ExportRequest {
  enum Kind { png, gif, json };
  Kind kind = png;
  std::string path;                // the file to write
  std::string panel;               // "" = the whole window, else a name from panel_names()
  float scale = 1.0f;              // pixels per window unit: the picture is width·scale × height·scale
  bool transparent = false;        // PNG: the background gets alpha 0
  int width = 1280, height = 800;  // the window's size in window units
  int from = 0, to = 0;            // GIF: step indices from 0, both included
  double fps = 4.0;                // GIF: frames (steps) per second, more than 0 and at most 100
  bool parts = false;              // GIF: a frame for each part of a tiled step (S, P̃, the merge)
  int tween = 0;                   // GIF: in-between frames per move between steps (gif --tween)
  bool steps = true, output = true;  // JSON: as `flashstep run --steps all|none --output all|none`
};

// The size of a picture of the window at `multiple` (1, 2, 4) times the screen's resolution.
// The window is `display_w` × `display_h` ImGui units on a framebuffer of `fb_scale` pixels per
// unit; app.ui_scale holds the screen's own scale (high DPI) times the font size, and the
// off-screen renderer multiplies only the font size in, so the screen's scale moves from the
// units into the pixels per unit. At multiple 1 the picture has the screen's pixels exactly.
struct PictureSize {
  int width = 0, height = 0;  // window units, for ExportRequest
  float scale = 1.0f;         // pixels per unit, for ExportRequest
  int pixels_w = 0, pixels_h = 0;
};
PictureSize picture_size(const AppState& app, float display_w, float display_h, float fb_scale, float multiple);

// Whether a GIF of `panel` steps the Compare tab's playhead (the picture shows the comparison)
// rather than the lesson's.
bool steps_compare(const AppState& app, const std::string& panel);
// The playhead a GIF of `panel` moves.
const Timeline& stepped_timeline(const AppState& app, const std::string& panel);

// The name an export proposes, numbered as the timeline shows steps (from 1):
// "online-step7.png", "attn-tiled-view-step7.png", "online-steps1-12.gif",
// "online-recording.json". `from` and `to` are step indices from 0 (GIF only).
std::string default_export_name(const AppState& app, ExportRequest::Kind kind, const std::string& panel, int from,
                                int to);
// ".png", ".gif", ".json".
const char* export_extension(ExportRequest::Kind kind);
// `path` with its extension changed to the kind's when it has one of the three; else unchanged.
std::string with_export_extension(const std::string& path, ExportRequest::Kind kind);
// "812 bytes", "41 KB", "3.4 MB".
std::string human_size(unsigned long long bytes);

// Why `r` cannot be exported from `app` ("" when it can): the file name, the folder (there, a
// folder, writable), the panel, the scale, the step range, the frame rate. Changes nothing.
std::string check_export(const AppState& app, const ExportRequest& r);

class ExportJob {
 public:
  enum class Outcome { none, done, failed, cancelled };

  ExportJob();
  ~ExportJob();  // an unfinished GIF is removed; call cancel() first to put the playhead back
  ExportJob(const ExportJob&) = delete;
  ExportJob& operator=(const ExportJob&) = delete;

  // Checks `r` (check_export) and exports. A PNG or JSON is written before it returns; a GIF
  // is set up (its temporary file opened, the playback paused) and written by step(). host:
  // the window whose OpenGL context renders (the GUI's); null: a hidden window of the job's
  // own. False with `error` (also message()) when nothing was or will be written.
  bool start(AppState& app, const ExportRequest& r, GLFWwindow* host, std::string& error);
  bool busy() const { return gif_ != nullptr; }
  // Renders and adds the next GIF frame: the window's playhead is moved to that step. After
  // the last frame the file is moved into place and the playhead put back where it was.
  void step(AppState& app);
  // Stops a GIF being written: its temporary file is removed and the playhead put back. Does
  // nothing when not busy.
  void cancel(AppState& app);

  float progress() const;                    // 0..1 of the GIF's frames
  int frames_done() const { return plan_.empty() ? next_ - from_ : static_cast<int>(plan_at_); }
  int frame_count() const { return plan_.empty() ? to_ - from_ + 1 : static_cast<int>(plan_.size()); }
  const ExportRequest& request() const { return req_; }
  Outcome outcome() const { return outcome_; }
  // The last export's result for the status bar: "Exported the picture /p/x.png (2560×1600,
  // 412 KB)." or why it failed.
  const std::string& message() const { return message_; }

 private:
  bool ensure_renderer(GLFWwindow* host, std::string& error);
  bool recording_unchanged(const AppState& app) const;
  void finish_gif(AppState& app);
  void put_back(AppState& app);  // the playhead, where the user left it
  void fail(AppState& app, const std::string& why);
  void done(const std::string& what, const std::string& details);

  std::unique_ptr<OffscreenRenderer> renderer_;
  GLFWwindow* renderer_host_ = nullptr;
  std::unique_ptr<GifWriter> gif_;  // non-null while a GIF is being written
  ExportRequest req_;
  bool compare_ = false;  // the GIF moves the Compare tab's playhead
  std::shared_ptr<const Recording> rec_, rec_b_;  // what the GIF animates; another one = stop
  int from_ = 0, to_ = -1, next_ = 0, playhead_before_ = 0;
  int part_ = -1;  // the part of step next_ to draw next; −1: the whole step
  std::vector<TweenFrame> plan_;  // with in-between frames: every frame, in order
  std::size_t plan_at_ = 0;       // the next of plan_ to draw
  Outcome outcome_ = Outcome::none;
  std::string message_;
};

}  // namespace flashstep::ui
