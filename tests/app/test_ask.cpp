// Ask me first, Go to… and click to jump as the window's model does them (app/ui/model/ask.h),
// without a window: the playhead held before a question, the answers scored at the digits
// shown, the score at the end; Go to's words; the step that wrote a clicked cell.
#include "app/ui/model/app_state.h"
#include "app/ui/model/inputs.h"

#include <doctest/doctest.h>

using namespace flashstep;
using namespace flashstep::ui;

namespace {

// Online softmax over 12 values: pass 1 (m, l) is steps 1–12, pass 2 (y) steps 13–24.
const std::vector<double> kX = {1, 3, 2, 5, 0, 4, 6, 1, -2, 7, 3, 2};

void open_online(AppState& app) {
  app.background_allowed = false;
  REQUIRE(app.open_lesson("online"));
  set_vector(app.inputs, {kX});
  app.inputs_edited();
  REQUIRE(app.played.rec->step_count() == 24);
}

// One → press and the frame's check.
void step(AppState& app) {
  app.timeline.step(1);
  app.sync_cursor();
  quiz_check(app);
}

// An answer that cannot be right: a number far from any value asked, a tile out of range.
std::string wrong_answer(const Question& q) {
  if (q.kind == QuestionKind::tile) return "99, 99";
  return q.digits == 0 ? std::to_string(static_cast<long long>(q.value) + 7) : "12345";
}

}  // namespace

TEST_CASE("ask me first: stepping onto a question holds the step before it until it is answered") {
  AppState app;
  open_online(app);
  app.quiz.on = true;
  quiz_check(app);  // the questions of this recording
  REQUIRE(app.quiz.questions.size() >= 3);
  const Question q0 = app.quiz.questions[0], q1 = app.quiz.questions[1], q2 = app.quiz.questions[2];
  REQUIRE(q0.step >= 1);

  while (app.timeline.playhead() < q0.step - 1) step(app);
  CHECK(app.quiz.asking == -1);
  step(app);  // onto q0's step: held on the step before, asking
  CHECK(app.timeline.playhead() == q0.step - 1);
  CHECK(app.played.cursor->position() == q0.step - 1);
  REQUIRE(app.quiz.question());
  CHECK(app.quiz.question()->prompt == q0.prompt);
  step(app);  // still held
  CHECK(app.timeline.playhead() == q0.step - 1);

  // Not an answer: asked again, with the reason.
  app.quiz.input = "what?";
  quiz_enter(app);
  CHECK(app.timeline.playhead() == q0.step - 1);
  CHECK_FALSE(app.quiz.error.empty());
  // A wrong answer is scored wrong and the step shown, the right value beside the student's.
  app.quiz.input = wrong_answer(q0);
  quiz_enter(app);
  CHECK(app.timeline.playhead() == q0.step);
  REQUIRE(quiz_reveal(app.quiz, q0.step));
  CHECK_FALSE(quiz_reveal(app.quiz, q0.step)->right);
  CHECK(quiz_reveal(app.quiz, q0.step)->line().find("right: " + q0.shown + " ✗") != std::string::npos);

  // The next one, answered as the screen shows it: right.
  while (app.quiz.asking < 0 && app.timeline.playhead() < q1.step) step(app);
  CHECK(app.timeline.playhead() == q1.step - 1);
  app.quiz.input = q1.shown;
  quiz_enter(app);
  CHECK(app.timeline.playhead() == q1.step);
  REQUIRE(quiz_reveal(app.quiz, q1.step));
  CHECK(quiz_reveal(app.quiz, q1.step)->right);
  CHECK(quiz_score(app.quiz) == "1 of 2 right");

  // Playing stops at the next question too; Esc skips it.
  app.timeline.play();
  for (int i = 0; i < 600 && app.quiz.asking < 0; ++i) {
    app.tick(0.1);
    quiz_check(app);
  }
  CHECK(app.quiz.question()->step == q2.step);
  CHECK(app.timeline.playhead() == q2.step - 1);
  CHECK_FALSE(app.timeline.playing());
  quiz_escape(app);
  CHECK(app.timeline.playhead() == q2.step);
  CHECK(quiz_score(app.quiz) == "1 of 2 right · 1 skipped");

  // Going back and forth again does not ask an answered question twice.
  app.seek(q0.step - 1);
  quiz_check(app);
  step(app);
  CHECK(app.timeline.playhead() == q0.step);
  CHECK(app.quiz.asking == -1);
}

TEST_CASE("ask me first: off, nothing is held, a jump asks nothing, new inputs make new questions") {
  AppState app;
  open_online(app);
  quiz_check(app);
  for (int i = 0; i < 23; ++i) step(app);
  CHECK(app.timeline.playhead() == 23);
  CHECK(app.quiz.asking == -1);

  app.quiz.on = true;
  app.seek(0);
  quiz_check(app);
  app.seek(23);  // End
  quiz_check(app);
  CHECK(app.timeline.playhead() == 23);
  CHECK(app.quiz.asking == -1);

  const std::vector<Question> before = app.quiz.questions;
  set_vector(app.inputs, {{5, 1, 7, 2, 9, 3, 8, 4}});
  app.inputs_edited();
  quiz_check(app);
  REQUIRE_FALSE(app.quiz.questions.empty());
  CHECK(app.quiz.questions.front().shown != before.front().shown);
}

TEST_CASE("go to: a step, a pass and a tile move the playhead, and bad input keeps the box with a message") {
  AppState app;
  open_online(app);
  app.go_to.text = "17";
  CHECK(go_to_apply(app));
  CHECK(app.timeline.playhead() == 16);
  app.go_to.text = "pass 2";
  CHECK(go_to_apply(app));
  CHECK(app.timeline.playhead() == 12);  // pass 1 is the 12 (m, l) steps
  app.go_to.text = "row 1";
  CHECK(go_to_apply(app));
  CHECK(app.timeline.playhead() == 0);
  app.go_to.text = "pass 3";
  CHECK_FALSE(go_to_apply(app));
  CHECK(app.go_to.error == "no pass 3: this recording has 2");
  CHECK(app.timeline.playhead() == 0);

  REQUIRE(app.open_lesson("attn-tiled"));
  const Recording& rec = *app.played.rec;
  REQUIRE(rec.Tr >= 2);
  REQUIRE(rec.Tc >= 1);
  app.go_to.text = "tile (2, 1)";
  CHECK(go_to_apply(app));
  CHECK(rec.steps[static_cast<std::size_t>(app.timeline.playhead())].tile_i == 1);
  CHECK(rec.steps[static_cast<std::size_t>(app.timeline.playhead())].tile_j == 0);
  app.go_to.text = "tile (" + std::to_string(rec.Tr + 1) + ", 1)";
  CHECK_FALSE(go_to_apply(app));
  CHECK(app.go_to.error == "tile (" + std::to_string(rec.Tr + 1) + ", 1) is not in this recording: i runs 1.." +
                               std::to_string(rec.Tr));
}

TEST_CASE("click to jump: a cell goes to the step that wrote it, Shift to the first that read it") {
  AppState app;
  open_online(app);
  const Recording& rec = *app.played.rec;
  const int y = rec.find_buffer("y"), x = rec.find_buffer("x"), m = rec.find_buffer("m");
  // yᵢ is written by pass 2's i-th step (step 12 + i, from 0), whatever the playhead.
  for (int i : {0, 5, 11}) {
    app.seek(3);
    CHECK(jump_to_cell(app, y, 0, i, false));
    CHECK(app.timeline.playhead() == 12 + i);
  }
  // m is written by every step of pass 1: as of step 7 (0-based 6), by step 7 itself.
  app.seek(6);
  CHECK(jump_to_cell(app, m, 0, 0, false));
  CHECK(app.timeline.playhead() == 6);
  // x is an input: nothing wrote it; pass 1 reads xᵢ first at its i-th step.
  CHECK_FALSE(jump_to_cell(app, x, 0, 4, false));
  CHECK(app.timeline.playhead() == 6);
  CHECK(jump_to_cell(app, x, 0, 4, true));
  CHECK(app.timeline.playhead() == 4);
}

TEST_CASE("ask me first: the strip's \"next question: in N steps\" is the number of → presses that asks it") {
  AppState app;
  open_online(app);
  app.quiz.on = true;
  quiz_check(app);
  REQUIRE(app.quiz.questions.size() >= 2);
  const int n = static_cast<int>(app.quiz.questions.size());
  int met = 0;
  while (app.timeline.playhead() < app.timeline.count() - 1) {
    const std::string ahead = quiz_ahead(app.quiz, app.timeline.playhead());
    CAPTURE(app.timeline.playhead());
    CAPTURE(ahead);
    if (met == n) {
      CHECK(ahead == "no more questions ahead");
      step(app);
      continue;
    }
    // Press → until a question is asked, counting; the strip said so many before the first.
    int presses = 0;
    const int from = app.timeline.playhead();
    while (app.quiz.asking < 0 && presses < app.timeline.count()) {
      step(app);
      ++presses;
    }
    REQUIRE(app.quiz.asking >= 0);
    CHECK(ahead == (presses == 1 ? std::string("the next question: at the next step")
                                 : "the next question: in " + std::to_string(presses) + " steps"));
    CHECK(from + presses - 1 == app.timeline.playhead());  // held on the step before the question's
    // Skip it every other time, answer it the others: either way it is behind us after.
    if (met % 2 == 0) quiz_skip(app.quiz);
    else {
      app.quiz.input = app.quiz.question()->shown;
      REQUIRE(quiz_answer(app.quiz) >= 0);
    }
    app.seek(app.timeline.playhead() + 1);
    app.sync_cursor();
    quiz_check(app);
    ++met;
  }
  CHECK(met == n);
  Quiz none;
  CHECK(quiz_ahead(none, 0) == "no questions in this lesson");
}
