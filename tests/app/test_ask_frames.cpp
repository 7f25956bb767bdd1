// Go to… (Ctrl+G) and Ask me first driven by keys and typed characters in real ImGui frames
// without a window, as a student uses them.
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "tests/app/headless.h"
#include "tests/sample.h"
#include "app/ui/model/app_state.h"
#include "app/ui/style.h"
#include "app/ui/views/hit_map.h"
#include "core/lessons.h"

#include <doctest/doctest.h>
#include <imgui.h>
#include <imgui_internal.h>

#include <vector>

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

// The online lesson with Ask me first on, drawn, its questions made.
void open_asking(Headless& h, AppState& app) {
  app.background_allowed = false;
  REQUIRE(app.open_lesson("online"));
  h.frame(app);
  app.quiz.on = true;
  h.frame(app);
  REQUIRE_FALSE(app.quiz.questions.empty());
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
  open_asking(h, app);
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

TEST_CASE("ask me first: while it asks for the HBM reads, the counters' whole run column does not show the answer") {
  // Naive softmax: the end of pass 2 is the end of the run, so the column showed the answer.
  Headless h;
  AppState app;
  app.background_allowed = false;
  REQUIRE(app.open_lesson("naive"));
  h.frame(app);
  app.quiz.on = true;
  h.frame(app);
  const Question* reads = nullptr;
  for (const Question& q : app.quiz.questions)
    if (q.kind == QuestionKind::hbm_reads && !reads) reads = &q;
  REQUIRE(reads);
  const int step = reads->step;
  bool hidden_before = false;
  while (app.timeline.playhead() < step - 1) {
    h.press(app, GLFW_KEY_RIGHT);
    if (app.quiz.question()) {
      hidden_before |= app.memory_panel.hide_whole_run && app.quiz.question()->kind != QuestionKind::hbm_reads;
      if (app.quiz.question()->kind != QuestionKind::hbm_reads) h.press(app, GLFW_KEY_ESCAPE);
    }
  }
  h.press(app, GLFW_KEY_RIGHT);
  REQUIRE(app.quiz.question());
  CHECK(app.quiz.question()->kind == QuestionKind::hbm_reads);
  CHECK(app.memory_panel.hide_whole_run);
  CHECK_FALSE(hidden_before);  // other questions hide nothing
  h.press(app, GLFW_KEY_ESCAPE);
  h.frame(app);
  CHECK_FALSE(app.quiz.question());
  CHECK_FALSE(app.memory_panel.hide_whole_run);
}

namespace {

// The step a click on cell (r, c) of `buffer` must land on, worked out plainly from the steps'
// write regions: the last write at or before the playhead, else the first write after it.
int writer_by_scan(const Recording& rec, int buffer, int r, int c, int playhead) {
  auto writes = [&](int k) {
    for (const Region& g : rec.steps[static_cast<std::size_t>(k)].writes)
      if (g.buffer == buffer && g.r0 <= r && r < g.r1 && g.c0 <= c && c < g.c1) return true;
    return false;
  };
  for (int k = playhead; k >= 0; --k)
    if (writes(k)) return k;
  for (int k = playhead + 1; k < rec.step_count(); ++k)
    if (writes(k)) return k;
  return -1;
}

// Clicks the centre of buffer cell (r, c) where the view drew it this frame.
void click_cell(Headless& h, AppState& app, int buffer, int r, int c, bool shift = false) {
  h.frame(app);
  const auto rect = app.hits.rect_of(buffer, r, c);
  REQUIRE(rect);
  ImGui::GetIO().KeyShift = shift;
  h.click(app, ImVec2(rect->x + rect->w * 0.5f, rect->y + rect->h * 0.5f));
  ImGui::GetIO().KeyShift = false;
}

}  // namespace

TEST_CASE("click to jump: a cell of the vector, chunked and matrix views goes to the step that wrote it") {
  Headless h;
  AppState app;
  app.background_allowed = false;

  // Vector view, online softmax on [3, 2, 5, 1]: yᵢ is written by pass 2's i-th step (step 4 + i).
  REQUIRE(app.open_lesson("online"));
  h.frame(app);
  const int y = app.played.rec->find_buffer("y"), x = app.played.rec->find_buffer("x");
  for (int i : {0, 2, 3}) {
    app.seek(1);
    click_cell(h, app, y, 0, i);
    CHECK(app.timeline.playhead() == 4 + i);
  }
  // Shift: the first step that read xᵢ, pass 1's i-th.
  click_cell(h, app, x, 0, 2, true);
  CHECK(app.timeline.playhead() == 2);

  // Chunked view and matrix view: every cell the view reports of the written buffers.
  for (const char* lesson : {"chunked", "attn-tiled"}) {
    CAPTURE(lesson);
    REQUIRE(app.open_lesson(lesson));
    h.frame(app);
    const Recording& rec = *app.played.rec;
    int clicked = 0;
    for (int b = 0; b < static_cast<int>(rec.buffers.size()); ++b) {
      const BufferInfo& info = rec.buffers[static_cast<std::size_t>(b)];
      if (!info.written) continue;
      for (int r : {0, info.rows - 1}) {
        const int c = info.cols - 1;
        app.seek(rec.step_count() / 2);
        h.frame(app);
        if (!app.hits.rect_of(b, r, c)) continue;  // not drawn by this view
        const int from = app.timeline.playhead();
        const int want = writer_by_scan(rec, b, r, c, from);
        CAPTURE(info.name);
        CAPTURE(r);
        click_cell(h, app, b, r, c);
        if (want >= 0) CHECK(app.timeline.playhead() == want);
        ++clicked;
      }
    }
    CHECK(clicked >= 2);
  }
}

TEST_CASE("ask me first lets an export step through: its dialog open, or its picture frames, ask nothing") {
  Headless h;
  AppState app;
  open_asking(h, app);
  const int s = app.quiz.questions.front().step;
  app.seek(s - 1);
  h.frame(app);
  // A picture frame after the playhead moved one step, as a GIF export moves it.
  app.seek(s);
  FrameOptions picture;
  picture.picture = true;
  picture.keyboard = false;
  app.tick(0.0);
  ImGui::NewFrame();
  draw_frame(app, picture);
  ImGui::Render();
  CHECK(app.timeline.playhead() == s);
  CHECK(app.quiz.asking == -1);
  // A window frame while a modal dialog is open (the export dialog's progress): let through too.
  app.seek(s - 1);
  h.frame(app);
  h.press(app, GLFW_KEY_G, false, true);
  REQUIRE(Headless::drawn("Go to…"));
  app.seek(s);
  h.frame(app);
  CHECK(app.timeline.playhead() == s);
  CHECK(app.quiz.asking == -1);
}

namespace {

// Whether the ImGui window `name`, as drawn in the last frame, covers any of `rects`; each one
// it covers is reported.
bool covers(const char* name, const std::vector<Rect>& rects) {
  const ImGuiWindow* w = ImGui::FindWindowByName(name);
  REQUIRE(w);
  bool any = false;
  for (const Rect& r : rects) {
    const bool hit = w->Pos.x < r.x + r.w && r.x < w->Pos.x + w->Size.x && w->Pos.y < r.y + r.h && r.y < w->Pos.y + w->Size.y;
    if (hit) MESSAGE(std::string(name) << " at (" << w->Pos.x << ", " << w->Pos.y << ", " << w->Size.x << " × " << w->Size.y << ") covers (" << r.x << ", " << r.y << ", " << r.w << " × " << r.h << ")");
    any |= hit;
  }
  return any;
}

}  // namespace

TEST_CASE("ask me first: the question and the answer cover nothing the step points at (its cells, memory tiles and moves, code lines), at 1280×800 and presenting at 1920×1080") {
  // Sample (tests/sample.h): every lesson, at one of the two sizes, turning with the lesson.
  Headless h;
  ImGuiIO& io = ImGui::GetIO();
  for (std::size_t li = 0; li < lessons().size(); ++li) {
    const Lesson& l = lessons()[li];
    for (bool presenting : {false, true}) {
      if (!sample::keeps(li, presenting ? 1 : 0, 2)) continue;
      CAPTURE(l.id);
      CAPTURE(presenting);
      io.DisplaySize = presenting ? ImVec2(1920, 1080) : ImVec2(1280, 800);
      AppState app;
      open_at(app, l.id.c_str(), Tab::lesson, presenting);
      h.frame(app);
      app.quiz.on = true;
      h.frame(app);
      const std::vector<Question> questions = app.quiz.questions;
      for (const Question& q : questions) {
        CAPTURE(q.step);
        for (int k = 0; k < app.timeline.count() && !Headless::drawn("##ask-question"); ++k) h.press(app, GLFW_KEY_RIGHT);
        REQUIRE(Headless::drawn("##ask-question"));
        h.frame(app);
        const Recording& rec = *app.played.rec;
        CHECK_FALSE(covers("##ask-question", app.hits.step_rects(rec.steps[static_cast<std::size_t>(app.timeline.playhead())])));
        h.type_text(app, q.shown.c_str());
        h.press(app, GLFW_KEY_ENTER);
        h.frame(app);
        REQUIRE(Headless::drawn("##ask-answer"));
        CHECK_FALSE(covers("##ask-answer", app.hits.step_rects(rec.steps[static_cast<std::size_t>(app.timeline.playhead())])));
      }
    }
  }
  restore_window();
}

namespace {

// The Ask me first strip drawn in the last frame (whichever of its three states), or nullptr.
const ImGuiWindow* strip_window() {
  for (const char* name : {"##ask-question", "##ask-answer", "##ask-between"})
    if (Headless::drawn(name)) return ImGui::FindWindowByName(name);
  return nullptr;
}

struct Box {
  float x = 0, y = 0, w = 0, h = 0;
};
Box box_of(const ImGuiWindow* w) { return {w->Pos.x, w->Pos.y, w->Size.x, w->Size.y}; }
bool apart(const Box& a, const Box& b) {
  return a.x + a.w <= b.x + 0.5f || b.x + b.w <= a.x + 0.5f || a.y + a.h <= b.y + 0.5f || b.y + b.h <= a.y + 0.5f;
}

}  // namespace

TEST_CASE("ask me first: its strip covers no panel, holds what it says without clipping, and keeps its place and the panels' at every step, at 1280×800 and presenting at 1920×1080, at fonts 1× and 2×") {
  // Sample (tests/sample.h): every lesson, at one of the four sizes and fonts, turning with the lesson.
  Headless h;
  ImGuiIO& io = ImGui::GetIO();
  const char* panels[] = {"View", "Memory: HBM and SRAM", "Explanation", "Pseudocode", "Timeline", "Inputs", "Lessons"};
  for (std::size_t li = 0; li < lessons().size(); ++li) {
    const Lesson& l = lessons()[li];
    for (std::size_t variant = 0; variant < 4; ++variant) {
      if (!sample::keeps(li, variant, 4)) continue;
      const bool presenting = variant % 2 == 1;
      const float font = variant < 2 ? 1.0f : 2.0f;
      CAPTURE(l.id);
      CAPTURE(presenting);
      CAPTURE(font);
      io.DisplaySize = presenting ? ImVec2(1920, 1080) : ImVec2(1280, 800);
      AppState app;
      open_at(app, l.id.c_str(), Tab::lesson, presenting, font);
      h.frame(app);
      app.quiz.on = true;
      h.frame(app);
      h.frame(app);
      REQUIRE(strip_window());
      const Box strip = box_of(strip_window());
      const Box view = box_of(ImGui::FindWindowByName("View"));
      const ImVec2 pad = ImGui::GetStyle().WindowPadding;
      int asked = 0, wrong = 0;
      for (int k = 0; k < 2 * app.timeline.count() + 2 && app.timeline.playhead() < app.timeline.count() - 1; ++k) {
        // A window measures what it holds a frame after it appears: one more frame.
        h.frame(app);
        CAPTURE(app.timeline.playhead());
        REQUIRE(app.presenting == presenting);
        const ImGuiWindow* w = strip_window();
        REQUIRE(w);
        const std::string name = w->Name;
        CAPTURE(name);
        const Box b = box_of(w);
        CHECK(b.x == doctest::Approx(strip.x));
        CHECK(b.y == doctest::Approx(strip.y));
        CHECK(b.w == doctest::Approx(strip.w));
        CHECK(b.h == doctest::Approx(strip.h));
        const Box v = box_of(ImGui::FindWindowByName("View"));
        CHECK(v.h == doctest::Approx(view.h));
        for (const char* p : panels)
          if (Headless::drawn(p)) {
            CAPTURE(p);
            CHECK(apart(b, box_of(ImGui::FindWindowByName(p))));
          }
        // What it holds fits inside its padding: nothing cut at its bottom or its right.
        CHECK(w->ContentSize.y <= w->Size.y - 2 * pad.y + 0.5f);
        CHECK(w->ContentSize.x <= w->Size.x - 2 * pad.x + 0.5f);
        if (Headless::drawn("##ask-question")) {
          // First a refused answer (its message in the strip, which must still fit), then the
          // right one or a wrong one.
          if (asked++ == 0) {
            h.type_text(app, "what?");
            h.press(app, GLFW_KEY_ENTER);
            REQUIRE(Headless::drawn("##ask-question"));
            REQUIRE_FALSE(app.quiz.error.empty());
            h.frame(app);
            const ImGuiWindow* e = ImGui::FindWindowByName("##ask-question");
            CHECK(box_of(e).h == doctest::Approx(strip.h));
            CHECK(e->ContentSize.y <= e->Size.y - 2 * pad.y + 0.5f);
            CAPTURE(app.quiz.error);
            CHECK(e->ContentSize.x <= e->Size.x - 2 * pad.x + 0.5f);
            for (int i = 0; i < 12 && !app.quiz.input.empty(); ++i) h.press(app, GLFW_KEY_BACKSPACE);
            REQUIRE(app.quiz.input.empty());
          }
          const Question& qu = *app.quiz.question();
          const std::string answer = wrong++ % 2 == 0 ? qu.shown : qu.kind == QuestionKind::tile ? "9, 9" : "12345";
          h.type_text(app, answer.c_str());
          h.press(app, GLFW_KEY_ENTER);
          CAPTURE(app.quiz.input);
          CAPTURE(app.quiz.error);
          REQUIRE(Headless::drawn("##ask-answer"));
          continue;
        }
        h.press(app, GLFW_KEY_RIGHT);
      }
      CHECK(asked == static_cast<int>(app.quiz.questions.size()));
      // The last step: the score, in the same place.
      REQUIRE(strip_window());
      CHECK(box_of(strip_window()).y == doctest::Approx(strip.y));
    }
  }
  restore_window();
}
