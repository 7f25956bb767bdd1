// The matrix view's close-up of the step's numbers: every query row of the step's tile can be
// read, a page of rows at a time ([ and ]).
#include "tests/app/headless.h"

#include "app/ui/panels/panels.h"
#include "app/ui/views/view_matrix.h"
#include "app/ui/widgets.h"
#include "core/algorithms.h"
#include "core/lessons.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <string>

using namespace flashstep;
using namespace flashstep::ui;

TEST_CASE("close-up: ] and [ page through every query row of the step's tile, at 11 px or more, at 1280×800") {
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

TEST_CASE("close-up: ] and [ are in the keyboard shortcuts' list") {
  bool listed = false;
  for (const Shortcut& k : shortcuts()) listed |= std::string(k.keys).find(']') != std::string::npos;
  CHECK(listed);
}
