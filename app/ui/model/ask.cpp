// Ask me first and Go to…, without ImGui (app/ui/model/ask.h).
#include "app/ui/model/ask.h"

#include "app/ui/model/app_state.h"
#include "core/markup.h"
#include "core/navigate.h"
#include "core/text.h"

namespace flashstep::ui {

bool quiz_load(Quiz& q, const std::shared_ptr<const Recording>& rec) {
  if (rec && q.rec.lock() == rec) return false;
  q.rec = rec;
  q.questions = rec ? make_questions(*rec) : std::vector<Question>{};
  q.verdicts.assign(q.questions.size(), std::nullopt);
  q.skipped.assign(q.questions.size(), 0);
  q.asking = -1;
  q.input.clear();
  q.error.clear();
  return true;
}

int quiz_hold(Quiz& q, int from, int to, bool playing) {
  if (!q.on) {
    q.asking = -1;
    return to;
  }
  if (const Question* waiting = q.question()) {
    if (to >= waiting->step) {
      q.focus = true;  // the box takes the keyboard back (a click elsewhere took it)
      return waiting->step - 1;
    }
    if (to != waiting->step - 1) q.asking = -1;  // gone back: the question waits for next time
    return to;
  }
  if (to <= from || !(playing || to == from + 1)) return to;
  for (std::size_t i = 0; i < q.questions.size(); ++i) {
    const Question& qu = q.questions[i];
    if (qu.step <= from || qu.step > to) continue;
    if (q.verdicts[i] || q.skipped[i]) continue;
    q.asking = static_cast<int>(i);
    q.input.clear();
    q.error.clear();
    q.focus = true;
    return qu.step - 1;
  }
  return to;
}

int quiz_answer(Quiz& q) {
  const Question* qu = q.question();
  if (!qu) return -1;
  Verdict v = score(*qu, q.input);
  if (!v.accepted) {
    q.error = v.error;
    q.focus = true;
    return -1;
  }
  const int step = qu->step;
  q.verdicts[static_cast<std::size_t>(q.asking)] = std::move(v);
  q.asking = -1;
  q.error.clear();
  return step;
}

int quiz_skip(Quiz& q) {
  const Question* qu = q.question();
  if (!qu) return -1;
  const int step = qu->step;
  q.skipped[static_cast<std::size_t>(q.asking)] = 1;
  q.asking = -1;
  q.error.clear();
  return step;
}

const Question* quiz_question_at(const Quiz& q, int step) { return question_at(q.questions, step); }

const Verdict* quiz_reveal(const Quiz& q, int step) {
  for (std::size_t i = 0; i < q.questions.size(); ++i)
    if (q.questions[i].step == step && q.verdicts[i]) return &*q.verdicts[i];
  return nullptr;
}

std::string quiz_score(const Quiz& q) {
  int answered = 0, right = 0, skipped = 0;
  for (std::size_t i = 0; i < q.questions.size(); ++i) {
    if (q.verdicts[i]) ++answered, right += q.verdicts[i]->right ? 1 : 0;
    if (q.skipped[i]) ++skipped;
  }
  if (answered + skipped == 0) return {};
  std::string out = strf("%d of %d right", right, answered);
  if (skipped > 0) out += strf(" · %d skipped", skipped);
  return out;
}

std::string quiz_ahead(const Quiz& q, int at) {
  if (q.questions.empty()) return "no questions in this lesson";
  for (std::size_t i = 0; i < q.questions.size(); ++i) {
    const int step = q.questions[i].step;
    if (step <= at || q.verdicts[i] || q.skipped[i]) continue;
    // Stepping onto `step` asks it: that is the (step − at)-th press of → from here.
    const int presses = step - at;
    return presses == 1 ? std::string("the next question: at the next step")
                        : strf("the next question: in %d steps", presses);
  }
  return "no more questions ahead";
}

// ---- with the app ---------------------------------------------------------------------------

void quiz_check(AppState& app) {
  Quiz& q = app.quiz;
  const int now = app.timeline.playhead();
  if (!q.on || app.tab != Tab::lesson) {
    q.asking = -1;
    q.seen = now;
    return;
  }
  if (quiz_load(q, app.played.rec)) {
    q.seen = now;
    return;
  }
  const int want = quiz_hold(q, q.seen, now, app.timeline.playing());
  if (want != now) {
    app.timeline.pause();
    app.seek(want);
  }
  q.seen = app.timeline.playhead();
}

namespace {
void show_step(AppState& app, int step) {
  if (step < 0) return;
  app.seek(step);
  app.quiz.seen = app.timeline.playhead();
}
}  // namespace

void quiz_enter(AppState& app) {
  const Question* qu = app.quiz.question();
  if (!qu) return;
  const std::string prompt = plain_text(qu->prompt);
  const int step = quiz_answer(app.quiz);
  if (step < 0) return;
  show_step(app, step);
  if (const Verdict* v = quiz_reveal(app.quiz, step)) app.note(Severity::info, prompt + " " + v->line());
}

void quiz_escape(AppState& app) { show_step(app, quiz_skip(app.quiz)); }

bool go_to_apply(AppState& app) {
  GoToBox& g = app.go_to;
  const Recording* rec = app.played.rec.get();
  if (app.tab == Tab::compare)
    rec = app.compare.left.rec->step_count() >= app.compare.right.rec->step_count() ? app.compare.left.rec.get()
                                                                                     : app.compare.right.rec.get();
  const GoTo to = parse_go_to(*rec, g.text);
  if (!to.ok()) {
    g.error = to.error;
    return false;
  }
  g.error.clear();
  app.seek_active(to.step);
  app.timeline_used();
  app.quiz.seen = app.timeline.playhead();  // a jump asks nothing
  app.note(Severity::info, "Went to " + to.what + ": step " + std::to_string(to.step + 1) + ".");
  return true;
}

bool jump_to_cell(AppState& app, int buffer, int r, int c, bool first_read) {
  const Recording& rec = *app.played.rec;
  if (buffer < 0 || buffer >= static_cast<int>(rec.buffers.size())) return false;
  const BufferInfo& b = rec.buffers[static_cast<std::size_t>(buffer)];
  const std::string cell = b.rows > 1 && b.cols > 1 ? strf("%s[%d, %d]", b.shown().c_str(), r + 1, c + 1)
                                                    : b.shown() + sub((b.rows > 1 ? r : c) + 1);
  const int k = first_read ? first_reader(rec, buffer, r, c) : last_writer(rec, buffer, r, c, app.timeline.playhead());
  if (k < 0) {
    app.note(Severity::info, first_read ? "No step reads " + cell + "." : "No step writes " + cell + ": it is an input.");
    return false;
  }
  app.seek(k);
  app.timeline_used();
  app.quiz.seen = app.timeline.playhead();
  app.note(Severity::info, strf("Step %d %s ", k + 1, first_read ? "first reads" : "wrote") + cell + ".");
  return true;
}

}  // namespace flashstep::ui
