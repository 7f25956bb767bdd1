// `flashstep shot` and `flashstep gif` run as a lecturer runs them: every lesson renders, a
// scenario file renders what its lesson shows, pictures have the asked size, content and theme,
// and failures are one clear line. The pictures' context is EGL's where it works (no display
// needed); the --gl glfw cases need a display (./build.sh test provides Xvfb).
#include "app/export/export_job.h"
#include "app/ui/model/app_state.h"
#include "app/ui/panels/frame.h"
#include "core/lessons.h"
#include "core/scenario_json.h"

#include "tests/invoke.h"
#include "tests/images.h"

#include <doctest/doctest.h>
#include <gif_lib.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace {

using exe::invoke;

std::string shot_file(const std::string& name) { return "/tmp/flashstep-shot-" + std::to_string(getpid()) + "-" + name; }

using images::load_png;
using images::Png;

// Writes `text` to a scratch file and returns its path.
std::string scratch_file(const std::string& name, const std::string& text) {
  const std::string path = shot_file(name);
  std::ofstream(path) << text;
  return path;
}

// A scenario file that holds lesson `id`'s preset, opened at `playhead`.
std::string preset_file(const std::string& id, int playhead) {
  flashstep::ScenarioDocument doc;
  doc.lesson = id;
  doc.playhead = playhead;
  doc.scenario = flashstep::find_lesson(id)->scenario;
  return scratch_file(id + "-preset.json", flashstep::document_to_json(doc).dump(1));
}

// Mean of R, G and B over the picture, 0..255.
double brightness(const Png& p) {
  double sum = 0;
  for (std::size_t i = 0; i < p.rgba.size(); i += 4) sum += p.rgba[i] + p.rgba[i + 1] + p.rgba[i + 2];
  return p.rgba.empty() ? 0 : sum / (3.0 * static_cast<double>(p.rgba.size() / 4));
}

// Mean of R, G and B of one pixel, x and y as fractions of the size.
int pixel(const Png& p, double fx, double fy) {
  const std::size_t i = (static_cast<std::size_t>(fy * p.h) * p.w + static_cast<std::size_t>(fx * p.w)) * 4;
  return (p.rgba[i] + p.rgba[i + 1] + p.rgba[i + 2]) / 3;
}

std::size_t colours(const Png& p) {
  std::set<unsigned> seen;
  for (std::size_t i = 0; i < p.rgba.size() && seen.size() < 1000; i += 4 * 7)
    seen.insert(p.rgba[i] | p.rgba[i + 1] << 8 | p.rgba[i + 2] << 16);
  return seen.size();
}

}  // namespace

TEST_CASE("shot renders every lesson, at its first and last step, and the two differ") {
  std::string err;
  for (const auto& lesson : flashstep::lessons()) {
    CAPTURE(lesson.id);
    const std::string first = shot_file(lesson.id + "-first.png"), last = shot_file(lesson.id + "-last.png");
    REQUIRE(invoke("shot --lesson " + lesson.id + " --step 1 --width 640 --height 400 --out " + first, err) == 0);
    REQUIRE(invoke("shot --lesson " + lesson.id + " --step last --width 640 --height 400 --out " + last, err) == 0);
    const Png a = load_png(first), b = load_png(last);
    CHECK(a.w == 640);
    CHECK(a.h == 400);
    CHECK(colours(a) > 20);  // not blank
    CHECK(a.rgba != b.rgba);
    std::remove(first.c_str());
    std::remove(last.c_str());
  }
}

TEST_CASE("shot --scale renders W·S × H·S pixels, --transparent leaves the background clear") {
  std::string err;
  const std::string path = shot_file("scaled.png");
  REQUIRE(invoke("shot --lesson online --step 3 --width 400 --height 300 --scale 2 --transparent --out " + path, err) == 0);
  const Png p = load_png(path);
  CHECK(p.w == 800);
  CHECK(p.h == 600);
  std::size_t clear = 0;
  for (std::size_t i = 3; i < p.rgba.size(); i += 4) clear += p.rgba[i] < 255;
  CHECK(clear > p.rgba.size() / 4 / 10);  // a good part of the picture is background
  std::remove(path.c_str());
}

TEST_CASE("shot --panel gives the panel alone, cropped to what it draws with a margin of background") {
  std::string err;
  const std::string path = shot_file("panel.png");
  REQUIRE(invoke("shot --lesson online --step 3 --width 1280 --height 800 --panel view --out " + path, err) == 0);
  const Png p = load_png(path);
  CHECK(p.w < 1280);
  CHECK(p.h < 800);
  CHECK(p.w > 200);
  CHECK(p.h > 200);
  CHECK(colours(p) > 20);
  // The outermost rows and columns are background: nothing is cut at the edge.
  auto px = [&](int x, int y) { return p.rgba.data() + (static_cast<std::size_t>(y) * p.w + x) * 4; };
  bool edge_plain = true;
  for (int x = 0; x < p.w; ++x)
    edge_plain &= std::equal(px(x, 0), px(x, 0) + 4, px(0, 0)) && std::equal(px(x, p.h - 1), px(x, p.h - 1) + 4, px(0, 0));
  for (int y = 0; y < p.h; ++y)
    edge_plain &= std::equal(px(0, y), px(0, y) + 4, px(0, 0)) && std::equal(px(p.w - 1, y), px(p.w - 1, y) + 4, px(0, 0));
  CHECK(edge_plain);
  std::remove(path.c_str());
}

TEST_CASE("shot --panel: every panel is a figure, with no title bar, close button or border, and cropped to what it draws with a margin of background") {
  std::string err;
  for (const std::string& panel : flashstep::ui::panel_names()) {
    CAPTURE(panel);
    const std::string path = shot_file("panel-" + panel + ".png");
    // FlashAttention-2 backward at a middle step: every panel has something to show (Measure it
    // yourself its points, timed first: at N = 512 alone, to be quick).
    REQUIRE(invoke("shot --lesson attn-flash-backward --step 9 --width 1280 --height 800 --panel " + panel +
                       (panel == "measure-lab" ? " --measure-n 512" : "") + " --out " + path,
                   err) == 0);
    const Png p = load_png(path);
    CAPTURE(p.w);
    CAPTURE(p.h);
    CHECK(p.h < 800);  // not the window's height: what the panel draws
    CHECK(colours(p) > 3);
    // The outermost rows and columns are background: no title bar, no border, nothing cut.
    auto px = [&](int x, int y) { return p.rgba.data() + (static_cast<std::size_t>(y) * p.w + x) * 4; };
    int framed = 0;
    for (int x = 0; x < p.w; ++x)
      framed += !std::equal(px(x, 0), px(x, 0) + 4, px(0, 0)) + !std::equal(px(x, p.h - 1), px(x, p.h - 1) + 4, px(0, 0));
    for (int y = 0; y < p.h; ++y)
      framed += !std::equal(px(0, y), px(0, y) + 4, px(0, 0)) + !std::equal(px(p.w - 1, y), px(p.w - 1, y) + 4, px(0, 0));
    CHECK(framed == 0);
    std::remove(path.c_str());
  }
}

TEST_CASE("a picture of Measure it yourself times the lab first, on the CPU: its plots have points, not 'no points yet'") {
  // "no points yet", drawn in each empty plot in this grey: its glyphs' solid pixels.
  auto no_points_pixels = [](const Png& p) {
    int n = 0;
    for (std::size_t i = 0; i + 3 < p.rgba.size(); i += 4) n += p.rgba[i] == 160 && p.rgba[i + 1] == 160 && p.rgba[i + 2] == 170;
    return n;
  };
  std::string err;
  const std::string out = shot_file("measure.png"), gif = shot_file("measure.gif");
  REQUIRE(invoke("shot --lesson measure --panel measure-lab --measure-n 512 --measure-d 128 --out " + out, err) == 0);
  CHECK(err.find("Measure it yourself: timing naive and tiled attention for N = 512 at d = 128, and safe and online "
                 "softmax, on this machine's CPU first") != std::string::npos);
  CHECK(no_points_pixels(load_png(out)) == 0);
  // The whole window of a scenario file that opens on the lab's tab, and an animation of it.
  const std::string tab = scratch_file(
      "measure-tab.json", R"({"flashstep_scenario": 1, "lesson": "measure", "scenario": {}, "layout": {"tab": "measure-lab"}})");
  REQUIRE(invoke("shot --scenario " + tab + " --measure-n 1024 --out " + out, err) == 0);
  CHECK(err.find("for N = 512 to 1024 at d = 64") != std::string::npos);
  CHECK(no_points_pixels(load_png(out)) == 0);
  REQUIRE(invoke("gif --scenario " + tab + " --measure-n 512 --to 2 --out " + gif, err) == 0);
  CHECK(err.find("for N = 512 at d = 64") != std::string::npos);
  // A picture that does not show the lab does not time it: the lesson's recording at a step.
  REQUIRE(invoke("shot --lesson measure --step 2 --out " + out, err) == 0);
  CHECK(err.find("Measure it yourself") == std::string::npos);
  for (const std::string& f : {out, gif, tab}) std::remove(f.c_str());
}

TEST_CASE("shot --panel view of an attention lesson is cropped too: the legend sits under the matrices, not at the window's bottom") {
  std::string err;
  const std::string path = shot_file("attn-panel.png");
  REQUIRE(invoke("shot --lesson attn-tiled --step 6 --scale 2 --transparent --panel view --out " + path, err) == 0);
  const Png p = load_png(path);
  CAPTURE(p.w);
  CAPTURE(p.h);
  CHECK(p.w <= 2560);  // the matrices at "fit" take the panel's width
  CHECK(p.h < 1600 - 64);
  CHECK(p.h > 400);
  // No fully transparent band wider than the margin (16 px at 2x) along the bottom.
  int last = -1;
  for (int y = 0; y < p.h; ++y)
    for (int x = 0; x < p.w; ++x)
      if (p.rgba[(static_cast<std::size_t>(y) * p.w + x) * 4 + 3] > 0) last = y;
  CHECK(p.h - 1 - last <= 16);
  std::remove(path.c_str());
}

TEST_CASE("gif writes one frame per step of the range") {
  std::string err;
  const std::string path = shot_file("range.gif");
  REQUIRE(invoke("gif --lesson safe --from 2 --to 6 --fps 5 --width 320 --height 240 --out " + path, err) == 0);
  int e = 0;
  GifFileType* g = DGifOpenFileName(path.c_str(), &e);
  REQUIRE(g != nullptr);
  REQUIRE(DGifSlurp(g) == GIF_OK);
  CHECK(g->ImageCount == 5);
  CHECK(g->SWidth == 320);
  CHECK(g->SHeight == 240);
  DGifCloseFile(g, &e);
  std::remove(path.c_str());
}

TEST_CASE("gif --parts adds a frame for each part of a tiled step: S, P~ and the merge") {
  std::string err;
  const std::string path = shot_file("parts.gif");
  // Steps 5 and 6 of FlashAttention-1 are tile steps of three parts each.
  REQUIRE(invoke("gif --lesson attn-tiled --from 5 --to 6 --parts --width 480 --height 320 --out " + path, err) == 0);
  CHECK(images::gif_frames(path).size() == 6);
  REQUIRE(invoke("gif --lesson attn-tiled --from 5 --to 6 --width 480 --height 320 --out " + path, err) == 0);
  CHECK(images::gif_frames(path).size() == 2);
  std::remove(path.c_str());
}

TEST_CASE("shot --scenario draws what shot --lesson draws: the preset at the file's playhead, or --step") {
  std::string err;
  for (const auto& preset : {std::pair<std::string, int>{"attn-tiled", 4}, {"online", 2}, {"chunked", 0}}) {
    const std::string& id = preset.first;
    const int playhead = preset.second;
    CAPTURE(id);
    const std::string file = preset_file(id, playhead);
    const std::string a = shot_file("scenario.png"), b = shot_file("lesson.png");
    REQUIRE(invoke("shot --scenario " + file + " --width 640 --height 400 --out " + a, err) == 0);
    REQUIRE(invoke("shot --lesson " + id + " --step " + std::to_string(playhead + 1) + " --width 640 --height 400 --out " + b, err) == 0);
    const Png from_file = load_png(a), from_lesson = load_png(b);
    REQUIRE(from_file.w == 640);
    CHECK(colours(from_file) > 20);
    CHECK(from_file.rgba == from_lesson.rgba);
    // --step wins over the file's playhead.
    REQUIRE(invoke("shot --scenario " + file + " --step last --width 640 --height 400 --out " + a, err) == 0);
    REQUIRE(invoke("shot --lesson " + id + " --step last --width 640 --height 400 --out " + b, err) == 0);
    CHECK(load_png(a).rgba == load_png(b).rgba);
    CHECK(load_png(a).rgba != from_file.rgba);
    std::remove(a.c_str());
    std::remove(b.c_str());
    std::remove(file.c_str());
  }
}

TEST_CASE("one step numbering: the window's step 9, the export dialog's name for it and shot --step 9 are one step") {
  using namespace flashstep::ui;
  AppState app;
  app.background_allowed = false;
  REQUIRE(app.open_lesson("attn-tiled"));
  app.seek(8);
  CHECK(app.timeline.position_text().find("step 9/") != std::string::npos);
  CHECK(default_export_name(app, ExportRequest::png, "", 0, 0) == "attn-tiled-step9.png");
  CHECK(default_export_name(app, ExportRequest::gif, "", 1, 4) == "attn-tiled-steps2-5.gif");
  // What the window shows there (a scenario file saved at that playhead) is what --step 9 draws.
  std::string err;
  const std::string file = preset_file("attn-tiled", app.timeline.playhead());
  const std::string a = shot_file("window-step.png"), b = shot_file("shot-step.png");
  REQUIRE(invoke("shot --scenario " + file + " --width 640 --height 400 --out " + a, err) == 0);
  REQUIRE(invoke("shot --lesson attn-tiled --step 9 --width 640 --height 400 --out " + b, err) == 0);
  CHECK(load_png(a).rgba == load_png(b).rgba);
  // A GIF of steps 2 to 5 has their four frames.
  const std::string gif = shot_file("steps2-5.gif");
  REQUIRE(invoke("gif --lesson attn-tiled --from 2 --to 5 --width 320 --height 240 --out " + gif, err) == 0);
  int e = 0;
  GifFileType* g = DGifOpenFileName(gif.c_str(), &e);
  REQUIRE(g != nullptr);
  REQUIRE(DGifSlurp(g) == GIF_OK);
  CHECK(g->ImageCount == 4);
  DGifCloseFile(g, &e);
  for (const std::string& f : {file, a, b, gif}) std::remove(f.c_str());
}

TEST_CASE("shot --panel compare --step K and gif --panel compare count Compare's steps, the longer run's, not the lesson's") {
  // The online lesson: 8 steps of its own; Compare holds safe softmax (12 steps) beside it.
  std::string err;
  const std::string first = shot_file("compare-1.png"), last = shot_file("compare-12.png"), gif = shot_file("compare.gif");
  REQUIRE(invoke("shot --lesson online --panel compare --step 1 --width 640 --height 400 --out " + first, err) == 0);
  REQUIRE(invoke("shot --lesson online --panel compare --step 12 --width 640 --height 400 --out " + last, err) == 0);
  CHECK(load_png(first).rgba != load_png(last).rgba);
  CHECK(invoke("shot --lesson online --panel compare --step 13 --out " + last, err) == 2);
  CHECK(err.find("--step 13: lesson 'online' on Compare has steps 1..12") != std::string::npos);
  REQUIRE(invoke("gif --lesson online --panel compare --from 1 --to 12 --width 320 --height 240 --out " + gif, err) == 0);
  CHECK(images::gif_frames(gif).size() == 12);
  // The same step on the lesson's own view is the lesson's: step 12 of 8 is refused.
  CHECK(invoke("shot --lesson online --panel view --step 12 --out " + last, err) == 2);
  CHECK(err.find("lesson 'online' has steps 1..8") != std::string::npos);
  for (const std::string& f : {first, last, gif}) std::remove(f.c_str());
}

TEST_CASE("gif --scenario renders the file's scenario, one frame per step") {
  std::string err;
  const std::string file = scratch_file("chunked-k3.json",
                                        R"({"flashstep_scenario": 1, "lesson": "chunked", "playhead": 5,
                                            "scenario": {"algorithm": "chunked", "input": [[3, 2, 5, 1, 7, 0]], "chunks": 3}})");
  const std::string path = shot_file("scenario.gif");
  REQUIRE(invoke("gif --scenario " + file + " --from 1 --to 4 --width 320 --height 240 --theme projector --out " + path, err) == 0);
  int e = 0;
  GifFileType* g = DGifOpenFileName(path.c_str(), &e);
  REQUIRE(g != nullptr);
  REQUIRE(DGifSlurp(g) == GIF_OK);
  CHECK(g->ImageCount == 4);
  DGifCloseFile(g, &e);
  std::remove(path.c_str());
  std::remove(file.c_str());
}

TEST_CASE("--theme light draws a light window, dark a dark one, projector a black background") {
  std::string err;
  Png pictures[3];
  const char* themes[] = {"dark", "light", "projector"};
  for (int t = 0; t < 3; ++t) {
    const std::string path = shot_file(std::string(themes[t]) + ".png");
    REQUIRE(invoke(std::string("shot --lesson online --step 3 --theme ") + themes[t] + " --out " + path, err) == 0);
    pictures[t] = load_png(path);
    REQUIRE(pictures[t].w == 1280);
    std::remove(path.c_str());
  }
  const Png &dark = pictures[0], &light = pictures[1], &projector = pictures[2];
  // Near the bottom-right corner of the view area, right of the legend: background only.
  CHECK(pixel(dark, 0.70, 0.53) < 60);
  CHECK(pixel(light, 0.70, 0.53) > 200);
  CHECK(pixel(projector, 0.70, 0.53) < 10);
  CHECK(brightness(dark) < 100);
  CHECK(brightness(light) > 150);
  CHECK(brightness(projector) < brightness(dark));
  // Without --theme: dark.
  const std::string path = shot_file("default.png");
  REQUIRE(invoke("shot --lesson online --step 3 --out " + path, err) == 0);
  CHECK(load_png(path).rgba == dark.rgba);
  std::remove(path.c_str());
}

TEST_CASE("bad shot and gif arguments: exit 2, one line, no file left behind") {
  struct Case {
    std::string args, mentions;
  };
  const std::string out = shot_file("bad.png");
  const std::string not_json = scratch_file("not-json.json", "this is not JSON");
  const std::string newer = scratch_file("version99.json", R"({"flashstep_scenario": 99, "scenario": {}})");
  const std::string unknown = scratch_file("unknown.json", R"({"flashstep_scenario": 1, "lesson": "quicksort", "scenario": {}})");
  const std::string bad_field = scratch_file("bad-field.json", R"({"flashstep_scenario": 1, "scenario": {"precision": "fp8"}})");
  const std::string too_big = scratch_file(
      "too-big.json", R"({"flashstep_scenario": 1, "lesson": "attn-naive", "scenario": {"algorithm": "attn-naive", "n": 4096, "d": 4}})");
  const std::string bad_layout = scratch_file("bad-layout.json", R"({"flashstep_scenario": 1, "scenario": {}, "layout": {"tab": "nope"}})");
  const std::string bad_playhead = scratch_file("bad-playhead.json", R"({"flashstep_scenario": 1, "scenario": {}, "playhead": "x"})");
  const std::string empty = scratch_file("empty.json", "");
  // [5, 3, 1]: the maximum never grows, so the online lesson's "first rescale" (stop 2) never happens.
  const std::string falling = scratch_file(
      "falling.json", R"({"flashstep_scenario": 1, "lesson": "online", "scenario": {"algorithm": "online", "input": [[5, 3, 1]]}})");
  const Case cases[] = {
      {"shot --lesson online --present --panel memory --out " + out, "--present draws the whole slide"},
      {"shot --lesson online --tour-stop 0 --out " + out, "--tour-stop '0': use a stop number from 1"},
      {"shot --lesson online --tour-stop x --out " + out, "--tour-stop 'x': use a stop number from 1"},
      {"shot --lesson online --tour-stop 99 --out " + out, "--tour-stop 99: the tour of lesson 'online' has stops 1..6"},
      {"shot --lesson online --tour-stop 2 --step 3 --out " + out, "leave out --step, --part and --ask"},
      {"shot --scenario " + falling + " --tour-stop 2 --out " + out,
       "--tour-stop 2: stop 2 (the first rescale) does not happen with these inputs"},
      {"shot --lesson nope --out " + out, "nope"},
      {"shot --lesson online", "--out"},
      {"shot --lesson online --step 999 --out " + out, "--step 999"},
      {"shot --lesson online --step x --out " + out, "--step"},
      // Steps count from 1, as the window shows them: there is no step 0.
      {"shot --lesson online --step 0 --out " + out, "--step 0: steps count from 1"},
      {"gif --lesson online --from 0 --to 2 --out " + out, "--from 0: steps count from 1"},
      {"gif --lesson online --to 0 --out " + out, "--to 0: steps count from 1"},
      {"shot --lesson online --step 9 --out " + out, "has steps 1..8"},
      {"shot --lesson online --panel nope --out " + out, "--panel"},
      {"shot --lesson online --scale 0 --out " + out, "--scale"},
      {"shot --lesson online --out /nonexistent-dir/x.png", "/nonexistent-dir/x.png: No such file or directory"},
      // The system's reason, not a guess: a name longer than the file system allows.
      {"shot --lesson online --out " + shot_file(std::string(300, 'a') + ".png"), "File name too long"},
      {"gif --lesson online --to 1 --out " + shot_file(std::string(300, 'a') + ".gif"), "File name too long"},
      {"gif --lesson online --fps 1e-30 --out " + out, "--fps"},
      {"gif --lesson online --fps 1000 --out " + out, "--fps"},
      {"gif --lesson online --from 5 --to 2 --out " + out, "--from"},
      {"gif --lesson online --fps 0 --out " + out, "--fps"},
      {"gif --lesson online --out /nonexistent-dir/x.gif", "/nonexistent-dir/x.gif: No such file or directory"},
      {"shot --out " + out, "--lesson ID or --scenario FILE"},
      {"gif --out " + out, "--lesson ID or --scenario FILE"},
      {"shot --lesson online --scenario " + not_json + " --out " + out, "not both"},
      {"gif --lesson online --scenario " + not_json + " --out " + out, "not both"},
      {"shot --lesson online --theme sepia --out " + out, "dark, light or projector"},
      {"gif --lesson online --theme '' --out " + out, "dark, light or projector"},
      {"shot --scenario /nonexistent-dir/s.json --out " + out, "/nonexistent-dir/s.json"},
      {"shot --scenario " + not_json + " --out " + out, not_json + ": scenario file is not JSON"},
      {"gif --scenario " + not_json + " --out " + out, not_json + ": scenario file is not JSON"},
      {"shot --scenario " + newer + " --out " + out, "newer"},
      {"shot --scenario " + unknown + " --out " + out, "quicksort"},
      {"gif --scenario " + unknown + " --out " + out, "quicksort"},
      {"shot --scenario " + bad_field + " --out " + out, "fp8"},
      {"shot --scenario " + too_big + " --out " + out, "N = 4096"},
      {"shot --scenario " + bad_layout + " --out " + out, "layout.tab"},
      {"shot --scenario " + bad_playhead + " --out " + out, "playhead"},
      {"gif --scenario " + empty + " --out " + out, "empty"},
      {"shot --lesson measure --panel measure-lab --measure-n 1000 --out " + out,
       "--measure-n 1000: the largest N of Measure it yourself is a power of two from 512 to 16384"},
      {"gif --lesson measure --panel measure-lab --measure-n 32768 --out " + out, "--measure-n: Value 32768 not in range 512 to 16384"},
      {"shot --lesson measure --panel measure-lab --measure-d 96 --out " + out, "--measure-d: 96 not in {64,128}"},
      {"shot --lesson measure --panel measure-lab --measure-n x --out " + out, "--measure-n"},
      {"shot --lesson measure --panel measure-lab --measure-n 0 --out " + out, "--measure-n: Value 0 not in range 512 to 16384"},
      {"gif --lesson measure --panel measure-lab --measure-d -64 --out " + out, "--measure-d: -64 not in {64,128}"},
      {"shot --lesson online --measure-n 512 --out " + out,
       "--measure-n: lesson 'online' does not open on Measure it yourself; add --panel measure-lab for the lab alone"},
      {"gif --lesson online --panel view --measure-d 128 --out " + out, "--measure-d: lesson 'online' does not open on Measure it yourself"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.args);
    std::string err;
    CHECK(invoke(c.args, err) == 2);
    CHECK(err.find(c.mentions) != std::string::npos);
    CHECK(std::count(err.begin(), err.end(), '\n') == 1);
    CHECK(access(out.c_str(), F_OK) != 0);
  }
  for (const std::string& f : {not_json, newer, unknown, bad_field, too_big, bad_layout, bad_playhead, empty}) std::remove(f.c_str());
}

TEST_CASE("with no display, shot and gif draw in an EGL context, and the CPU vs GPU lesson is drawn from its GPU run") {
  std::string err;
  const std::string png = shot_file("cpu-vs-gpu.png"), gif = shot_file("cpu-vs-gpu.gif");
  const std::string no_display = "env -u DISPLAY -u WAYLAND_DISPLAY ";
  const std::string exe = std::string(FLASHSTEP_EXE);
  const std::string err_file = shot_file("egl-stderr");
  auto run = [&](const std::string& args) {
    const int st = std::system((no_display + exe + " " + args + " >/dev/null 2>" + err_file).c_str());
    std::ifstream in(err_file);
    err.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  };
  REQUIRE(run("shot --lesson cpu-vs-gpu --out " + png) == 0);
  CHECK(err.find("the GPU run is recorded on") != std::string::npos);
  CHECK(err.find("context: egl-") != std::string::npos);
  const Png p = load_png(png);
  CHECK(p.w == 1280);
  CHECK(colours(p) > 20);
  // A lesson on the CPU says nothing about backends.
  REQUIRE(run("shot --lesson online --step 2 --width 640 --height 400 --out " + png) == 0);
  CHECK(err.empty());
  REQUIRE(run("gif --lesson cpu-vs-gpu --from 1 --to 3 --width 640 --height 400 --out " + gif) == 0);
  CHECK(err.find("the GPU run is recorded on") != std::string::npos);
  GifFileType* g = DGifOpenFileName(gif.c_str(), nullptr);
  REQUIRE(g != nullptr);
  REQUIRE(DGifSlurp(g) == GIF_OK);
  CHECK(g->ImageCount == 3);
  DGifCloseFile(g, nullptr);
  // --gl glfw needs a display, and says so in one line.
  CHECK(run("shot --lesson online --gl glfw --out " + png) == 2);
  CHECK(err.find("DISPLAY") != std::string::npos);
  CHECK(std::count(err.begin(), err.end(), '\n') == 1);
  CHECK(run("shot --lesson online --gl vulkan --out " + png) == 2);
  CHECK(err.find("--gl 'vulkan': use auto, egl or glfw") != std::string::npos);
  for (const std::string& f : {png, gif, err_file}) std::remove(f.c_str());
}

TEST_CASE("shot --gl glfw (a hidden window on the display) draws the same picture as EGL") {
  std::string err;
  const std::string a = shot_file("glfw.png"), b = shot_file("egl.png");
  REQUIRE(invoke("shot --lesson attn-tiled --step 5 --gl glfw --out " + a, err) == 0);
  REQUIRE(invoke("shot --lesson attn-tiled --step 5 --gl egl --out " + b, err) == 0);
  const Png pa = load_png(a), pb = load_png(b);
  CHECK(pa.w == pb.w);
  CHECK(pa.rgba == pb.rgba);
  std::remove(a.c_str());
  std::remove(b.c_str());
}

TEST_CASE("shot --ask draws the question over the step before it, --answer its step scored, misuse in one line") {
  std::string err;
  const std::string plain = shot_file("ask-plain.png"), ask = shot_file("ask.png"), right = shot_file("ask-right.png"),
                    wrong = shot_file("ask-wrong.png"), step2 = shot_file("ask-step2.png");
  const std::string size = " --width 640 --height 400 --out ";
  // The online lesson's first question is l after step 2 ([3, 2, 5, 1]: l₂ = 1 + e⁻¹ = 1.3679).
  REQUIRE(invoke("shot --lesson online --step 1" + size + plain, err) == 0);
  REQUIRE(invoke("shot --lesson online --step 2" + size + step2, err) == 0);
  REQUIRE(invoke("shot --lesson online --ask" + size + ask, err) == 0);
  REQUIRE(invoke("shot --lesson online --ask --answer 1.37" + size + right, err) == 0);
  REQUIRE(invoke("shot --lesson online --ask --answer 1.36" + size + wrong, err) == 0);
  const Png p = load_png(plain), a = load_png(ask), r = load_png(right), w = load_png(wrong), s2 = load_png(step2);
  REQUIRE(a.w == 640);
  REQUIRE(a.h == 400);
  auto differ = [](const Png& x, const Png& y) {
    std::size_t n = 0;
    for (std::size_t i = 0; i < x.rgba.size() && i < y.rgba.size(); ++i) n += x.rgba[i] != y.rgba[i];
    return n;
  };
  CHECK(differ(p, a) > 0);   // the question box over step 1
  CHECK(differ(s2, r) > 0);  // the answer box over step 2
  CHECK(differ(r, w) > 0);   // ✓ in green, ✗ in red, and the typed value
  CHECK(invoke("shot --lesson online --answer 1.37 --out " + shot_file("x.png"), err) == 2);
  CHECK(err == "flashstep: --answer needs --ask\n");
  CHECK(invoke("shot --lesson online --ask --step 1 --out " + shot_file("x.png"), err) == 2);
  CHECK(err.find("flashstep: --ask: step 1 has no question; lesson 'online' asks at steps 2") == 0);
  CHECK(invoke("shot --lesson online --ask --answer 1.4 --out " + shot_file("x.png"), err) == 2);
  CHECK(err == "flashstep: --answer '1.4': give at least 3 significant digits (the screen shows 5)\n");
  CHECK(invoke("shot --lesson online --ask --panel view --out " + shot_file("x.png"), err) == 2);
  for (const std::string& f : {plain, ask, right, wrong, step2}) std::remove(f.c_str());
}
