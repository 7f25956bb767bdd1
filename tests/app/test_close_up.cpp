// The matrix view's close-up of the step's numbers: every query row of the step's tile can be
// read, a page of rows at a time ([ and ]); and presentation mode at 1920×1080 in the projector
// theme, at font 1×, 1.5× and 2×: every panel shows all it holds with no scrolling (a projector
// has no mouse to scroll with), and the close-up stays.
#include "tests/app/headless.h"
#include "tests/sample.h"
#include "tests/app/written_numbers.h"

#include "app/ui/model/ask.h"
#include "app/ui/panels/panels.h"
#include "app/ui/views/close_up.h"
#include "app/ui/views/view_matrix.h"
#include "app/ui/widgets.h"
#include "core/algorithms.h"
#include "core/lessons.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <string>

using namespace flashstep;
using namespace flashstep::ui;

namespace {

// How far the contents of the window named `name`, or of any child window of the View panel
// whose name contains it, run past its edges in the last frame (0: all of it shows).
float overflow(const std::string& name) {
  float most = 0;
  for (const ImGuiWindow* w : ImGui::GetCurrentContext()->Windows) {
    if (!w->Active) continue;
    const std::string n = w->Name;
    if (n == name || (n.rfind("View/", 0) == 0 && n.find(name) != std::string::npos))
      most = std::max({most, w->ScrollMax.y, w->ScrollMax.x});
  }
  return most;
}

bool inside(const Rect& a, const Rect& area) {
  return a.x >= area.x - 1 && a.y >= area.y - 1 && a.x + a.w <= area.x + area.w + 1 &&
         a.y + a.h <= area.y + area.h + 1;
}

}  // namespace

TEST_CASE("close-up: ] and [ page through every query row of the step's tile, whole, at 11 px or more, at 1280×800") {
  // Measure it yourself's lesson: N = 64 in tiles of 16 × 16, of which the close-up shows a few
  // rows at a time.
  Headless h;
  ImGuiIO& io = ImGui::GetIO();
  io.DisplaySize = ImVec2(1280, 800);
  AppState app;
  app.background_allowed = false;
  REQUIRE(app.open_lesson("measure"));
  app.tab = Tab::lesson;
  app.tab_changed = true;
  const Recording& rec = *app.played.rec;
  REQUIRE(rec.Br > 1);
  const int n = app.timeline.count();
  bool paged = false;
  for (int k : {0, n / 2, n - 1}) {
    CAPTURE(k);
    app.seek(k);
    for (int f = 0; f < 3; ++f) h.frame(app);
    const Step* step = app.played.step();
    REQUIRE(step);
    // The step's query rows: its Q block's, or its own row.
    int r0 = step->row, r1 = step->row + 1;
    if (step->tile_i >= 0) {
      r0 = step->tile_i * rec.Br;
      r1 = std::min(r0 + rec.Br, rec.n);
    }
    REQUIRE(r0 >= 0);
    const MatrixViewOptions& opt = app.views.get<MatrixViewOptions>();
    REQUIRE(opt.drawn.close_up_pages >= 1);
    // From the first page (a page kept from the last step is turned back), each ] shows the next
    // rows, until every row of the step was on screen at 11 px or more.
    for (int p = 0; p < opt.drawn.close_up_pages; ++p) h.type(app, '[');
    h.frame(app);
    std::set<int> seen;
    const int pages = opt.drawn.close_up_pages;
    paged |= pages > 1;
    for (int p = 0; p < pages; ++p) {
      CAPTURE(p);
      CHECK(opt.drawn.close_up_px >= kMinCellTextPx);
      CHECK_FALSE(opt.drawn.close_up_cut);  // every column of each row, none behind a "…"
      CHECK(opt.drawn.close_up_r0 >= r0);
      CHECK(opt.drawn.close_up_r1 <= r1);
      for (int r = opt.drawn.close_up_r0; r < opt.drawn.close_up_r1; ++r) seen.insert(r);
      h.type(app, ']');
      h.frame(app);
    }
    CHECK(static_cast<int>(seen.size()) == r1 - r0);
    // Past the last page, ] stays there; [ goes back a page.
    const int last_r0 = opt.drawn.close_up_r0;
    CHECK(last_r0 > r0);
    h.type(app, '[');
    h.frame(app);
    CHECK(opt.drawn.close_up_r0 < last_r0);
  }
  CHECK(paged);
}

TEST_CASE("close-up: a step with fewer items shows more of its rows in the close-up's height: in the window, and all of them on a slide") {
  // The close-up is as high at every step as its largest (the flash backward's tiles: five
  // matrices, then O, dQ and the statistics, then dKⱼ and dVⱼ) and pages through the rows
  // there; a step with fewer items (D = rowsum(dO ∘ O), the write-back of dKⱼ and dVⱼ) has
  // fewer lines, and more rows in that height.
  Headless h;
  ImGuiIO& io = ImGui::GetIO();
  for (const bool presenting : {false, true}) {
    CAPTURE(presenting);
    io.DisplaySize = presenting ? ImVec2(1920, 1080) : ImVec2(1280, 800);
    AppState app;
    open_at(app, "attn-flash-backward", Tab::lesson, presenting);
    const MatrixViewOptions& opt = app.views.get<MatrixViewOptions>();
    int tile_pages = 0;
    std::vector<int> few_pages;
    for (int k = 0; k < app.timeline.count(); ++k) {
      CAPTURE(k);
      app.seek(k);
      for (int f = 0; f < 3; ++f) h.frame(app);
      const Step* step = app.played.step();
      REQUIRE(step);
      if (!opt.drawn.close_up.shown) continue;
      if (step->tile_i >= 0 && step->tile_j >= 0) tile_pages = std::max(tile_pages, opt.drawn.close_up_pages);
      else if (step->tile_i >= 0 || step->tile_j >= 0) few_pages.push_back(opt.drawn.close_up_pages);  // a D block, a write-back
    }
    CHECK(tile_pages > 1);  // the premise: the tiles' steps do not hold all their rows
    REQUIRE_FALSE(few_pages.empty());
    for (int pages : few_pages) {
      CHECK(pages < tile_pages);
      if (presenting) CHECK(pages == 1);
    }
  }
  restore_window();
}

TEST_CASE("close-up: a K/V block's write-back pages through its key rows when they do not fit, at 1280×800") {
  // The flash backward's last step writes dKⱼ and dVⱼ back: Bc = 16 key rows of 16 numbers and
  // no query row.
  Headless h;
  ImGuiIO& io = ImGui::GetIO();
  io.DisplaySize = ImVec2(1280, 800);
  AppState app;
  app.background_allowed = false;
  REQUIRE(app.open_lesson("attn-flash-backward"));
  app.inputs.N = 32;
  app.inputs.d = 16;
  app.inputs.blocks = BlockChoice::explicit_blocks;
  app.inputs.Br = 16;
  app.inputs.Bc = 16;
  app.inputs_changed();
  app.panels.memory = false;  // the view takes the height: 16 × 16 tiles, five of them
  app.tab = Tab::lesson;
  app.tab_changed = true;
  REQUIRE(app.played.rec->Bc == 16);
  app.seek(app.timeline.count() - 1);
  for (int f = 0; f < 3; ++f) h.frame(app);
  const Step* step = app.played.step();
  REQUIRE(step);
  REQUIRE(step->tile_i < 0);
  REQUIRE(step->tile_j >= 0);
  const MatrixViewOptions& opt = app.views.get<MatrixViewOptions>();
  CHECK(opt.drawn.close_up_px >= kMinCellTextPx);
  CHECK(opt.drawn.close_up_r0 == opt.drawn.close_up_r1);  // no query rows
  // Fewer key rows fit than the block has: ] turns to the next ones and back with [.
  REQUIRE(opt.drawn.close_up_pages > 1);
  h.type(app, ']');
  h.frame(app);
  CHECK(opt.close_up_page == 1);
  h.type(app, '[');
  h.frame(app);
  CHECK(opt.close_up_page == 0);
}

TEST_CASE("close-up: a click on its \"rows … of …\" line turns to the next rows, from the last back to the first") {
  Headless h;
  ImGuiIO& io = ImGui::GetIO();
  io.DisplaySize = ImVec2(1280, 800);
  AppState app;
  app.background_allowed = false;
  REQUIRE(app.open_lesson("measure"));
  app.tab = Tab::lesson;
  app.tab_changed = true;
  app.seek(1);
  for (int f = 0; f < 3; ++f) h.frame(app);
  const MatrixViewOptions& opt = app.views.get<MatrixViewOptions>();
  const int pages = opt.drawn.close_up_pages;
  REQUIRE(pages > 1);
  const int first = opt.drawn.close_up_r0;
  for (int p = 1; p <= pages; ++p) {
    CAPTURE(p);
    const Rect& at = opt.drawn.close_up_rows;
    REQUIRE(at.shown);
    const int before = opt.drawn.close_up_r0;
    h.click(app, ImVec2(at.x + at.w * 0.5f, at.y + at.h * 0.5f));
    h.frame(app);
    if (p < pages) CHECK(opt.drawn.close_up_r0 > before);
    else CHECK(opt.drawn.close_up_r0 == first);
  }
  io.MousePos = ImVec2(-1, -1);
}

TEST_CASE("close-up: ] and [ turn its page when presenting too, where the view is drawn on a copy of its options") {
  Headless h;
  ImGuiIO& io = ImGui::GetIO();
  io.DisplaySize = ImVec2(1920, 1080);
  AppState app;
  open_at(app, "measure", Tab::lesson, true);
  app.seek(app.timeline.count() / 2);
  for (int f = 0; f < 3; ++f) h.frame(app);
  const MatrixViewOptions& opt = app.views.get<MatrixViewOptions>();
  REQUIRE(opt.drawn.close_up_pages > 1);
  const int r0 = opt.drawn.close_up_r0;
  h.type(app, ']');
  h.frame(app);
  CHECK(opt.drawn.close_up_r0 > r0);
  h.type(app, '[');
  h.frame(app);
  CHECK(opt.drawn.close_up_r0 == r0);
  io.DisplaySize = ImVec2(1280, 800);
}

TEST_CASE("close-up: ] and [ are in the keyboard shortcuts' list") {
  bool listed = false;
  for (const Shortcut& k : shortcuts()) listed |= std::string(k.keys).find(']') != std::string::npos;
  CHECK(listed);
}

TEST_CASE("presentation at 1920×1080 in the projector theme, font 1×, 1.5× and 2×: no panel scrolls or cuts, and the close-up of the step's numbers stays") {
  Headless h;
  ImGuiIO& io = ImGui::GetIO();
  io.DisplaySize = ImVec2(1920, 1080);
  // The sample (tests/sample.h): every lesson with a matrix view at one font size, the size
  // turning from lesson to lesson.
  std::size_t li = 0;
  for (const Lesson& l : lessons()) {
    if (info(l.scenario.algorithm).view != ViewKind::matrix) continue;
    const std::size_t lesson = li++;
    // Presenting multiplies the font by 1.5; the font sizes 1×, 1.5× and 2× give these.
    for (std::size_t si = 0; si < 3; ++si) {
      if (!sample::keeps(lesson, si, 3)) continue;
      const float scale = std::array<float, 3>{1.5f, 2.25f, 3.0f}[si];
      CAPTURE(l.id);
      CAPTURE(scale);
      AppState app;
      app.background_allowed = false;
      REQUIRE(app.open_lesson(l.id));
      app.tab = Tab::lesson;
      app.tab_changed = true;
      app.presenting = true;
      app.set_font_scale(scale / 1.5f);
      use_scale(app, scale, Theme::projector);
      h.at_steps(app, 8, 4, [&] {
        CHECK(overflow("Explanation") == 0.0f);
        CHECK(overflow("Pseudocode") == 0.0f);
        CHECK(overflow("Memory: HBM and SRAM") == 0.0f);
        // The view, its matrices and its legend under them.
        CHECK(overflow("presented-view") == 0.0f);
        CHECK(overflow("##matrices") == 0.0f);
        const MatrixViewOptions::Drawn& d = app.views.get<MatrixViewOptions>().drawn;
        // Cells too small for numbers: the close-up shows them, inside the view.
        if (d.numbers_hidden) {
          // Where a font made larger leaves too little room, its numbers give way down to their
          // size at font 1× (presenting: 1.5 times the window's).
          CHECK(d.close_up_px >= kMinCellTextPx * 1.5f);
          // Its heading ("Q block i = 2: queries 17–32 · rows 1–6 of 16") is a caption the room
          // reads: as large as its numbers at least, and never the smallest text of the slide.
          if (d.close_up_heading_px > 0) {
            CHECK(d.close_up_heading_px >= d.close_up_px);
            CHECK(d.close_up_heading_px >= kMinCellTextPx * 1.5f);
          }
          CHECK(d.close_up.shown);
          CHECK(inside(d.close_up, d.area));
        }
        for (const auto& matrix : d.matrices) {
          const auto b = matrix.first;
          CAPTURE(b);
          CHECK(inside(matrix.second, d.area));
        }
      });
    }
  }
  restore_window();
}

namespace {

// Every lesson with a matrix view at about 12 steps, at 1280 × 800 and presenting: `at(drawn)`.
template <class At>
void every_matrix_lesson(Headless& h, At at) {
  ImGuiIO& io = ImGui::GetIO();
  for (const Lesson& l : lessons()) {
    if (info(l.scenario.algorithm).view != ViewKind::matrix) continue;
    for (const bool presenting : {false, true}) {
      CAPTURE(l.id);
      CAPTURE(presenting);
      io.DisplaySize = presenting ? ImVec2(1920, 1080) : ImVec2(1280, 800);
      AppState app;
      open_at(app, l.id.c_str(), Tab::lesson, presenting);
      h.at_steps(app, 12, 3, [&] { at(app.views.get<MatrixViewOptions>().drawn); });
    }
  }
  restore_window();
}

}  // namespace

TEST_CASE("close-up: a fraction is written one way in all its cells (0.6 or .6, never both), at 1280×800 and presenting") {
  Headless h;
  int bare = 0, zero = 0;
  every_matrix_lesson(h, [&](const MatrixViewOptions::Drawn& d) {
    bool has_bare = false, has_zero = false;
    for (const std::string& t : d.close_up_numbers) {
      CAPTURE(t);
      has_bare |= written::unsigned_part(t).rfind(".", 0) == 0;
      has_zero |= written::unsigned_part(t).rfind("0.", 0) == 0;
    }
    CHECK_FALSE((has_bare && has_zero));
    bare += has_bare;
    zero += has_zero;
  });
  // Both forms were met (the check above saw each): narrow cells and wide ones.
  CHECK(bare > 0);
  CHECK(zero > 0);
}

TEST_CASE("matrix cells: every number fits its cell with two significant digits wherever two fit, a fraction one way in each matrix") {
  // A matrix was written in one format for all its cells, the longest that fit every one: where
  // 0.675 needed "0.68", its column read "1  4  2  .7" for m = 1.16, 4.14, 1.66, 0.675.
  Headless h;
  written::Tally tally;
  every_matrix_lesson(h, [&](const MatrixViewOptions::Drawn& d) { written::check(d.cell_numbers, tally); });
  CHECK(tally.two_fit > 0);
  CHECK(tally.mixed > 0);  // matrices whose cells took different digits were met
}

TEST_CASE("matrix view at a larger font in a 1280 × 800 window: the lessons show their step's numbers, in the cells or the close-up") {
  // The toolbar grew with the font onto a third line and the backward lessons' close-up no
  // longer fitted at font 1.25×: their steps showed matrices of coloured cells and no number (and
  // at font 2× the toolbar took the whole view). It now takes at most a twenty-fourth of the
  // view's height a line, as the legend does. At 1.5× and 1.75× the forward lessons lost their
  // close-up too: the toolbar's padding, the spaces among the matrices and the close-up's own
  // stayed at the font's size when its text went down to font 1×. They now go down with it.
  // The backward lessons (a dozen matrices across a view 512 pixels wide need a close-up of
  // several lines) and the Measure lesson (N = 64, a 16-column tile) need the width of the side
  // panels from 1.5× (README): with them open the view says to double-click a tile for numbers.
  Headless h;
  ImGuiIO& io = ImGui::GetIO();
  io.DisplaySize = ImVec2(1280, 800);
  const std::vector<std::string> wider = {"attn-backward", "attn-flash-backward", "measure"};
  for (float font : {1.25f, 1.5f, 1.75f}) {
    CAPTURE(font);
    for (const Lesson& l : lessons()) {
      if (info(l.scenario.algorithm).view != ViewKind::matrix) continue;
      const bool hide_panels = font > 1.25f && std::find(wider.begin(), wider.end(), l.id) != wider.end();
      CAPTURE(l.id);
      CAPTURE(hide_panels);
      AppState app;
      open_at(app, l.id.c_str(), Tab::lesson, false, font);
      if (hide_panels)
        app.panels.lessons = app.panels.inputs = app.panels.explanation = app.panels.pseudocode = false;
      h.at_steps(app, 6, 3, [&] {
        const MatrixViewOptions::Drawn& d = app.views.get<MatrixViewOptions>().drawn;
        CHECK_FALSE(d.matrices.empty());
        if (d.numbers_hidden) CHECK(d.close_up.shown);
      });
    }
  }
  restore_window();
}

TEST_CASE("close-up: every backward step shows dO beside O, the upstream gradient its step reads (D = rowsum(dO ∘ O) and every tile)") {
  // dO is an input (no step writes it), but the backward reads it with O at every step that
  // works on query rows: a close-up of O alone told half of D = rowsum(dO ∘ O).
  for (const char* id : {"attn-backward", "attn-flash-backward"}) {
    CAPTURE(id);
    AppState app;
    app.background_allowed = false;
    REQUIRE(app.open_lesson(id));
    const Recording& rec = *app.played.rec;
    const int dO = rec.find_buffer("dO"), O = rec.find_buffer("O");
    REQUIRE(dO >= 0);
    REQUIRE(O >= 0);
    int reading = 0;
    for (int k = 0; k < rec.step_count(); ++k) {
      const Step& st = rec.steps[static_cast<std::size_t>(k)];
      const bool reads_dO =
          std::any_of(st.reads.begin(), st.reads.end(), [&](const Region& g) { return g.buffer == dO; });
      const CloseUp cu = close_up(rec, &st);
      if (!reads_dO || !cu.shown || cu.r1 <= cu.r0) continue;  // a K/V block's own step shows key rows
      if (std::none_of(cu.items.begin(), cu.items.end(), [](const CloseUpItem& it) { return !it.key_rows; }))
        continue;
      CAPTURE(k);
      ++reading;
      auto shows = [&](int b) {
        return std::any_of(cu.items.begin(), cu.items.end(), [&](const CloseUpItem& it) { return it.buffer == b; });
      };
      CHECK(shows(dO));
      CHECK(shows(O));
      // Q, K and V stay out: the view shows them over and left of the tile.
      for (const char* input : {"Q", "K", "V"}) CHECK_FALSE(shows(rec.find_buffer(input)));
    }
    CHECK(reading > 0);
  }
}

TEST_CASE("close-up: a tile question asked under the view at 1280×800 leaves the matrices cells their tile grid reads in, the close-up paging") {
  // Ask me first's strip under the view left FlashAttention-2's matrices cells of 3.8 px (9.5
  // without it) beside a close-up of every row of the step, while the question asks which tile
  // comes next. The question may take the view's height, not the grid: the cells stay at
  // kMinGridFloorPx or more, or as large as without the question where they were smaller; only
  // where not even cells of 2 px fit beside one page of the close-up (the FlashAttention-2
  // backward's five lines for a row, in the 212 px the question leaves) do the matrices keep
  // just their titles, with cells under 2 px.
  Headless h;
  ImGui::GetIO().DisplaySize = ImVec2(1280, 800);
  int asked = 0;
  for (const Lesson& l : lessons()) {
    AppState app;
    app.background_allowed = false;
    REQUIRE(app.open_lesson(l.id));
    if (app.tab != Tab::lesson || info(app.played.rec->algorithm).view != ViewKind::matrix || app.played.rec->Br <= 0)
      continue;
    Quiz found;
    REQUIRE(quiz_load(found, app.played.rec));
    int step = -1;  // the first tile question's
    for (const Question& qu : found.questions)
      if (qu.kind == QuestionKind::tile && step < 0) step = qu.step;
    if (step < 0) continue;
    CAPTURE(l.id);
    ++asked;
    // Q's cells at the step before the question's, with no question and then with it asked, as
    // the window asks it.
    auto q_cell = [&] {
      for (int f = 0; f < 3; ++f) h.frame(app);
      for (const auto& [buffer, rect] : app.views.get<MatrixViewOptions>().drawn.matrices) {
        const BufferInfo& b = app.played.rec->buffers[static_cast<std::size_t>(buffer)];
        if (b.name == "Q") return rect.h / static_cast<float>(b.rows);
      }
      return 0.0f;
    };
    app.seek_active(step - 1);
    const float free = q_cell();
    Quiz& q = app.quiz;
    q.on = true;
    REQUIRE(quiz_load(q, app.played.rec));
    q.seen = step - 1;
    app.seek_active(quiz_hold(q, step - 1, step, false));
    const float with_question = q_cell();
    REQUIRE(quiz_question_at(q, step) != nullptr);
    CAPTURE(free);
    CAPTURE(with_question);
    CHECK(free > 0);
    const bool titles_only = with_question < 2.0f;
    CHECK((titles_only || with_question >= std::min(kMinGridFloorPx, free) - 0.01f));
    if (titles_only) CHECK(l.id == std::string("attn-flash-backward"));  // the one lesson so tight, for now
    const MatrixViewOptions::Drawn& d = app.views.get<MatrixViewOptions>().drawn;
    REQUIRE(d.numbers_hidden);  // the close-up holds the step's numbers, at their size
    CHECK(d.close_up.shown);
    CHECK(d.close_up_px >= kMinCellTextPx);
  }
  CHECK(asked >= 3);  // FlashAttention-1, -2 and the backward at least
}
