// Real ImGui frames without a window or GL (Dear ImGui's "null" backend idea): every lesson and
// every tab draws, and the keyboard shortcuts move the same Timeline the buttons move.
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "tests/app/headless.h"
#include "tests/app/written_numbers.h"
#include "tests/rows.h"
#include "app/ui/model/app_state.h"
#include "app/ui/panels/frame.h"
#include "app/ui/style.h"
#include "app/ui/widgets.h"
#include "core/algorithms.h"
#include "core/engine.h"
#include "core/lessons.h"
#include "core/text.h"
#include "app/ui/panels/panels.h"

#include <doctest/doctest.h>
#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <set>

using namespace flashstep;
using namespace flashstep::ui;

namespace {

// Equal contents, nan equal to nan (the naive lesson's outputs are nan).
bool same_state(const State& a, const State& b) {
  if (a.values.size() != b.values.size() || a.defined != b.defined) return false;
  for (std::size_t i = 0; i < a.values.size(); ++i) {
    if (a.values[i].size() != b.values[i].size()) return false;
    for (std::size_t k = 0; k < a.values[i].size(); ++k) {
      const double x = a.values[i][k], y = b.values[i][k];
      if (!(x == y || (std::isnan(x) && std::isnan(y)))) return false;
    }
  }
  return true;
}

// Every step of each softmax lesson that `keep(row)` takes, in the window (1280 × 800) and
// presenting (1920 × 1080), with the lesson's example and with eight numbers whose five digits
// are as wide as they come, then the same scaled by 1/T (an s·x row under x): `at(app, opt)`
// after two frames at each.
template <class Keep, class At>
void every_softmax_step(Headless& h, Keep keep, At at) {
  for (const Lesson& l : lessons()) {
    if (!keep(info(l.scenario.algorithm))) continue;
    for (const bool presenting : {false, true})
      for (const int numbers : {0, 1, 2}) {  // the example, wide numbers, wide numbers scaled
        CAPTURE(l.id);
        CAPTURE(presenting);
        CAPTURE(numbers);
        ImGui::GetIO().DisplaySize = presenting ? ImVec2(1920, 1080) : ImVec2(1280, 800);
        AppState app;
        open_at(app, l.id.c_str(), Tab::lesson, presenting);
        if (numbers > 0) {
          app.inputs.x = {{-1.23456e-5, -98765.4321, 3.33333e-3, -0.555555, 1000.5, 42.4242, -7.77777, 0.123456}};
          app.inputs.vector_text = "";
          if (numbers == 2) {
            app.inputs.scale = ScaleChoice::temperature;
            app.inputs.temperature = 3.0;
          }
          app.inputs_changed();
          REQUIRE(app.input_error.empty());
        }
        const VectorViewOptions& opt = app.views.get<VectorViewOptions>();
        for (int k = 0; k < app.timeline.count(); ++k) {
          CAPTURE(k);
          app.seek(k);
          for (int f = 0; f < 2; ++f) h.frame(app);
          at(app, opt);
        }
      }
  }
  restore_window();
}

}  // namespace

TEST_CASE("frames: every lesson, tab and panel draws without a window") {
  Headless h;
  AppState app;
  app.background_allowed = false;
  for (const Lesson& l : lessons()) {
    CAPTURE(l.id);
    REQUIRE(app.open_lesson(l.id));
    for (Tab t : {Tab::lesson, Tab::compare, Tab::overflow_lab, Tab::scale_lab}) {
      app.tab = t;
      app.tab_changed = true;
      for (int k : {0, app.timeline.count() / 2, app.timeline.count() - 1}) {
        app.seek(k);
        h.frame(app);
        h.frame(app);
      }
    }
    app.tab = Tab::lesson;
    app.tab_changed = true;
    for (const std::string& p : panel_names()) h.frame(app, FrameOptions{p, false});
  }
  app.panels.log = app.panels.shortcuts = true;
  h.frame(app);
  CHECK(app.compare.error.empty());
}

TEST_CASE("frames: the keyboard drives the timeline") {
  Headless h;
  AppState app;
  app.background_allowed = false;
  REQUIRE(app.open_lesson("safe"));
  h.frame(app);
  h.press(app, GLFW_KEY_RIGHT);
  CHECK(app.timeline.playhead() == 1);
  CHECK(app.played.cursor->position() == 1);
  h.press(app, GLFW_KEY_RIGHT, true);  // Shift+→: next pass
  CHECK(app.timeline.playhead() == 4);
  h.press(app, GLFW_KEY_RIGHT, true);
  CHECK(app.timeline.playhead() == 8);
  h.press(app, GLFW_KEY_LEFT);
  CHECK(app.timeline.playhead() == 7);
  h.press(app, GLFW_KEY_LEFT, true);   // to the start of pass 2
  CHECK(app.timeline.playhead() == 4);
  h.press(app, GLFW_KEY_END);
  CHECK(app.timeline.playhead() == 11);
  CHECK(app.played.cursor->position() == 11);
  h.press(app, GLFW_KEY_HOME);
  CHECK(app.timeline.playhead() == 0);

  const int speed = app.timeline.speed_index();
  h.type(app, '+');
  CHECK(app.timeline.speed_index() == speed + 1);
  h.type(app, '-');
  h.type(app, '-');
  CHECK(app.timeline.speed_index() == speed - 1);

  h.press(app, GLFW_KEY_SPACE);
  CHECK(app.timeline.playing());
  h.press(app, GLFW_KEY_SPACE);
  CHECK_FALSE(app.timeline.playing());

  CHECK_FALSE(app.panels.shortcuts);
  h.press(app, GLFW_KEY_F1);
  CHECK(app.panels.shortcuts);
  h.press(app, GLFW_KEY_ESCAPE);
  CHECK_FALSE(app.panels.shortcuts);

  h.press(app, GLFW_KEY_DOWN);  // next lesson: the one after safe in the teaching order
  const Lesson* safe = find_lesson("safe");
  REQUIRE(safe);
  REQUIRE(static_cast<std::size_t>(safe->number) < lessons().size());
  CHECK(app.current_lesson().id == lessons()[static_cast<std::size_t>(safe->number)].id);
  h.press(app, GLFW_KEY_UP);
  CHECK(app.current_lesson().id == "safe");
}

TEST_CASE("frames: playing moves the cursor with the timeline, and stops at the end") {
  Headless h;
  AppState app;
  app.background_allowed = false;
  REQUIRE(app.open_lesson("online"));
  app.timeline.set_speed_index(Timeline::kSpeedCount - 1);
  app.timeline.play();
  for (int i = 0; i < 5; ++i) h.frame(app);
  CHECK(app.timeline.playhead() == app.timeline.count() - 1);
  CHECK(app.played.cursor->position() == app.timeline.playhead());
  CHECK_FALSE(app.timeline.playing());
}

TEST_CASE("frames: every lesson plays from first to last step and back, the cursor exact") {
  Headless h;
  AppState app;
  app.background_allowed = false;
  for (const Lesson& l : lessons()) {
    CAPTURE(l.id);
    REQUIRE(app.open_lesson(l.id));
    const int n = app.timeline.count();
    REQUIRE(n > 0);
    auto check_at = [&](int k) {
      CAPTURE(k);
      CHECK(app.timeline.playhead() == k);
      CHECK(app.played.cursor->position() == k);
      const State want = replay(*app.played.rec, k);
      CHECK(same_state(app.played.cursor->state(), want));
    };
    for (int k = 0; k < n; ++k) {
      if (k > 0) h.press(app, GLFW_KEY_RIGHT);
      check_at(k);
    }
    h.press(app, GLFW_KEY_RIGHT);  // past the end: stays
    check_at(n - 1);
    for (int k = n - 1; k >= 0; --k) {
      if (k < n - 1) h.press(app, GLFW_KEY_LEFT);
      check_at(k);
    }
  }
}

TEST_CASE("frames: clicking the scrubber moves the playhead there") {
  Headless h;
  AppState app;
  app.background_allowed = false;
  REQUIRE(app.open_lesson("attn-online"));
  h.frame(app);
  h.frame(app);
  const ImGuiWindow* w = ImGui::FindWindowByName("Timeline");
  REQUIRE(w != nullptr);
  // The scrubber is the bottom row of the timeline, across its whole width.
  const float y = w->Pos.y + w->Size.y - ImGui::GetStyle().WindowPadding.y - ImGui::GetFrameHeight() * 0.5f;
  const float x0 = w->Pos.x + ImGui::GetStyle().WindowPadding.x, x1 = w->Pos.x + w->Size.x - ImGui::GetStyle().WindowPadding.x;
  ImGuiIO& io = ImGui::GetIO();
  io.MousePos = ImVec2(x0 + (x1 - x0) * 0.75f, y);
  h.frame(app);
  io.MouseDown[0] = true;
  h.frame(app);
  h.frame(app);
  io.MouseDown[0] = false;
  h.frame(app);
  const int n = app.timeline.count();
  CHECK(app.timeline.playhead() == doctest::Approx(0.75 * n).epsilon(0.05));
  CHECK(app.played.cursor->position() == app.timeline.playhead());
  io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
}

TEST_CASE("presentation mode: P and F5 toggle it, Esc leaves, PgDn/PgUp and arrows step, no menu or controls") {
  Headless h;
  AppState app;
  app.background_allowed = false;
  app.open_lesson("online");
  h.frame(app);
  CHECK(Headless::drawn("##MainMenuBar"));
  CHECK(Headless::drawn("Inputs"));
  h.press(app, GLFW_KEY_P);
  REQUIRE(app.presenting);
  h.frame(app);
  CHECK_FALSE(Headless::drawn("##MainMenuBar"));
  CHECK_FALSE(Headless::drawn("Inputs"));
  CHECK_FALSE(Headless::drawn("Timeline"));
  CHECK(Headless::drawn("##presentation-counter"));
  CHECK(Headless::drawn("View"));
  const int k = app.timeline.playhead();
  h.press(app, GLFW_KEY_PAGE_DOWN);
  CHECK(app.timeline.playhead() == k + 1);
  h.press(app, GLFW_KEY_RIGHT);
  CHECK(app.timeline.playhead() == k + 2);
  h.press(app, GLFW_KEY_PAGE_UP);
  CHECK(app.timeline.playhead() == k + 1);
  CHECK(app.played.cursor->position() == k + 1);
  h.press(app, GLFW_KEY_ESCAPE);
  CHECK_FALSE(app.presenting);
  h.press(app, GLFW_KEY_F5);
  CHECK(app.presenting);
  h.press(app, GLFW_KEY_F5);
  CHECK_FALSE(app.presenting);
  h.frame(app);
  CHECK(Headless::drawn("##MainMenuBar"));
}

TEST_CASE("Ctrl shortcuts ask for open, save, save as and export, and change the font size, not the speed") {
  Headless h;
  AppState app;
  app.background_allowed = false;
  app.open_lesson("safe");
  const double speed = app.timeline.speed();
  h.press(app, GLFW_KEY_O, false, true);
  CHECK(app.requests.open);
  h.press(app, GLFW_KEY_S, false, true);
  CHECK(app.requests.save);
  CHECK_FALSE(app.requests.save_as);
  h.press(app, GLFW_KEY_S, true, true);
  CHECK(app.requests.save_as);
  h.press(app, GLFW_KEY_E, false, true);
  CHECK(app.requests.export_dialog);
  CHECK(app.font_scale == 1.0f);
  h.press(app, GLFW_KEY_EQUAL, false, true);
  CHECK(app.font_scale == 1.25f);
  h.press(app, GLFW_KEY_EQUAL, false, true);
  CHECK(app.font_scale == 1.5f);
  h.press(app, GLFW_KEY_MINUS, false, true);
  CHECK(app.font_scale == 1.25f);
  h.press(app, GLFW_KEY_0, false, true);
  CHECK(app.font_scale == 1.0f);
  for (int i = 0; i < 20; ++i) app.bigger_font();
  CHECK(app.font_scale == 3.0f);
  for (int i = 0; i < 20; ++i) app.smaller_font();
  CHECK(app.font_scale == 1.0f);
  CHECK(app.timeline.speed() == speed);
  CHECK_FALSE(app.presenting);  // Ctrl+P is not P
}

TEST_CASE("every theme draws every lesson, and set_theme switches the palette") {
  Headless h;
  for (Theme t : {Theme::dark, Theme::light, Theme::projector}) {
    CAPTURE(theme_name(t));
    CHECK(parse_theme(theme_name(t)) == t);
    apply_style(1.0f, t);
    AppState app;
    app.background_allowed = false;
    app.set_theme(t);
    CHECK(palette_of(app.theme).light == (t == Theme::light));
    CHECK(palette_of(app.theme).text == palette_for(t).text);
    for (const Lesson& l : lessons()) {
      app.open_lesson(l.id);
      h.frame(app);
    }
  }
  CHECK_FALSE(parse_theme("blue"));
  apply_style(1.0f);
}

TEST_CASE("frames: the largest vector the window takes draws about as many shapes as the view is wide, not one per element") {
  Headless h;
  auto app = std::make_unique<AppState>();
  app->background_allowed = false;
  REQUIRE(app->open_lesson("online"));
  auto vertices = [&] {
    h.frame(*app);
    h.frame(*app);
    return ImGui::GetDrawData()->TotalVtxCount;
  };
  const int small = vertices();
  set_vector(app->inputs, {random_vector(kMaxVectorN, 7)});
  app->inputs_edited();
  REQUIRE(app->input_error.empty());
  REQUIRE(app->played.rec->n == kMaxVectorN);
  app->seek(kMaxVectorN + kMaxVectorN / 2);  // mid-way through pass 2: x, e and y all drawn
  const int large = vertices();
  INFO("vertices: 4 values " << small << ", " << kMaxVectorN << " values " << large);
  // One rectangle per element was 800,000 vertices; a column per 2 pixels of a 1280-wide window
  // is a few thousand rectangles for the three rows, at 4 to 8 vertices each.
  CHECK(large < small + 60000);
}

TEST_CASE("pseudocode: a softmax run with a scale says that its xᵢ stand for s·xᵢ, with the s it ran with") {
  // The 1/√d lab's pseudocode read m_i ← max(m_{i−1}, x_i) beside "m₃ = max(m₂ = 1.25, s·x₃ =
  // −0.625)". The s is read back from the recorded numbers: the row's max m = s·max(x).
  const Lesson* lab = find_lesson("scale");
  REQUIRE(lab);
  const Recording rec = record(lab->scenario);
  REQUIRE(rec.scale != 1.0);
  const State st = replay(rec, rec.step_count() - 1);
  const int bm = rec.find_buffer("m");
  REQUIRE(bm >= 0);
  const std::vector<double>& x = lab->scenario.x[0];
  const double top = *std::max_element(x.begin(), x.end());
  REQUIRE(top > 0.0);
  const double s = st.at(bm, 0, 0, 1) / top;
  CHECK(s == doctest::Approx(rec.scale));
  const std::string note = pseudocode_note(rec);
  CHECK(note.find("s·xᵢ") != std::string::npos);
  CHECK(note.find("s = " + num(s)) != std::string::npos);
  // Without a scale, and for attention (its pseudocode writes the s), there is no note.
  for (const AlgorithmInfo& row : algorithm_table()) {
    CAPTURE(row.id);
    const Recording r = record(rows::small_run(row.algorithm));
    if (r.scale == 1.0 || takes_qkv(row.algorithm)) CHECK(pseudocode_note(r).empty());
  }
}

TEST_CASE("layout: at every font size the side panels leave the view 40% of the width and the memory panel leaves it 60% of the height") {
  // At font 2× on 1280 × 800 the side panels, widened with the font, left the view 220 pixels
  // (a lab's plots 46 wide) and the memory panel took 320 of the 590 left under the menu.
  Headless h;
  for (const ImVec2 display : {ImVec2(1280, 800), ImVec2(960, 600), ImVec2(1920, 1080)})
    for (const float font : {1.0f, 1.5f, 2.0f, 3.0f}) {
      // Up to a window the size of 640 × 400 at font 1× (below it the timeline alone takes
      // half the height and the panels keep their title bars).
      if (display.x / font < 640.0f) continue;
      CAPTURE(display.x);
      CAPTURE(font);
      ImGui::GetIO().DisplaySize = display;
      AppState app;
      app.background_allowed = false;
      REQUIRE(app.open_lesson("attn-tiled"));
      app.set_font_scale(font);
      use_scale(app, font, Theme::dark);
      for (int f = 0; f < 2; ++f) h.frame(app);
      const ImGuiWindow* view = ImGui::FindWindowByName("View");
      const ImGuiWindow* memory = ImGui::FindWindowByName("Memory: HBM and SRAM");
      REQUIRE(view);
      REQUIRE(memory);
      CHECK(view->Size.x >= 0.4f * display.x - 1.0f);
      CHECK(memory->Size.y <= 0.4f * (view->Size.y + memory->Size.y) + 1.0f);
      CHECK(memory->Pos.x == view->Pos.x);
      CHECK(memory->Pos.y == doctest::Approx(view->Pos.y + view->Size.y));
    }
  restore_window();
}

TEST_CASE("Steps tab: the table scrolls to the playhead's row in every lesson, its rows as high as their wrapped explanations") {
  // The rows wrap onto one to several lines; an ImGuiListClipper took each as high as the
  // first, and the standard backward's step 31 scrolled the table to steps 24 to 26. The
  // window is then made narrower and wider: the rows are laid out again from the sentences'
  // words measured at the first width.
  Headless h;
  for (const Lesson& l : lessons()) {
    CAPTURE(l.id);
    AppState app;
    app.background_allowed = false;
    REQUIRE(app.open_lesson(l.id));
    app.tab = Tab::steps;
    app.tab_changed = true;
    const int n = app.timeline.count();
    const std::array<std::pair<int, float>, 5> at = {
        {{n - 1, 1280.0f}, {n / 2, 1280.0f}, {0, 1280.0f}, {n * 3 / 4, 1000.0f}, {n / 3, 1500.0f}}};
    for (const auto& [k_, width_] : at) {
      const int k = k_;
      const float width = width_;
      CAPTURE(k);
      CAPTURE(width);
      ImGui::GetIO().DisplaySize = ImVec2(width, 800);
      app.seek(k);
      for (int f = 0; f < 5; ++f) h.frame(app);  // a scroll bar comes, the rows are laid out again
      const AppState::StepsTableLayout& t = app.steps_table;
      CHECK(t.off < 1.0f);  // every row drawn where the heights before it put it (to the pixel)
      // The playhead's row in sight, under the header (or filling it, where taller).
      CHECK(t.row_y1 > t.seen_y0);
      CHECK(t.row_y0 < t.seen_y1);
      if (t.row_y1 - t.row_y0 < t.seen_y1 - t.seen_y0) {
        CHECK(t.row_y0 >= t.seen_y0 - 0.5f);
        CHECK(t.row_y1 <= t.seen_y1 + 0.5f);
      }
    }
    CHECK(app.step_sentences.size() == 1);  // measured in one font, at one size
  }
  ImGui::GetIO().DisplaySize = ImVec2(1280, 800);
}

TEST_CASE("Steps tab: the explanation has nine ems at least, beside the columns in a wide window, under each step's line in a narrow one") {
  // At font 1.5× in a 1280 × 800 window the columns left the explanation some 20 pixels: a
  // character a line.
  Headless h;
  for (const auto& [size, font, stacked] : {std::tuple{ImVec2(1920, 1080), 1.0f, false},
                                            {ImVec2(1280, 800), 1.0f, true},
                                            {ImVec2(1280, 800), 1.5f, true},
                                            {ImVec2(1280, 800), 2.0f, true}}) {
    const float font_scale = font, width = size.x;
    CAPTURE(width);
    CAPTURE(font_scale);
    ImGui::GetIO().DisplaySize = size;
    AppState app;
    open_at(app, "attn-tiled-v2", Tab::steps, false, font);
    app.seek(5);
    for (int f = 0; f < 4; ++f) h.frame(app);
    const AppState::StepsTableLayout& t = app.steps_table;
    CHECK(t.stacked == stacked);
    CHECK(t.width >= 9 * ImGui::GetFontSize());
    CHECK(t.row_y0 >= t.seen_y0 - 8.0f);  // the playhead's row in sight
  }
  restore_window();
}

TEST_CASE("Steps tab: with the longest input the window takes the table still goes to the playhead's row") {
  // 100000 values: 200000 steps, rows some 17 million pixels down. A row per step added its
  // height to ImGui's float cursor, which drifted hundreds of pixels: the table showed nothing.
  Headless h;
  AppState app;
  app.background_allowed = false;
  REQUIRE(app.open_lesson("online"));
  app.inputs.x = {std::vector<double>(100000, 0.0)};
  for (std::size_t i = 0; i < app.inputs.x[0].size(); ++i) app.inputs.x[0][i] = std::sin(static_cast<double>(i));
  app.inputs.vector_text = "";
  app.inputs_changed();
  REQUIRE(app.played.rec->step_count() == 200000);
  app.tab = Tab::steps;
  app.tab_changed = true;
  // The last two with the window narrower, then wider: the rows laid out again (a resize used
  // to measure all 200000 sentences again, half a second at each frame of the drag).
  const std::array<std::pair<int, float>, 5> at = {
      {{150000, 1280.0f}, {199999, 1280.0f}, {0, 1280.0f}, {120000, 1100.0f}, {60000, 1600.0f}}};
  std::set<float> columns;  // the explanation column's widths laid out at
  for (const auto& [k_, width_] : at) {
    const int k = k_;
    const float width = width_;
    CAPTURE(k);
    CAPTURE(width);
    ImGui::GetIO().DisplaySize = ImVec2(width, 800);
    app.seek(k);
    for (int f = 0; f < 5; ++f) h.frame(app);
    const AppState::StepsTableLayout& t = app.steps_table;
    columns.insert(t.width);
    CHECK(t.off < 8.0f);  // a few float roundings of 17 million: 2 px each
    CHECK(t.row_y0 >= t.seen_y0 - 8.0f);
    CHECK(t.row_y1 <= t.seen_y1 + 8.0f);
  }
  CHECK(columns.size() == 3);
  ImGui::GetIO().DisplaySize = ImVec2(1280, 800);
}

TEST_CASE("online softmax: the rescale box says its factor at every step of the sweep, in the window and presenting") {
  // At 1280 × 800 "old l = 0: nothing to rescale" did not fit the box, which stood empty at the
  // first step: a shorter way of saying it is taken.
  Headless h;
  std::set<std::string> lessons_seen;
  every_softmax_step(
      h, [](const AlgorithmInfo& row) { return row.view == ViewKind::vector && row.rescales && !row.global_max; },
      [&](const AppState& app, const VectorViewOptions& opt) {
        lessons_seen.insert(app.current_lesson().id);
        const Step* step = app.played.step();
        REQUIRE(step);
        if (step->pass == 1) CHECK_FALSE(opt.drawn.rescale.empty());
      });
  CHECK(lessons_seen.size() >= 2);  // online softmax and log-sum-exp
}

TEST_CASE("vector view: every number in a cell or under a bar fits it, with two significant digits wherever two fit, none left out where one fits") {
  // Eight wide numbers at 1280 × 800: x₁ = −1.2×10⁻⁵, x₂ = −98765 and x₅ = −0.000123 had empty
  // cells (four digits, then two, did not fit, and nothing shorter was tried).
  Headless h;
  written::Tally tally;
  every_softmax_step(
      h, [](const AlgorithmInfo& row) { return row.view == ViewKind::vector; },
      [&](const AppState&, const VectorViewOptions& opt) { written::check(opt.drawn.numbers, tally); });
  CHECK(tally.two_fit > 0);
  CHECK(tally.mixed > 0);
}

TEST_CASE("chunked view: every x and y cell's number fits it, with two significant digits wherever two fit, none left out where one fits") {
  Headless h;
  written::Tally tally;
  for (const bool presenting : {false, true})
    for (const bool wide : {false, true}) {
      CAPTURE(presenting);
      CAPTURE(wide);
      ImGui::GetIO().DisplaySize = presenting ? ImVec2(1920, 1080) : ImVec2(1280, 800);
      AppState app;
      open_at(app, "chunked", Tab::lesson, presenting);
      if (wide) {
        app.inputs.x = {{-1.23456e-5, -98765.4321, 3.33333e-3, -0.555555, 1000.5, 42.4242, -7.77777, 0.123456}};
        app.inputs.vector_text = "";
        app.inputs_changed();
        REQUIRE(app.input_error.empty());
      }
      h.at_steps(app, 12, 2, [&] { written::check(app.views.get<ChunkedViewOptions>().drawn.numbers, tally); });
    }
  CHECK(tally.two_fit > 0);
  restore_window();
}

TEST_CASE("chunked view: every node's title is written above it, the global pair's too, no two titles or boxes over each other, at 1280×800, presenting and fonts 1.5× and 2×") {
  // The root's "merge → global (m, l)" was wider than its box and nothing was written: the
  // global pair stood unnamed. At font 1.5× in the window four workers' boxes were wider than
  // their chunks and their titles ran into each other ("worker 1worker 2…").
  Headless h;
  auto apart = [](const Rect& a, const Rect& b) {
    return !a.shown || !b.shown || a.x + a.w <= b.x || b.x + b.w <= a.x || a.y + a.h <= b.y || b.y + b.h <= a.y;
  };
  for (const int workers : {1, 2, 4, 8}) {
    for (const float font : {1.0f, 1.5f, 2.0f}) {
      for (const bool presenting : {false, true}) {
        CAPTURE(workers);
        CAPTURE(font);
        CAPTURE(presenting);
        ImGui::GetIO().DisplaySize = presenting ? ImVec2(1920, 1080) : ImVec2(1280, 800);
        AppState app;
        open_at(app, "chunked", Tab::lesson, presenting, font);
        app.inputs.chunks = workers;
        app.inputs_changed();
        REQUIRE(app.played.rec->chunks == workers);
        const ChunkedViewOptions& opt = app.views.get<ChunkedViewOptions>();
        for (int k = 0; k < app.timeline.count(); ++k) {
          CAPTURE(k);
          app.seek(k);
          for (int f = 0; f < 2; ++f) h.frame(app);
          // A tree of `workers` leaves: 2·workers − 1 nodes.
          REQUIRE(opt.drawn.titles.size() == static_cast<std::size_t>(2 * workers - 1));
          for (const std::string& t : opt.drawn.titles) CHECK_FALSE(t.empty());
          CHECK(opt.drawn.titles.back().find("global") != std::string::npos);
          const auto& d = opt.drawn;
          // The started nodes' m lines all name m or none does, and likewise l; with four
          // workers or fewer, up to font 1.5× in the window, all do (their text gives way
          // down to its font-1× size first). Eight workers at 1.5× and 2× in the window have
          // boxes too narrow for any number, as the x cells above them: the tooltips have them.
          REQUIRE(d.started.size() == d.titles.size());
          REQUIRE(d.lines.size() == 2 * d.titles.size());
          for (int line = 0; line < 2; ++line) {
            int named = 0, bare = 0;
            for (std::size_t n = 0; n < d.started.size(); ++n) {
              if (!d.started[n]) continue;
              const std::string& t = d.lines[2 * n + static_cast<std::size_t>(line)];
              CAPTURE(t);
              if (workers <= 4 || font <= 1.0f || presenting) CHECK_FALSE(t.empty());
              if (t.empty()) continue;
              (t.rfind(line == 0 ? "m " : "l ", 0) == 0 ? named : bare) += 1;
            }
            CHECK((named == 0 || bare == 0));
            if (workers <= 4 && font <= 1.5f && !presenting) CHECK(bare == 0);
          }
          REQUIRE(d.boxes.size() == d.titles.size());
          REQUIRE(d.title_rects.size() == d.titles.size());
          for (std::size_t a = 0; a < d.boxes.size(); ++a)
            for (std::size_t b = a + 1; b < d.boxes.size(); ++b) {
              CAPTURE(a);
              CAPTURE(b);
              CHECK(apart(d.boxes[a], d.boxes[b]));
              CHECK(apart(d.title_rects[a], d.title_rects[b]));
              CHECK(apart(d.title_rects[a], d.boxes[b]));
              CHECK(apart(d.boxes[a], d.title_rects[b]));
            }
        }
      }
    }
  }
  restore_window();
}

TEST_CASE("overflow lab: the axis's labels never run into each other, at fonts 1×, 1.5× and 2×, in the window and presenting") {
  // At font 1.5× in a 1280 × 800 window "fp16 11.09", "fp32, bf16 88.72" and "fp64 709.78" were
  // written over each other, and "1000" ran into "3000".
  Headless h;
  for (const float font : {1.0f, 1.5f, 2.0f})
    for (const bool presenting : {false, true}) {
      CAPTURE(font);
      CAPTURE(presenting);
      ImGui::GetIO().DisplaySize = presenting ? ImVec2(1920, 1080) : ImVec2(1280, 800);
      AppState app;
      open_at(app, "naive", Tab::overflow_lab, presenting, font);
      for (int f = 0; f < 3; ++f) h.frame(app);
      const auto& labels = app.overflow_lab.drawn_labels;
      REQUIRE(labels.size() >= 3 + 3);  // the three thresholds and at least 1, 10 and 100
      for (std::size_t a = 0; a < labels.size(); ++a)
        for (std::size_t b = a + 1; b < labels.size(); ++b) {
          CAPTURE(a);
          CAPTURE(b);
          const auto& p = labels[a];
          const auto& q = labels[b];
          CHECK((p[0] + p[2] <= q[0] || q[0] + q[2] <= p[0] || p[1] + p[3] <= q[1] || q[1] + q[3] <= p[1]));
        }
    }
  restore_window();
}

TEST_CASE("labs: nothing runs past the right edge of their panel, at fonts 1× to 2× in a 1280 × 800 window") {
  // At font 1.5× the 1/√d lab's seed field and its worked example's title ran past the panel's
  // edge, the Measure lab's d, GPU and Run controls did, and its two plot titles were written
  // over each other; at 2× the sliders alone were wider than the panel.
  Headless h;
  ImGui::GetIO().DisplaySize = ImVec2(1280, 800);
  for (const float font : {1.0f, 1.25f, 1.5f, 2.0f})
    for (const auto& [tab, name] :
         {std::pair{Tab::overflow_lab, "overflow-lab"}, {Tab::scale_lab, "scale-lab"}, {Tab::measure_lab, "measure-lab"}}) {
      const char* const lab = name;
      CAPTURE(font);
      CAPTURE(lab);
      AppState app;
      open_at(app, "attn-tiled-v2", tab, false, font);
      for (int f = 0; f < 4; ++f) h.frame(app);
      int seen = 0;
      for (ImGuiWindow* w : ImGui::GetCurrentContext()->Windows)
        if (w->Active && std::string(w->Name).rfind(std::string("View/") + name, 0) == 0) {
          ++seen;
          CHECK(w->ContentSize.x <= w->ContentRegionRect.GetWidth() + 1.0f);
        }
      CHECK(seen == 1);
    }
  restore_window();
}

TEST_CASE("timeline, status bar, inputs, lesson list and pseudocode: nothing runs past their right edge at fonts 1× to 2× in a 1280 × 800 window, in every lesson and with a long message") {
  // From font 1.25× the timeline's "pass 2/3 · step 5/12 (Q block i = 2) F1: all shortcuts" ran
  // past its right edge (at 2× it read "pass 2/3 · step 5/"), and a status message cut to one
  // line ran past the status bar's by its " …". At 1.5× the precision box's label did, and at 2×
  // the presets' buttons ("a score overflows to −∞") were cut by the Inputs panel's edge. The
  // lesson list cut its titles at its edge mid-letter ("10. FlashAttention-2 loop ord"): they end
  // in "…" now. At 2× a pseudocode token wider than its line ("rowmax(Sᵢⱼ)),") ran past the
  // panel's edge by up to 70 px: it breaks after a parenthesis or a comma, or is drawn smaller.
  Headless h;
  ImGui::GetIO().DisplaySize = ImVec2(1280, 800);
  // The window whose name starts with `name` (a child's ends in its ID).
  const auto fits = [](const char* name) {
    int seen = 0;
    for (const ImGuiWindow* w : ImGui::GetCurrentContext()->Windows)
      if (w->Active && std::string(w->Name).rfind(name, 0) == 0) {
        CAPTURE(w->Name);
        CHECK(w->ContentSize.x <= w->ContentRegionRect.GetWidth() + 1.0f);
        ++seen;
      }
    CHECK(seen == 1);
  };
  for (const float font : {1.0f, 1.25f, 1.5f, 2.0f})
    for (const Lesson& l : lessons()) {
      CAPTURE(font);
      CAPTURE(l.id);
      AppState app;
      open_at(app, l.id.c_str(), Tab::lesson, false, font);
      app.note(Severity::warning, "A message longer than the status bar is wide at any font this test draws, so that it "
                                  "is cut to one line and ends in an ellipsis: its whole text is in the log.");
      h.at_steps(app, 2, 3, [&] {
        fits("Timeline");
        fits("##status");
        fits("Inputs");
        fits("Lessons/lesson-list");
        fits("Pseudocode");
      });
    }
  restore_window();
}

TEST_CASE("Explanation: the line above the sentence says how to walk a step's parts only where the sentence still fits under it, then gives way down to font 1×, at fonts 1× to 2× in a 1280 × 800 window") {
  // At font 1.5× the grey line with the keys' hint took four lines of a panel that shows some
  // eight, six at 2×, and FlashAttention-2's sentence was cut after its second line; at 2×,
  // without the hint, the line still took three and left the sentence one.
  Headless h;
  ImGui::GetIO().DisplaySize = ImVec2(1280, 800);
  int with_parts = 0, hinted = 0, briefly = 0, dropped = 0, smaller = 0;
  for (const float font : {1.0f, 1.5f, 2.0f})
    for (const Lesson& l : lessons()) {
      CAPTURE(font);
      CAPTURE(l.id);
      AppState app;
      open_at(app, l.id.c_str(), Tab::lesson, false, font);
      for (int k = 0; k < app.timeline.count(); k += std::max(1, app.timeline.count() / 6)) {
        app.seek(k);
        for (int f = 0; f < 3; ++f) h.frame(app);
        const Step* step = app.played.step();
        if (!step || step->parts.size() < 2) continue;
        for (const int part : {-1, 0}) {  // the whole step, then its first part
          CAPTURE(k);
          CAPTURE(part);
          app.seek(k, part);
          for (int f = 0; f < 3; ++f) h.frame(app);
          const auto& e = app.explanation;
          REQUIRE(e.sentence_bottom > e.sentence_top);  // the sentence was drawn this frame
          ++with_parts;
          // The line's text gives way only after the hint has, and no further than font 1×.
          CHECK(e.where_scale <= 1.0f);
          CHECK(e.where_scale >= 1.0f / font - 0.001f);
          if (e.key_hint > 0) {
            ++hinted;
            briefly += e.key_hint == 1;
            CHECK(e.where_scale == 1.0f);
            CHECK(e.sentence_bottom <= e.room_bottom + 0.5f);
          } else {
            ++dropped;
          }
          if (e.where_scale < 1.0f) ++smaller;
          if (e.where_scale < 1.0f && e.where_scale > 1.0f / font + 0.001f)  // it stopped where all fits
            CHECK(e.sentence_bottom <= e.room_bottom + 0.5f);
        }
      }
    }
  CHECK(with_parts > 50);
  CHECK(hinted > briefly);  // at font 1× the hint is there in full where it fits
  CHECK(briefly > 0);       // in brief where only that fits
  CHECK(dropped > 0);       // and at 2× it gives way
  CHECK(smaller > 0);       // and then the line's text
  restore_window();
}

TEST_CASE("Compare: its controls stay inside the tab at fonts 1× to 2× in a 1280 × 800 window") {
  // At font 2× "right on the GPU" was cut by the tab's edge, beside the two pickers.
  Headless h;
  ImGui::GetIO().DisplaySize = ImVec2(1280, 800);
  for (const float font : {1.0f, 1.5f, 2.0f})
    for (const char* lesson : {"online", "attn-tiled-v2"}) {
      CAPTURE(font);
      CAPTURE(lesson);
      AppState app;
      open_at(app, lesson, Tab::compare, false, font);
      for (int f = 0; f < 4; ++f) h.frame(app);
      REQUIRE(app.compare.controls_edge > 0);
      CHECK(app.compare.controls_right <= app.compare.controls_edge + 0.5f);
    }
  restore_window();
}

TEST_CASE("pseudocode at a larger font in a 1280 × 800 window: the indentation is wider than at font 1× only where every line's text keeps eight ems") {
  // At font 2× the indentation grew with the font (16 px a leading space) and the loops' bodies
  // of FlashAttention-2 were wrapped to some 90 px, a word a line.
  Headless h;
  ImGui::GetIO().DisplaySize = ImVec2(1280, 800);
  int narrowed = 0;
  for (const Lesson& l : lessons()) {
    CAPTURE(l.id);
    float at_1x = 0;
    for (const float font : {1.0f, 1.5f, 2.0f}) {
      CAPTURE(font);
      AppState app;
      open_at(app, l.id.c_str(), Tab::lesson, false, font);
      for (int f = 0; f < 3; ++f) h.frame(app);
      const auto& p = app.pseudocode;
      REQUIRE(p.indent_w > 0);
      if (font == 1.0f) {
        at_1x = p.indent_w;
        continue;
      }
      CHECK(p.indent_w >= at_1x - 0.01f);  // never less visible than at font 1×
      CHECK((p.indent_w <= at_1x + 0.01f || p.narrowest >= 8.0f * p.font_size - 0.5f));
      narrowed += p.indent_w < at_1x * font - 0.01f;
    }
  }
  CHECK(narrowed > 0);
  restore_window();
}

TEST_CASE("softmax views: every register box's value line fits inside it, at every step, in the window and presenting") {
  // At 1280 × 800 "0.13534  →  0.18512" ran past the edge of safe softmax's l box.
  Headless h;
  int boxes = 0, shortened = 0;
  every_softmax_step(
      h, [](const AlgorithmInfo& row) { return row.view == ViewKind::vector; },
      [&](const AppState&, const VectorViewOptions& opt) {
        for (const RegisterLine& r : opt.drawn.registers) {
          CAPTURE(r.text);
          CHECK(r.width <= r.room);
          ++boxes;
          shortened += r.text.find("→") == 0;
        }
      });
  CHECK(boxes > 100);
  MESSAGE("register boxes seen: " << boxes << ", written as → new alone: " << shortened);
}


