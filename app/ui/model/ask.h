// "Ask me first" (predict the next value) and "Go to…": their state and rules, free of ImGui,
// so the tests drive them without a window (tests/app/test_ask.cpp). The panels draw them
// (app/ui/panels/panel_ask.cpp).
//
// With Ask me first on, a step that carries a question (core/questions.h) is not shown until
// the question is answered: playing or stepping onto it stops on the step before, where the
// student still sees what the answer follows from, and asks. Enter scores the answer and shows
// the step with the right value beside the student's; Esc skips it. A jump (Go to, a click, the
// scrubber, End) is not stepping: it asks nothing.
#pragma once

#include "core/questions.h"
#include "core/recording.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace flashstep::ui {

struct Quiz {
  bool on = false;  // View ▸ Ask me first
  std::vector<Question> questions;       // of `rec`
  std::weak_ptr<const Recording> rec;    // the recording they were made from
  std::vector<std::optional<Verdict>> verdicts;  // per question: its answer once given
  std::vector<std::uint8_t> skipped;     // per question: Esc pressed
  int asking = -1;      // the question waiting for an answer (index), −1: none
  std::string input;    // what the student is typing
  std::string error;    // why the last input was not taken, one line
  bool focus = false;   // the field takes the keyboard on the next frame
  int seen = -1;        // the playhead the last time it was checked

  const Question* question() const { return asking >= 0 ? &questions[static_cast<std::size_t>(asking)] : nullptr; }
};

// The questions of `rec`, made again when it is another recording (new inputs, another lesson);
// the answers given to the old ones are dropped. True when they were made again.
bool quiz_load(Quiz& q, const std::shared_ptr<const Recording>& rec);

// The playhead moved from `from` to `to` (`playing`: by playback): where it must stand instead.
// Stepping or playing onto an unanswered question's step stops on the step before it and asks;
// while a question waits, moving forward stays there, and moving elsewhere takes it back.
int quiz_hold(Quiz& q, int from, int to, bool playing);

// Enter: scores the input. Accepted: the question is answered, and the step to show now (its
// own) is returned; not accepted: −1, with q.error saying why (the question stays).
int quiz_answer(Quiz& q);
// Esc: the question is skipped; the step to show now.
int quiz_skip(Quiz& q);

// The answer given to the question of step `step`, to show beside it; nullptr when none.
const Verdict* quiz_reveal(const Quiz& q, int step);
const Question* quiz_question_at(const Quiz& q, int step);

// "4 of 6 right" (with "· 1 skipped"), over the questions met so far; empty before the first.
std::string quiz_score(const Quiz& q);

// Where the next question is asked, seen from step `at`: "the next question: in 3 steps" (the
// presses of → until it is asked), "… at the next step", "no more questions ahead" (all the
// later ones answered or skipped), or "no questions in this lesson".
std::string quiz_ahead(const Quiz& q, int at);

// The Go to… box (Ctrl+G): what is typed and why it was refused.
struct GoToBox {
  bool open = false;   // asked to open (the frame opens the popup)
  std::string text;
  std::string error;
};

class AppState;

// Per frame, on the lesson's tab: the questions follow the recording shown, and a step onto an
// unanswered question is held back (quiz_hold), playback paused.
void quiz_check(AppState& app);
// Enter in the box: answers, or skips (Esc), and shows the question's step.
void quiz_enter(AppState& app);
void quiz_escape(AppState& app);

// Enter in Go to…: goes where app.go_to.text says on the timeline shown, or keeps the box open
// with the message (app.go_to.error). True when it went.
bool go_to_apply(AppState& app);

// A click on buffer cell (r, c) of the lesson's view: to the step that last wrote it (as of the
// playhead; core/navigate.h), or with `first_read` to the first step that read it. False, with
// a note in the status line, when no step does.
bool jump_to_cell(AppState& app, int buffer, int r, int c, bool first_read);

}  // namespace flashstep::ui
