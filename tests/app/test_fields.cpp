// The Inputs panel's fields apply a value only when it is committed (Enter, Tab, leaving the
// field), never a keystroke on the way: typed through a headless ImGui context as a user types.
#include "tests/app/headless.h"

#include "app/ui/model/app_state.h"
#include "app/ui/widgets.h"

#include <doctest/doctest.h>

#include <memory>
#include <string>

using namespace flashstep;
using namespace flashstep::ui;

namespace {

// Clicks into the field `id` of the Inputs panel and selects its text (Ctrl+A).
void focus_field(Headless& h, AppState& app, const char* id) {
  for (int i = 0; i < 3; ++i) h.frame(app);  // the layout settles (the panels' heights)
  const ImRect r = field_rect("Inputs", id);
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

TEST_CASE("fields: typing 2048 into N records nothing on the way, and the refused value leaves the recording") {
  Headless h;
  AppState app;
  app.background_allowed = false;
  REQUIRE(app.open_lesson("attn-naive"));
  const std::shared_ptr<const Recording> before = app.played.rec;
  const int n0 = app.inputs.N;
  const int steps0 = before->step_count();
  focus_field(h, app, "##N");
  for (const char c : std::string("2048")) {
    CAPTURE(c);
    h.type(app, static_cast<ImWchar>(c));
    CHECK(app.inputs.N == n0);           // "2", "20", "204" are never applied
    CHECK(app.played.rec == before);     // nothing recorded mid-typing
  }
  h.press(app, GLFW_KEY_ENTER);
  CHECK(app.inputs.N == 2048);                             // the committed value, refused:
  CHECK(app.input_error.find("512") != std::string::npos);  // the window's limit is named
  CHECK(app.played.rec == before);                         // and the last valid input stays
  CHECK(app.played.rec->step_count() == steps0);
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
    h.press(app, GLFW_KEY_ESCAPE);
    h.frame(app);
    CHECK(app.inputs.N == n0);
    CHECK(app.played.rec == before);
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
  }
  h.press(app, GLFW_KEY_ENTER);
  // 1e999 is too large for any format: refused by name, and the recording is the one before.
  CHECK(app.input_error.find("1e999") != std::string::npos);
  CHECK(first_row(app) == x0);
  // Fixed and committed: applied.
  focus_field(h, app, "##x");
  h.type_text(app, "3, 1e9, 5");
  CHECK(first_row(app) == x0);
  h.press(app, GLFW_KEY_ENTER);
  CHECK(app.input_error.empty());
  CHECK(first_row(app) == std::vector<double>{3, 1e9, 5});
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

