// The window's exports without the dialog: pictures at the asked size and background, the
// Recording as the same JSON `flashstep run` writes, GIFs of a step range written one frame per
// call with the playhead put back, cancel and failures leaving no file. The rendering cases
// need a display (./build.sh test provides Xvfb); the dialog is tests/app/test_export_dialog.cpp.
#include "tests/app/drive.h"
#include "app/export/export_job.h"
#include "app/export/gif.h"
#include "app/ui/style.h"
#include "core/report.h"
#include "core/text.h"
#include "tests/display.h"
#include "tests/images.h"
#include "tests/temp_dir.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

using namespace flashstep;
using namespace flashstep::ui;
namespace fs = std::filesystem;

namespace {

using images::Gif;
using images::load_gif;
using images::load_png;
using images::Png;

std::size_t count_alpha_below(const Png& p, int alpha) {
  std::size_t n = 0;
  for (std::size_t i = 3; i < p.rgba.size(); i += 4) n += p.rgba[i] < alpha;
  return n;
}

std::size_t colours(const Png& p) {
  std::set<unsigned> seen;
  for (std::size_t i = 0; i < p.rgba.size() && seen.size() < 1000; i += 4)
    seen.insert(p.rgba[i] | p.rgba[i + 1] << 8 | p.rgba[i + 2] << 16);
  return seen.size();
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}


ExportRequest picture(const std::string& path, float scale = 1.0f) {
  ExportRequest r;
  r.kind = ExportRequest::png;
  r.path = path;
  r.width = 640;
  r.height = 400;
  r.scale = scale;
  return r;
}

}  // namespace

// ---- without a display ----------------------------------------------------------------------

TEST_CASE("export: proposed names follow the lesson, the panel, the step and the range, and sizes read well") {
  AppState app;
  open_at(app, "online", 6);
  CHECK(default_export_name(app, ExportRequest::png, "", 0, 0) == "online-step7.png");
  CHECK(default_export_name(app, ExportRequest::png, "view", 0, 0) == "online-view-step7.png");
  CHECK(default_export_name(app, ExportRequest::gif, "", 1, 4) == "online-steps2-5.gif");
  CHECK(default_export_name(app, ExportRequest::json, "view", 0, 0) == "online-recording.json");
  CHECK(with_export_extension("/a/fig.png", ExportRequest::gif) == "/a/fig.gif");
  CHECK(with_export_extension("/a/fig.PNG", ExportRequest::json) == "/a/fig.json");
  CHECK(with_export_extension("/a/fig.v2", ExportRequest::gif) == "/a/fig.v2");
  CHECK(with_export_extension("/a.b/fig", ExportRequest::gif) == "/a.b/fig");
  CHECK(human_size(812) == "812 bytes");
  CHECK(human_size(4321) == "4.3 KB");
  CHECK(human_size(412'000) == "412 KB");
  CHECK(human_size(3'400'000) == "3.4 MB");
}

TEST_CASE("export: 1x is the screen's pixels, 2x and 4x multiply them, on a high-DPI screen too") {
  AppState app;
  app.ui_scale = 1.0f;
  app.font_scale = 1.0f;
  PictureSize p = picture_size(app, 1280, 800, 1.0f, 1.0f);
  CHECK(p.width == 1280);
  CHECK(p.height == 800);
  CHECK(p.pixels_w == 1280);
  CHECK(p.pixels_h == 800);
  p = picture_size(app, 1280, 800, 1.0f, 4.0f);
  CHECK(p.pixels_w == 5120);
  CHECK(p.pixels_h == 3200);
  // A screen at 2x with the font at 1.5x: ui_scale 3. The picture keeps the screen's 2560 pixels,
  // laid out over 1280 units at 2 pixels each (the renderer multiplies the font size in itself).
  app.font_scale = 1.5f;
  app.ui_scale = 3.0f;
  p = picture_size(app, 2560, 1600, 1.0f, 1.0f);
  CHECK(p.width == 1280);
  CHECK(p.scale == doctest::Approx(2.0));
  CHECK(p.pixels_w == 2560);
  CHECK(p.pixels_h == 1600);
  p = picture_size(app, 2560, 1600, 1.0f, 2.0f);
  CHECK(p.pixels_w == 5120);
}

TEST_CASE("export: the Recording as JSON is what recording_json writes, every step included") {
  AppState app;
  open_at(app, "attn-tiled", 3);
  TempDir dir("export");
  ExportRequest r;
  r.kind = ExportRequest::json;
  r.path = dir.file("rec.json");
  ExportJob job;
  std::string error;
  REQUIRE_MESSAGE(job.start(app, r, nullptr, error), error);
  CHECK_FALSE(job.busy());
  CHECK(job.outcome() == ExportJob::Outcome::done);
  CHECK(job.message().find("Exported the recording " + r.path) == 0);
  const nlohmann::json j = nlohmann::json::parse(read_text(r.path));
  const Recording& rec = *app.played.rec;
  REQUIRE(j.contains("steps"));
  CHECK(j["steps"].size() == static_cast<std::size_t>(rec.step_count()));
  CHECK(rec.step_count() > 5);
  const nlohmann::json expected = nlohmann::json::parse(recording_json(rec, true).dump());
  for (const auto& item : expected.items()) {
    const std::string key = item.key();
    const nlohmann::json& value = item.value();
    CAPTURE(key);
    REQUIRE(j.contains(key));
    CHECK(j[key] == value);
  }
  CHECK(j["kernel"] == "recording");
  CHECK(j.size() == expected.size() + 1);
  CHECK(dir.entries() == std::vector<std::string>{"rec.json"});

  // Without the steps and the output, as `flashstep run --steps none --output none`.
  r.steps = r.output = false;
  r.path = dir.file("summary.json");
  REQUIRE_MESSAGE(job.start(app, r, nullptr, error), error);
  const nlohmann::json s = nlohmann::json::parse(read_text(r.path));
  CHECK_FALSE(s.contains("steps"));
  CHECK_FALSE(s.contains("output"));
  CHECK(s["io"] == expected["io"]);
  CHECK(app.timeline.playhead() == 3);
}

TEST_CASE("export: an unwritable place is refused with the folder named, and no file is made") {
  AppState app;
  open_at(app, "online", 2);
  ExportJob job;
  std::string error;
  ExportRequest r;
  r.kind = ExportRequest::json;

  r.path = "/proc/nonexistent/x.json";
  CHECK_FALSE(job.start(app, r, nullptr, error));
  CHECK(error == "There is no folder /proc/nonexistent.");
  CHECK(job.outcome() == ExportJob::Outcome::failed);
  CHECK(job.message() == error);

  // /proc takes no new files, whoever asks: refused up front, or (root may write anywhere, so
  // the folder looks writable) when the write fails.
  r.path = "/proc/flashstep-export-test.json";
  CHECK_FALSE(job.start(app, r, nullptr, error));
  CHECK(error.rfind(geteuid() == 0 ? "Cannot write /proc/flashstep-export-test.json: " : "Cannot write in the folder /proc: ", 0) == 0);
  CHECK_FALSE(fs::exists(r.path));

  TempDir dir("export");
  {
    std::ofstream(dir.file("notes.txt")) << "x";
  }
  r.path = dir.file("notes.txt") + "/x.json";
  CHECK_FALSE(job.start(app, r, nullptr, error));
  CHECK(error == "Cannot write in " + dir.file("notes.txt") + ": it is not a folder.");

  r.path = dir.path.string() + "/";
  CHECK_FALSE(job.start(app, r, nullptr, error));
  CHECK(error.find("is a folder") != std::string::npos);
  r.path = "  ";
  CHECK_FALSE(job.start(app, r, nullptr, error));
  CHECK(error == "Type the name of the file to export to.");

  // A folder without write permission (root may write anywhere, so only others can check it).
  fs::create_directories(dir.path / "locked");
  fs::permissions(dir.path / "locked", fs::perms::owner_read | fs::perms::owner_exec);
  r.path = dir.file("locked/x.json");
  if (geteuid() != 0) {
    CHECK_FALSE(job.start(app, r, nullptr, error));
    CHECK(error == "Cannot write in the folder " + dir.file("locked") + ": Permission denied.");
  } else {
    MESSAGE("running as root: a read-only folder is writable, not checked");
  }
  fs::permissions(dir.path / "locked", fs::perms::owner_all);
  CHECK(fs::is_empty(dir.path / "locked"));
  CHECK(app.timeline.playhead() == 2);
}

TEST_CASE("export: a GIF range outside the lesson, backwards, or at a bad frame rate is refused") {
  AppState app;
  open_at(app, "online", 4);
  const int n = app.timeline.count();
  TempDir dir("export");
  ExportRequest r = picture(dir.file("a.gif"));
  r.kind = ExportRequest::gif;
  r.from = 0;
  r.to = n;
  CHECK(check_export(app, r) == strf("Steps 1 to %d are not all there: this recording has steps 1 to %d.", n + 1, n));
  r.from = 5;
  r.to = 3;
  CHECK(check_export(app, r) == "The first step (6) comes after the last (4).");
  r.from = 1;
  for (double fps : {0.0, -1.0, 100.5, 1e-30, 0.09}) {
    r.fps = fps;
    CHECK(check_export(app, r) ==
          "The speed must be from 0.1 to 100 steps per second: a GIF times frames in hundredths of a second.");
  }
  r.fps = 100;
  CHECK(check_export(app, r) == "");
  r.fps = 0.1;
  CHECK(check_export(app, r) == "");
  // What the dialog promises is what the file holds: whole hundredths of a second per frame.
  CHECK(gif_delay_cs(0.1) == 1000);
  CHECK(gif_delay_cs(3) == 33);
  CHECK(gif_seconds(10, 3) == doctest::Approx(3.3));
  CHECK(gif_seconds(4, 100) == doctest::Approx(0.04));
  r.scale = 9.0f;
  CHECK(check_export(app, r).find("0.25 to 8 pixels") != std::string::npos);
  r.scale = 1.0f;
  r.panel = "nowhere";
  CHECK(check_export(app, r) == "There is no panel 'nowhere' to export.");
  ExportJob job;
  std::string error;
  CHECK_FALSE(job.start(app, r, nullptr, error));
  CHECK_FALSE(job.busy());
  CHECK(dir.entries().empty());
  CHECK(app.timeline.playhead() == 4);
}

// ---- rendering (a display or Xvfb) ----------------------------------------------------------

TEST_CASE("export: a PNG at 2x is twice the window in pixels, drawn, and leaves the window as it was") {
  if (!have_display()) {
    MESSAGE("no display: run under xvfb-run (./build.sh test does)");
    return;
  }
  AppState app;
  open_at(app, "attn-tiled", 5);
  app.tab = Tab::steps;  // a panel picture of the view must not take the user off this tab
  TempDir dir("export");
  ExportJob job;
  std::string error;
  ExportRequest r = picture(dir.file("whole.png"), 2.0f);
  REQUIRE_MESSAGE(job.start(app, r, nullptr, error), error);
  Png p = load_png(r.path);
  CHECK(p.w == 1280);
  CHECK(p.h == 800);
  CHECK(colours(p) > 64);
  CHECK(count_alpha_below(p, 255) == 0);  // opaque unless asked
  CHECK(job.message().find("Exported the picture " + r.path + " (1280×800, ") == 0);

  r = picture(dir.file("view.png"));
  r.panel = "view";
  REQUIRE_MESSAGE(job.start(app, r, nullptr, error), error);
  p = load_png(r.path);
  // A panel is cropped to what it draws (export: a panel picture is a figure for a slide).
  CHECK(p.w <= 640);
  CHECK(p.h < 400);
  CHECK(p.w > 100);
  CHECK(colours(p) > 16);
  CHECK(app.tab == Tab::steps);
  CHECK(app.timeline.playhead() == 5);
  CHECK(dir.entries() == std::vector<std::string>{"view.png", "whole.png"});
}

TEST_CASE("export: a transparent PNG has a see-through background and opaque content") {
  if (!have_display()) return;
  AppState app;
  open_at(app, "online", 3);
  TempDir dir("export");
  ExportJob job;
  std::string error;
  ExportRequest r = picture(dir.file("clear.png"));
  r.transparent = true;
  REQUIRE_MESSAGE(job.start(app, r, nullptr, error), error);
  const Png p = load_png(r.path);
  REQUIRE(p.w == 640);
  const std::size_t all = static_cast<std::size_t>(p.w) * p.h;
  // The panels' background is the clear colour, so most of the picture is background...
  CHECK(count_alpha_below(p, 1) > all / 4);
  // ...and the text, cells and frames are still there, opaque.
  CHECK(all - count_alpha_below(p, 255) > all / 50);
}

TEST_CASE("export: a panel at 2x transparent is a slide figure: cropped to what it draws, and every drawn pixel ringed by the theme's background") {
  if (!have_display()) return;
  AppState app;
  open_at(app, "attn-tiled", 5);
  TempDir dir("export");
  ExportJob job;
  std::string error;
  ExportRequest r = picture(dir.file("figure.png"), 2.0f);
  r.width = 1280;
  r.height = 800;
  r.panel = "view";
  r.transparent = true;
  REQUIRE_MESSAGE(job.start(app, r, nullptr, error), error);
  const Png p = load_png(r.path);
  CAPTURE(p.w);
  CAPTURE(p.h);
  // Smaller than the window: the panel's content, not the window's area.
  CHECK(p.w < 2560);
  CHECK(p.h < 1600);
  CHECK(p.w > 400);
  CHECK(p.h > 300);
  auto alpha = [&](int x, int y) { return p.rgba[(static_cast<std::size_t>(y) * p.w + x) * 4 + 3]; };
  // What is drawn reaches to within the margin (8 units = 16 px) of every edge: no empty band.
  int x0 = p.w, y0 = p.h, x1 = -1, y1 = -1;
  for (int y = 0; y < p.h; ++y)
    for (int x = 0; x < p.w; ++x)
      if (alpha(x, y) > 0) x0 = std::min(x0, x), x1 = std::max(x1, x), y0 = std::min(y0, y), y1 = std::max(y1, y);
  const int margin = 16;
  CHECK(x0 <= margin);
  CHECK(y0 <= margin);
  CHECK(p.w - 1 - x1 <= margin);
  CHECK(p.h - 1 - y1 <= margin);
  // Every drawn pixel next to the clear background is the halo: opaque, the dark theme's
  // background colour. So the picture's light text reads on a white slide as on a dark one.
  const ImVec4 bg = clear_colour(Theme::dark);
  const int hr = static_cast<int>(bg.x * 255 + 0.5f), hg = static_cast<int>(bg.y * 255 + 0.5f),
            hb = static_cast<int>(bg.z * 255 + 0.5f);
  std::size_t edge = 0, not_halo = 0;
  for (int y = 1; y + 1 < p.h; ++y)
    for (int x = 1; x + 1 < p.w; ++x) {
      if (alpha(x, y) == 0) continue;
      if (alpha(x - 1, y) && alpha(x + 1, y) && alpha(x, y - 1) && alpha(x, y + 1)) continue;
      ++edge;
      const unsigned char* c = p.rgba.data() + (static_cast<std::size_t>(y) * p.w + x) * 4;
      not_halo += !(c[3] == 255 && c[0] == hr && c[1] == hg && c[2] == hb);
    }
  CHECK(edge > 1000);
  CHECK(not_halo == 0);
}

TEST_CASE("export: a GIF of steps 3 to 6 has 4 different frames, one per step() call, and the playhead goes back") {
  if (!have_display()) return;
  AppState app;
  open_at(app, "online", 6);
  app.timeline.play();
  TempDir dir("export");
  ExportJob job;
  std::string error;
  ExportRequest r = picture(dir.file("anim.gif"));
  r.kind = ExportRequest::gif;
  r.from = 2;
  r.to = 5;
  r.fps = 2;
  const mode_t old_umask = umask(022);  // the GIF is created now, as a PNG would be: 0666 & ~umask
  const bool started = job.start(app, r, nullptr, error);
  umask(old_umask);
  REQUIRE_MESSAGE(started, error);
  CHECK(job.busy());
  CHECK_FALSE(app.timeline.playing());  // playback would move the playhead under the frames
  CHECK(job.frame_count() == 4);
  CHECK(job.progress() == 0.0f);
  int calls = 0;
  while (job.busy() && calls < 10) {
    job.step(app);
    ++calls;
    // The window shows the frame being written.
    if (job.busy()) CHECK(app.timeline.playhead() == 2 + calls - 1);
    if (calls == 2) CHECK(job.progress() == doctest::Approx(0.5));
  }
  CHECK(calls == 4);
  CHECK(job.outcome() == ExportJob::Outcome::done);
  CHECK(job.message().find("Exported the animation " + r.path + " (4 frames, 640×400, ") == 0);
  CHECK(app.timeline.playhead() == 6);
  CHECK(app.played.cursor->position() == 6);
  const Gif g = load_gif(r.path);
  CHECK(g.frames == 4);
  CHECK(g.w == 640);
  CHECK(g.h == 400);
  REQUIRE(g.rgb.size() == 4);
  for (int f = 1; f < 4; ++f) CHECK(g.rgb[static_cast<std::size_t>(f)] != g.rgb[static_cast<std::size_t>(f - 1)]);
  CHECK(dir.entries() == std::vector<std::string>{"anim.gif"});
  struct stat st {};
  REQUIRE(stat(r.path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0644);  // readable by others, as the PNGs are
}

TEST_CASE("export: a GIF with parts has a frame for each part of a tiled step, each different, and the playhead goes back") {
  if (!have_display()) return;
  AppState app;
  open_at(app, "attn-tiled", 2);
  // Steps 4 and 5 (from 0) of FlashAttention-1 are tile steps of three parts: S, P̃, the merge.
  REQUIRE(app.timeline.part_count_at(4) == 3);
  REQUIRE(app.timeline.part_count_at(5) == 3);
  TempDir dir("export");
  ExportJob job;
  std::string error;
  ExportRequest r = picture(dir.file("parts.gif"));
  r.kind = ExportRequest::gif;
  r.from = 4;
  r.to = 5;
  r.parts = true;
  REQUIRE_MESSAGE(job.start(app, r, nullptr, error), error);
  int calls = 0;
  while (job.busy() && calls < 20) {
    job.step(app);
    ++calls;
  }
  CHECK(calls == 6);
  CHECK(job.outcome() == ExportJob::Outcome::done);
  CHECK(app.timeline.playhead() == 2);
  const Gif g = load_gif(r.path);
  REQUIRE(g.frames == 6);
  for (int f = 1; f < 6; ++f) CHECK(g.rgb[static_cast<std::size_t>(f)] != g.rgb[static_cast<std::size_t>(f - 1)]);
}

TEST_CASE("export: a cancelled GIF leaves no file and no temporary file, and puts the playhead back") {
  if (!have_display()) return;
  AppState app;
  open_at(app, "safe", 1);
  TempDir dir("export");
  ExportJob job;
  std::string error;
  ExportRequest r = picture(dir.file("half.gif"));
  r.kind = ExportRequest::gif;
  r.from = 0;
  r.to = 6;
  REQUIRE_MESSAGE(job.start(app, r, nullptr, error), error);
  job.step(app);
  job.step(app);
  CHECK(job.busy());
  CHECK(app.timeline.playhead() == 1);
  CHECK(dir.entries().size() == 1);  // the temporary file being written
  job.cancel(app);
  CHECK_FALSE(job.busy());
  CHECK(job.outcome() == ExportJob::Outcome::cancelled);
  CHECK(job.message() == "Export cancelled: " + r.path + " was not written.");
  CHECK(dir.entries().empty());
  CHECK(app.timeline.playhead() == 1);

  // A new recording in the middle (another lesson opened) stops the GIF the same way, and the
  // new lesson keeps its own playhead.
  REQUIRE_MESSAGE(job.start(app, r, nullptr, error), error);
  job.step(app);
  app.open_lesson("online");
  app.seek(3);
  job.step(app);
  CHECK_FALSE(job.busy());
  CHECK(job.outcome() == ExportJob::Outcome::failed);
  CHECK(job.message().find("The recording changed") == 0);
  CHECK(dir.entries().empty());
  CHECK(app.timeline.playhead() == 3);

  // An unwritable GIF is refused at once.
  r.path = "/proc/nonexistent/x.gif";
  CHECK_FALSE(job.start(app, r, nullptr, error));
  CHECK(error == "There is no folder /proc/nonexistent.");
  r.path = "/proc/flashstep-export-test.gif";
  CHECK_FALSE(job.start(app, r, nullptr, error));
  CHECK(error.rfind(geteuid() == 0 ? "Cannot write /proc/flashstep-export-test.gif: " : "Cannot write in the folder /proc: ", 0) == 0);
  CHECK_FALSE(job.busy());
}

TEST_CASE("export: on the Compare tab a GIF steps the comparison's playhead") {
  if (!have_display()) return;
  AppState app;
  open_at(app, "online", 0);
  app.tab = Tab::compare;
  app.tick(0.0);  // records the two runs, as the window's next frame does
  REQUIRE(app.compare.timeline.count() > 4);
  app.seek_active(4);
  CHECK(steps_compare(app, ""));
  CHECK_FALSE(steps_compare(app, "view"));
  CHECK(default_export_name(app, ExportRequest::png, "", 0, 0) == "online-compare-step5.png");
  TempDir dir("export");
  ExportJob job;
  std::string error;
  ExportRequest r = picture(dir.file("cmp.gif"));
  r.kind = ExportRequest::gif;
  r.from = 0;
  r.to = 2;
  REQUIRE_MESSAGE(job.start(app, r, nullptr, error), error);
  job.step(app);
  CHECK(app.compare.timeline.playhead() == 0);
  CHECK(app.compare.left.cursor->position() == 0);
  while (job.busy()) job.step(app);
  CHECK(job.outcome() == ExportJob::Outcome::done);
  CHECK(app.compare.timeline.playhead() == 4);
  CHECK(app.tab == Tab::compare);
  const Gif g = load_gif(r.path);
  REQUIRE(g.frames == 3);
  CHECK(g.rgb[0] != g.rgb[2]);
}
