// Go to… (Ctrl+G) and Ask me first driven by keys and typed characters in real ImGui frames
// without a window, as a student uses them.
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "tests/app/headless.h"
#include "app/ui/model/app_state.h"

#include <doctest/doctest.h>
#include <imgui.h>

using namespace flashstep;
using namespace flashstep::ui;

namespace {

// Ctrl+G, the text, Enter.
void go_to(Headless& h, AppState& app, const char* text) {
  h.press(app, GLFW_KEY_G, false, true);
  REQUIRE(Headless::drawn("Go to…"));
  h.type_text(app, text);
  h.press(app, GLFW_KEY_ENTER);
}

}  // namespace

TEST_CASE("go to: Ctrl+G takes a step, a pass, a row and a tile, and keeps the box open on bad input") {
  Headless h;
  AppState app;
  app.background_allowed = false;
  REQUIRE(app.open_lesson("online"));  // [3, 2, 5, 1]: pass 1 is steps 1–4, pass 2 steps 5–8
  h.frame(app);
  REQUIRE(app.played.rec->step_count() == 8);

  go_to(h, app, "7");
  CHECK_FALSE(Headless::drawn("Go to…"));
  CHECK(app.timeline.playhead() == 6);
  go_to(h, app, "pass 2");
  CHECK(app.timeline.playhead() == 4);
  go_to(h, app, "row 1");
  CHECK(app.timeline.playhead() == 0);

  go_to(h, app, "pass 9");
  CHECK(Headless::drawn("Go to…"));
  CHECK(app.go_to.error == "no pass 9: this recording has 2");
  CHECK(app.timeline.playhead() == 0);
  h.press(app, GLFW_KEY_ESCAPE);
  CHECK_FALSE(Headless::drawn("Go to…"));
  CHECK(app.timeline.playhead() == 0);

  go_to(h, app, "up");
  CHECK(Headless::drawn("Go to…"));
  CHECK(app.go_to.error.find("\"up\" is not a step, pass, row or tile") == 0);
  h.press(app, GLFW_KEY_ESCAPE);

  REQUIRE(app.open_lesson("attn-tiled"));
  h.frame(app);
  go_to(h, app, "tile (2, 1)");
  CHECK_FALSE(Headless::drawn("Go to…"));
  const Step& st = app.played.rec->steps[static_cast<std::size_t>(app.timeline.playhead())];
  CHECK(st.tile_i == 1);
  CHECK(st.tile_j == 0);
}

TEST_CASE("ask me first: → onto a question asks it, Enter scores the typed answer and shows the step") {
  Headless h;
  AppState app;
  app.background_allowed = false;
  REQUIRE(app.open_lesson("online"));
  h.frame(app);
  app.quiz.on = true;
  h.frame(app);
  REQUIRE_FALSE(app.quiz.questions.empty());
  const Question q = app.quiz.questions.front();
  while (app.timeline.playhead() < q.step - 1) h.press(app, GLFW_KEY_RIGHT);
  h.press(app, GLFW_KEY_RIGHT);
  CHECK(app.timeline.playhead() == q.step - 1);
  CHECK(Headless::drawn("##ask-question"));
  // The arrows type nowhere and move nothing while the box waits.
  h.press(app, GLFW_KEY_RIGHT);
  CHECK(app.timeline.playhead() == q.step - 1);
  h.type_text(app, q.shown.c_str());
  h.press(app, GLFW_KEY_ENTER);
  CHECK(app.timeline.playhead() == q.step);
  CHECK_FALSE(Headless::drawn("##ask-question"));
  CHECK(Headless::drawn("##ask-answer"));
  REQUIRE(quiz_reveal(app.quiz, q.step));
  CHECK(quiz_reveal(app.quiz, q.step)->right);
  // Off again: the next steps are not held.
  app.quiz.on = false;
  for (int i = 0; i < 8; ++i) h.press(app, GLFW_KEY_RIGHT);
  CHECK(app.timeline.playhead() == 7);
}
