// The Inputs panel's fields apply a value only when it is committed (Enter, Tab, leaving the
// field), never a keystroke on the way: typed through a headless ImGui context as a user types.
#include "tests/app/headless.h"

#include "app/ui/model/app_state.h"
#include "app/ui/panels/panels.h"
#include "app/ui/widgets.h"

#include <doctest/doctest.h>

#include <cmath>
#include <memory>
#include <string>

using namespace flashstep;
using namespace flashstep::ui;

namespace {

// Clicks into the field `id` of the window `window` (the Inputs panel unless said) and selects
// its text (Ctrl+A).
void focus_field(Headless& h, AppState& app, const char* id, const std::string& window = "Inputs") {
  for (int i = 0; i < 3; ++i) h.frame(app);  // the layout settles (the panels' heights)
  const ImRect r = field_rect(window, id);
  REQUIRE(r.GetWidth() > 0);
  h.click(app, r.GetCenter());
  h.press(app, GLFW_KEY_A, false, true);
}

// The recording's first row of x (softmax lessons).
std::vector<double> first_row(const AppState& app) {
  const Recording& rec = *app.played.rec;
  const int bx = rec.find_buffer("x");
  std::vector<double> out;
  for (int i = 0; i < rec.n; ++i) out.push_back(rec.initial.values[static_cast<std::size_t>(bx)][static_cast<std::size_t>(i)]);
  return out;
}

}  // namespace

TEST_CASE("fields: from N = 512, typing 2048 records nothing on the way, and the refused value leaves the recording") {
  Headless h;
  AppState app;
  app.background_allowed = false;
  REQUIRE(app.open_lesson("attn-naive"));
  app.inputs.N = 512;
  app.inputs_changed();
  const std::shared_ptr<const Recording> before = app.played.rec;
  REQUIRE(before->n == 512);
  const int steps0 = before->step_count();
  focus_field(h, app, "##N");
  for (const char c : std::string("2048")) {
    CAPTURE(c);
    h.type(app, static_cast<ImWchar>(c));
    CHECK(app.inputs.N == 512);          // "2", "20", "204" are never applied
    CHECK(app.played.rec == before);     // nothing recorded mid-typing
    const FieldState f = field_state("Inputs", "##N");
    CHECK(f.pending);                    // the field says its text is not applied,
    CHECK(f.marked);
    CHECK(f.in_use == "512");            // and names the value in use
  }
  h.press(app, GLFW_KEY_ENTER);
  CHECK(app.inputs.N == 2048);                             // the committed value, refused:
  CHECK(app.input_error.find("512") != std::string::npos);  // the window's limit is named
  CHECK(app.played.rec == before);                         // and the last valid input stays
  CHECK(app.played.rec->n == 512);
  CHECK(app.played.rec->step_count() == steps0);
  // The field keeps 2048, marked as not in use beside the 512 that is.
  const FieldState f = field_state("Inputs", "##N");
  CHECK_FALSE(f.pending);
  CHECK(f.refused);
  CHECK(f.marked);
  CHECK(f.in_use == "512");
  // The fields that were not typed in are in use: nothing marks them.
  CHECK_FALSE(field_state("Inputs", "##d").marked);
}

TEST_CASE("fields: a field that is not being edited carries no mark") {
  Headless h;
  AppState app;
  app.background_allowed = false;
  REQUIRE(app.open_lesson("attn-naive"));
  for (int i = 0; i < 3; ++i) h.frame(app);
  for (const char* id : {"##N", "##d", "##seed"}) {
    CAPTURE(id);
    const FieldState f = field_state("Inputs", id);
    CHECK(f.rect.GetWidth() > 0);
    CHECK_FALSE(f.pending);
    CHECK_FALSE(f.refused);
    CHECK_FALSE(f.marked);
  }
}

TEST_CASE("fields: Tab and a click elsewhere commit, Escape puts the value in use back") {
  Headless h;
  AppState app;
  app.background_allowed = false;
  REQUIRE(app.open_lesson("attn-naive"));
  SUBCASE("Tab") {
    focus_field(h, app, "##N");
    h.type_text(app, "12");
    CHECK(app.played.rec->n != 12);
    h.press(app, GLFW_KEY_TAB);
    CHECK(app.inputs.N == 12);
    CHECK(app.played.rec->n == 12);
  }
  SUBCASE("a click elsewhere") {
    focus_field(h, app, "##d");
    h.type_text(app, "6");
    CHECK(app.played.rec->d != 6);
    h.click(app, ImVec2(ImGui::GetIO().DisplaySize.x * 0.5f, 2.0f));  // the menu bar
    CHECK(app.inputs.d == 6);
    CHECK(app.played.rec->d == 6);
  }
  SUBCASE("Escape") {
    const int n0 = app.inputs.N;
    const auto before = app.played.rec;
    focus_field(h, app, "##N");
    h.type_text(app, "9");
    CHECK(field_state("Inputs", "##N").marked);
    h.press(app, GLFW_KEY_ESCAPE);
    h.frame(app);
    CHECK(app.inputs.N == n0);
    CHECK(app.played.rec == before);
    CHECK_FALSE(field_state("Inputs", "##N").pending);  // the text is the value in use again
    CHECK_FALSE(field_state("Inputs", "##N").marked);
  }
}

TEST_CASE("fields: \"3, 1e999, 5\" typed into the vector is never run as a prefix of it") {
  Headless h;
  AppState app;
  app.background_allowed = false;
  REQUIRE(app.open_lesson("online"));
  const std::vector<double> x0 = first_row(app);
  const auto before = app.played.rec;
  focus_field(h, app, "##x");
  for (const char c : std::string("3, 1e999, 5")) {
    CAPTURE(c);
    h.type(app, static_cast<ImWchar>(c));
    CHECK(app.played.rec == before);  // "3, 1e99" (= [3, 1e99]) is never recorded
    CHECK(app.inputs.x == std::vector<std::vector<double>>{x0});
    CHECK(field_state("Inputs", "##x").pending);
    CHECK(field_state("Inputs", "##x").marked);
  }
  h.press(app, GLFW_KEY_ENTER);
  // 1e999 is too large for any format: refused by name, and the recording is the one before.
  CHECK(app.input_error.find("1e999") != std::string::npos);
  CHECK(first_row(app) == x0);
  for (const double v : first_row(app)) CHECK(std::isfinite(v));  // never [3, inf]
  CHECK(field_state("Inputs", "##x").refused);
  CHECK(field_state("Inputs", "##x").in_use == format_rows({x0}));
  // Fixed and committed: applied.
  focus_field(h, app, "##x");
  h.type_text(app, "3, 1e9, 5");
  CHECK(first_row(app) == x0);
  h.press(app, GLFW_KEY_ENTER);
  CHECK(app.input_error.empty());
  CHECK(first_row(app) == std::vector<double>{3, 1e9, 5});
  CHECK_FALSE(field_state("Inputs", "##x").refused);
  CHECK_FALSE(field_state("Inputs", "##x").marked);
}

TEST_CASE("fields: the random vector's n and seed apply when committed") {
  Headless h;
  AppState app;
  app.background_allowed = false;
  REQUIRE(app.open_lesson("online"));
  const int n0 = app.inputs.random_n;
  focus_field(h, app, "##random_n");
  h.type_text(app, "20");
  CHECK(app.inputs.random_n == n0);
  CHECK(field_state("Inputs", "##random_n").marked);
  h.press(app, GLFW_KEY_TAB);
  CHECK(app.inputs.random_n == 20);
  const std::uint64_t seed0 = app.inputs.seed;
  focus_field(h, app, "##random_seed");
  h.type_text(app, "77");
  CHECK(app.inputs.seed == seed0);
  h.press(app, GLFW_KEY_ENTER);
  CHECK(app.inputs.seed == 77);
}

TEST_CASE("fields: text that is not a whole number is refused at commit and the value in use stays") {
  Headless h;
  AppState app;
  app.background_allowed = false;
  REQUIRE(app.open_lesson("attn-naive"));
  const int n0 = app.inputs.N;
  focus_field(h, app, "##N");
  h.type_text(app, "12x");
  h.press(app, GLFW_KEY_ENTER);
  CHECK(app.inputs.N == n0);
  CHECK(app.status_line().text.find("'12x' is not a whole number") != std::string::npos);
}


TEST_CASE("fields: the 1/√d lab's seed is applied when committed, not per keystroke") {
  Headless h;
  AppState app;
  app.background_allowed = false;
  REQUIRE(app.open_lesson("scale"));
  app.tab = Tab::scale_lab;
  app.tab_changed = true;
  for (int i = 0; i < 3; ++i) h.frame(app);
  // The lab draws in a child window of the View panel, whose name ImGui suffixes with its id.
  std::string window;
  for (const ImGuiWindow* w : ImGui::GetCurrentContext()->Windows)
    if (std::string(w->Name).rfind("View/scale-lab", 0) == 0) window = w->Name;
  REQUIRE(!window.empty());
  const int seed0 = app.scale_lab.seed;
  REQUIRE(app.scale_lab.cached_seed == seed0);
  focus_field(h, app, "##seed", window);
  h.type_text(app, "42");
  CHECK(app.scale_lab.seed == seed0);         // "4" is never applied
  CHECK(app.scale_lab.cached_seed == seed0);  // nor computed
  CHECK(field_state(window, "##seed").marked);
  h.press(app, GLFW_KEY_ENTER);
  CHECK(app.scale_lab.seed == 42);
  CHECK(app.scale_lab.cached_seed == 42);
  CHECK_FALSE(field_state(window, "##seed").marked);
}

TEST_CASE("keys: every press the window reports counts, 20 within one frame advance 20 steps") {
  Headless h;
  auto app = std::make_unique<AppState>();
  REQUIRE(app->open_lesson("attn-online"));  // 72 steps
  h.frame(*app);
  REQUIRE(app->timeline.playhead() == 0);
  // What a presentation clicker sends: press and release, twenty times, faster than a frame.
  // ImGui 1.86 sees at most one of them; the window's queue keeps them all.
  app->key_presses.assign(20, KeyPress{GLFW_KEY_RIGHT, false, false, false});
  app->key_presses_from_window = true;
  h.frame(*app);
  CHECK(app->timeline.playhead() == 20);
  CHECK(app->key_presses.empty());  // taken, not applied again next frame
  h.frame(*app);
  CHECK(app->timeline.playhead() == 20);
  // Mixed keys in order, and a command among them.
  app->key_presses = {{GLFW_KEY_PAGE_DOWN}, {GLFW_KEY_PAGE_DOWN}, {GLFW_KEY_PAGE_UP}, {GLFW_KEY_LEFT},
                      {GLFW_KEY_RIGHT, false, false, true},  // an auto-repeat moves too
                      {GLFW_KEY_Q, false, true, false}};
  h.frame(*app);
  CHECK(app->timeline.playhead() == 21);
  CHECK(app->quit_requested);
}

TEST_CASE("keys: Ctrl+Z and Ctrl+Shift+Z undo and redo an input change, and an accidental Down and Up lose nothing") {
  Headless h;
  auto app = std::make_unique<AppState>();
  app->background_allowed = false;
  REQUIRE(app->open_lesson("online"));
  h.frame(*app);
  const auto example = app->scenario.x;
  REQUIRE(edit_vector_text(app->inputs, "1, 6, 2"));
  app->inputs_edited();
  app->seek(4);
  app->key_presses_from_window = true;
  app->key_presses = {{GLFW_KEY_DOWN}, {GLFW_KEY_UP}};
  h.frame(*app);
  CHECK(app->current_lesson().id == "online");
  CHECK(app->scenario.x == std::vector<std::vector<double>>{{1, 6, 2}});
  CHECK(app->timeline.playhead() == 4);
  app->key_presses = {{GLFW_KEY_Z, false, true, false}};
  h.frame(*app);
  CHECK(app->scenario.x == example);
  app->key_presses = {{GLFW_KEY_Z, true, true, false}};
  h.frame(*app);
  CHECK(app->scenario.x == std::vector<std::vector<double>>{{1, 6, 2}});
  app->key_presses = {{GLFW_KEY_Z, false, true, false}, {GLFW_KEY_Y, false, true, false}};
  h.frame(*app);
  CHECK(app->scenario.x == std::vector<std::vector<double>>{{1, 6, 2}});
}

namespace {

// Where the Inputs panel and its fields are on screen.
std::vector<float> inputs_layout(const std::vector<const char*>& ids) {
  std::vector<float> out = {ImGui::FindWindowByName("Inputs")->Pos.y, ImGui::FindWindowByName("Inputs")->Size.y};
  for (const char* id : ids) {
    const ImRect r = field_rect("Inputs", id);
    out.push_back(r.Min.x);
    out.push_back(r.Min.y);
  }
  return out;
}

// The same once the window's layout has settled (the panels' heights and wrapping take a few
// frames after a lesson opens).
std::vector<float> settled_layout(Headless& h, AppState& app, const std::vector<const char*>& ids) {
  // Each frame lays out by the heights of the last, and a scrollbar comes a frame after the
  // content that needs it: the same layout three frames running has settled.
  std::vector<float> last;
  int same = 0;
  for (int i = 0; i < 60 && same < 3; ++i) {
    h.frame(app);
    std::vector<float> now = inputs_layout(ids);
    same = now == last ? same + 1 : 0;
    last = std::move(now);
  }
  return last;
}

}  // namespace

TEST_CASE("inputs panel: the scale it shows is the recording's, not that of a refused d") {
  AppState app;
  app.background_allowed = false;
  REQUIRE(app.open_lesson("attn-tiled"));
  REQUIRE(app.inputs.scale == ScaleChoice::inv_sqrt_d);
  REQUIRE(app.inputs.d == 4);  // scores × 1/√4 = 0.5
  CHECK(scale_line(app) == "scores × 0.5");
  app.inputs.d = 64;  // with M = 64 the tile cannot hold K_j, V_j, Q_i and O_i: refused
  app.inputs_edited();
  REQUIRE_FALSE(app.input_error.empty());
  REQUIRE(app.scenario.d == 4);
  CHECK(scale_line(app) == "scores × 0.5 (in use)");  // not 1/√64 = 0.125, never in use
  // A refused temperature the same way: T = 0 is refused, T = 2 (× 0.5) stays in use.
  app.inputs.d = 4;
  app.inputs.scale = ScaleChoice::temperature;
  app.inputs.temperature = 2;
  app.inputs_edited();
  REQUIRE(app.input_error.empty());
  CHECK(scale_line(app) == "scores × 0.5");
  app.inputs.temperature = 0;
  app.inputs_edited();
  REQUIRE_FALSE(app.input_error.empty());
  CHECK(scale_line(app) == "scores × 0.5 (in use)");
  // Back to no scale: nothing to say.
  app.inputs.temperature = 2;
  app.inputs.scale = ScaleChoice::none;
  app.inputs_edited();
  REQUIRE(app.input_error.empty());
  CHECK(scale_line(app).empty());
}

TEST_CASE("inputs panel: nothing moves when a message appears or goes") {
  Headless h;
  AppState app;
  app.background_allowed = false;
  SUBCASE("attention: a value typed, refused, then put back") {
    REQUIRE(app.open_lesson("attn-naive"));
    const int n0 = app.inputs.N;
    const std::vector<const char*> ids = {"##N", "##d", "##seed"};
    const std::vector<float> before = settled_layout(h, app, ids);
    focus_field(h, app, "##N");
    h.type_text(app, "2048");
    h.frame(app);
    CHECK(field_state("Inputs", "##N").pending);  // "not applied" is said
    CHECK(inputs_layout(ids) == before);
    h.press(app, GLFW_KEY_ENTER);
    h.frame(app);
    REQUIRE_FALSE(app.input_error.empty());  // the refusal is said
    CHECK(field_state("Inputs", "##N").marked);
    CHECK(inputs_layout(ids) == before);
    app.inputs.N = n0;
    app.inputs_edited();
    REQUIRE(app.input_error.empty());  // and goes
    h.frame(app);
    h.frame(app);
    CHECK(inputs_layout(ids) == before);
  }
  SUBCASE("softmax: a vector that does not parse") {
    REQUIRE(app.open_lesson("online"));
    const std::vector<const char*> ids = {"##x", "##random_n", "##random_seed"};
    const std::vector<float> before = settled_layout(h, app, ids);
    focus_field(h, app, "##x");
    h.type_text(app, "1,,2");
    h.frame(app);
    CHECK(inputs_layout(ids) == before);
    h.press(app, GLFW_KEY_ENTER);
    h.frame(app);
    REQUIRE_FALSE(app.inputs.vector_error.empty());
    CHECK(inputs_layout(ids) == before);
  }
}

TEST_CASE("inputs panel: a figure keeps no empty lines for messages it never says") {
  // Every exported picture of the window showed two empty lines under undo / redo / lesson
  // example: the place the window keeps for its messages, which a figure does not say.
  Headless h;
  AppState app;
  app.background_allowed = false;
  for (const char* lesson : {"attn-tiled-v2", "online"}) {
    CAPTURE(lesson);
    REQUIRE(app.open_lesson(lesson));
    const char* first = std::string(lesson) == "online" ? "##x" : "##N";
    // How far under the top of the panel's contents the first field starts: under the row of
    // buttons, and in the window under the two lines for messages too.
    const auto below_top = [&] { return field_rect("Inputs", first).Min.y - ImGui::FindWindowByName("Inputs")->DC.CursorStartPos.y; };
    settled_layout(h, app, {first});
    const ImGuiWindow* w = ImGui::FindWindowByName("Inputs");
    const float spacing = ImGui::GetStyle().ItemSpacing.y, line = w->CalcFontSize() + spacing;  // a message's line
    const float in_window = below_top();
    FrameOptions fo;
    fo.picture = true;
    fo.keyboard = false;
    for (int i = 0; i < 4; ++i) h.frame(app, fo);
    CHECK(in_window - below_top() == doctest::Approx(2 * line + spacing).epsilon(0.01));  // and the spacing after them
    CHECK(below_top() < 2 * line);  // only the buttons' row above the field
  }
}

TEST_CASE("fields: Escape puts back the value in use after a refused value, in the field or after it") {
  Headless h;
  AppState app;
  app.background_allowed = false;
  REQUIRE(app.open_lesson("attn-naive"));
  const int n0 = app.inputs.N;
  const auto before = app.played.rec;
  focus_field(h, app, "##N");
  h.type_text(app, "2048");
  h.press(app, GLFW_KEY_ENTER);
  REQUIRE(app.inputs.N == 2048);
  REQUIRE_FALSE(app.input_error.empty());
  SUBCASE("in the field, after typing in it again") {
    focus_field(h, app, "##N");
    h.type_text(app, "40");
    h.press(app, GLFW_KEY_ESCAPE);
  }
  SUBCASE("in the field, clicked into") {
    focus_field(h, app, "##N");
    h.press(app, GLFW_KEY_ESCAPE);
  }
  SUBCASE("after it, with no field active") {
    h.frame(app);
    h.press(app, GLFW_KEY_ESCAPE);
  }
  h.frame(app);
  CHECK(app.inputs.N == n0);
  CHECK(app.input_error.empty());
  CHECK(app.played.rec->n == n0);
  CHECK(app.played.rec == before);  // the recording in use was never replaced
  CHECK_FALSE(field_state("Inputs", "##N").refused);
  CHECK_FALSE(field_state("Inputs", "##N").marked);
}

TEST_CASE("fields: a figure drawn while a value is typed shows the value in use and keeps the typing") {
  Headless h;
  AppState app;
  app.background_allowed = false;
  REQUIRE(app.open_lesson("attn-naive"));
  const std::string n_in_use = std::to_string(app.inputs.N);
  focus_field(h, app, "##N");
  h.type_text(app, "48");
  REQUIRE(field_state("Inputs", "##N").pending);
  REQUIRE(field_state("Inputs", "##N").shown == "48");

  // The export's frames: a context of their own, as the off-screen renderer has.
  ImGuiContext* window = ImGui::GetCurrentContext();
  ImGuiContext* figure = ImGui::CreateContext(ImGui::GetIO().Fonts);
  ImGui::SetCurrentContext(figure);
  ImGui::GetIO().IniFilename = nullptr;
  ImGui::GetIO().DisplaySize = ImVec2(1280, 800);
  ImGui::GetIO().DeltaTime = 1.0f / 60.0f;
  ImGui::GetIO().BackendFlags |= ImGuiBackendFlags_RendererHasVtxOffset;
  FrameOptions fo;
  fo.picture = true;
  fo.keyboard = false;
  for (int i = 0; i < 4; ++i) {  // every frame of it, the first one too
    CAPTURE(i);
    ImGui::NewFrame();
    draw_frame(app, fo);
    ImGui::Render();
    const FieldState in_figure = field_state("Inputs", "##N");
    CHECK(in_figure.shown == n_in_use);  // what the recording was made from
    CHECK_FALSE(in_figure.pending);
    CHECK_FALSE(in_figure.marked);       // no "not applied" line in the figure
  }
  ImGui::DestroyContext(figure);
  ImGui::SetCurrentContext(window);

  // Back in the window: the typed text is still there, still not applied.
  h.frame(app);
  const FieldState after = field_state("Inputs", "##N");
  CHECK(after.pending);
  CHECK(after.shown == "48");
  CHECK(std::to_string(app.inputs.N) == n_in_use);
}
