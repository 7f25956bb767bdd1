// The HitMap: what the views drew where. A map built by hand (cells computed from a rectangle,
// transposed or not), then the real views drawn in headless frames: for the vector, chunked
// and matrix views, rect_of() of a cell and at() of that rectangle's centre name the same cell.
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "tests/app/headless.h"
#include "app/ui/model/app_state.h"
#include "app/ui/views/hit_map.h"
#include "core/lessons.h"

#include <doctest/doctest.h>

using namespace flashstep;
using namespace flashstep::ui;

namespace {

// at() of the centre of rect_of(buffer, r, c) names that cell.
void check_round_trip(const HitMap& hits, int buffer, int r, int c) {
  CAPTURE(buffer);
  CAPTURE(r);
  CAPTURE(c);
  const std::optional<Rect> box = hits.rect_of(buffer, r, c);
  REQUIRE(box);
  CHECK(box->w > 0);
  CHECK(box->h > 0);
  const std::optional<Hit> hit = hits.at(box->x + box->w * 0.5f, box->y + box->h * 0.5f);
  REQUIRE(hit);
  CHECK(hit->buffer == buffer);
  CHECK(hit->row == r);
  CHECK(hit->col == c);
}

void open_at_middle(Headless& h, AppState& app, const char* lesson) {
  REQUIRE(app.open_lesson(lesson));
  app.tab = Tab::lesson;
  app.tab_changed = true;
  app.seek(app.timeline.count() / 2);
  h.frame(app);
  h.frame(app);
}

}  // namespace

TEST_CASE("hit map: heatmap cells are computed from the rectangle, transposed or not") {
  HitMap hits;
  // Buffer 3 drawn as 2 display rows × 4 display columns at (100, 50), 40 × 20 px: cells of
  // 10 × 10. Transposed: display (r, c) is buffer (c, r), so buffer cell (2, 1) is display
  // (1, 2), at x = 100 + 2·10, y = 50 + 1·10.
  hits.add_heatmap(3, true, 2, 4, Rect{100, 50, 40, 20, true});
  const auto box = hits.rect_of(3, 2, 1);
  REQUIRE(box);
  CHECK(box->x == doctest::Approx(120));
  CHECK(box->y == doctest::Approx(60));
  CHECK(box->w == doctest::Approx(10));
  CHECK(box->h == doctest::Approx(10));
  CHECK_FALSE(hits.rect_of(3, 1, 2));  // display (2, 1): past the 2 display rows
  CHECK_FALSE(hits.rect_of(4, 0, 0));  // another buffer
  // A 2 × 2 region (buffer rows 0–1, columns 0–1) is display rows 0–1, columns 0–1.
  const auto tile = hits.rect_of_region(3, 0, 2, 0, 2);
  REQUIRE(tile);
  CHECK(tile->x == doctest::Approx(100));
  CHECK(tile->w == doctest::Approx(20));
  CHECK(tile->h == doctest::Approx(20));
  const auto hit = hits.at(131, 51);  // display (0, 3) → buffer (3, 0)
  REQUIRE(hit);
  CHECK(hit->buffer == 3);
  CHECK(hit->row == 3);
  CHECK(hit->col == 0);
  CHECK_FALSE(hits.at(99, 51));

  // Part of a buffer (the close-up's rows 4–5, columns 8–10), drawn on top: found first by at().
  hits.add_heatmap(3, false, 2, 3, Rect{110, 50, 30, 20, true}, 4, 8);
  const auto top = hits.at(131, 61);  // its display (1, 2) → buffer (5, 10)
  REQUIRE(top);
  CHECK(top->row == 5);
  CHECK(top->col == 10);
  const auto part = hits.rect_of(3, 4, 9);
  REQUIRE(part);
  CHECK(part->x == doctest::Approx(120));
  CHECK(part->y == doctest::Approx(50));

  // A region shown twice (a matrix and its close-up): a box on each, in the order drawn.
  HitMap two;
  two.add_heatmap(1, false, 4, 4, Rect{0, 0, 40, 40, true});
  two.add_heatmap(1, false, 2, 2, Rect{100, 0, 20, 20, true}, 2, 0);  // rows 2–3, columns 0–1
  const std::vector<Rect> both = two.rects_of_region(1, 2, 3, 0, 2);  // row 2, columns 0–1
  REQUIRE(both.size() == 2);
  CHECK(both[0].x == doctest::Approx(0));
  CHECK(both[0].y == doctest::Approx(20));
  CHECK(both[0].w == doctest::Approx(20));
  CHECK(both[1].x == doctest::Approx(100));
  CHECK(both[1].y == doctest::Approx(0));
  CHECK(both[1].h == doctest::Approx(10));
}

TEST_CASE("hit map: a region that starts at a matrix's first cell is joined with its name when asked (titled), and only then") {
  HitMap hits;
  // A 4 × 1 column at (200, 100), cells of 10 × 10, its name "L" 12 px tall 3 px above it.
  hits.add_heatmap(5, false, 4, 1, Rect{200, 100, 10, 40, true}, 0, 0, Rect{200, 85, 8, 12, true});
  const std::vector<Rect> plain = hits.rects_of_region(5, 0, 2, 0, 1);
  REQUIRE(plain.size() == 1);
  CHECK(plain[0].y == doctest::Approx(100));
  const std::vector<Rect> named = hits.rects_of_region(5, 0, 2, 0, 1, true);
  REQUIRE(named.size() == 1);
  CHECK(named[0].x == doctest::Approx(200));
  CHECK(named[0].y == doctest::Approx(85));
  CHECK(named[0].w == doctest::Approx(10));
  CHECK(named[0].h == doctest::Approx(35));  // from the name's top to row 2's bottom
  // Rows 2–3 do not start where the name stands: the cells alone.
  const std::vector<Rect> lower = hits.rects_of_region(5, 2, 4, 0, 1, true);
  REQUIRE(lower.size() == 1);
  CHECK(lower[0].y == doctest::Approx(120));
  // A name wider than the column widens the box to take it in.
  HitMap wide;
  wide.add_heatmap(6, false, 2, 2, Rect{0, 20, 20, 20, true}, 0, 0, Rect{0, 5, 35, 12, true});
  const std::vector<Rect> w = wide.rects_of_region(6, 0, 1, 0, 1, true);
  REQUIRE(w.size() == 1);
  CHECK(w[0].w == doctest::Approx(35));
  CHECK(w[0].h == doctest::Approx(25));
}

TEST_CASE("hit map: strips, registers, nodes, memory boxes and lines by name") {
  HitMap hits;
  // A strip whose second column stands for elements 4–7 of row 2.
  hits.add_strip(HitKind::bar, 1, 2, 0, 4, Rect{0, 0, 8, 30, true});
  hits.add_strip(HitKind::bar, 1, 2, 4, 8, Rect{8, 0, 8, 30, true});
  hits.add_register(5, 2, "m", Rect{0, 40, 50, 20, true});
  hits.add_node({6, 7}, 0, 3, "merge 1", Rect{100, 100, 40, 30, true});
  hits.add_memory("SRAM", Rect{200, 0, 100, 100, true});
  hits.add_code_line(4, "m = max(m, x)", Rect{0, 200, 300, 16, true});
  hits.add_panel("Pseudocode", Rect{0, 190, 320, 100, true});

  const auto e6 = hits.rect_of(1, 2, 6);
  REQUIRE(e6);
  CHECK(e6->x == doctest::Approx(8));
  const auto row = hits.rect_of_region(1, 2, 3, 0, 8);  // the whole row: both columns
  REQUIRE(row);
  CHECK(row->x == doctest::Approx(0));
  CHECK(row->w == doctest::Approx(16));
  CHECK_FALSE(hits.rect_of(1, 3, 0));  // row 3 was not drawn
  // 14 of 16 px: the last quarter of the column that stands for 4–7 → element 7.
  const auto under = hits.at(14, 10);
  REQUIRE(under);
  CHECK(under->kind == HitKind::bar);
  CHECK(under->col == 7);

  const auto m = hits.find("m");
  REQUIRE(m);
  CHECK(m->kind == HitKind::reg);
  CHECK(m->buffer == 5);
  CHECK(m->row == 2);
  const auto l_node = hits.rect_of(7, 0, 3);  // the node shows l_tree (7) at column 3 too
  REQUIRE(l_node);
  CHECK(l_node->x == doctest::Approx(100));
  CHECK(hits.find("SRAM", HitKind::memory));
  const auto node = hits.at(120, 110);  // a node names the first of its buffers
  REQUIRE(node);
  CHECK(node->buffer == 6);
  CHECK(node->col == 3);
  CHECK_FALSE(hits.find("SRAM", HitKind::reg));
  CHECK_FALSE(hits.find("HBM"));
  REQUIRE(hits.code_line(4));
  CHECK(hits.code_line(4)->y == doctest::Approx(200));
  CHECK_FALSE(hits.code_line(5));
  // The panel is found by name; a point in it names the line drawn there, not the panel.
  CHECK(hits.find("Pseudocode", HitKind::panel));
  const auto line = hits.at(10, 205);
  REQUIRE(line);
  CHECK(line->kind == HitKind::code_line);
  CHECK(line->row == 4);
  CHECK_FALSE(hits.at(10, 250));
  hits.clear();
  CHECK(hits.empty());
  CHECK_FALSE(hits.find("m"));
}

TEST_CASE("hit map: the vector, chunked and matrix views report where they drew their cells") {
  Headless h;
  AppState app;
  app.background_allowed = false;

  SUBCASE("vector view (online softmax)") {
    open_at_middle(h, app, "online");
    const Recording& rec = *app.played.rec;
    const int x = rec.find_buffer("x"), m = rec.find_buffer("m");
    for (int c : {0, rec.n / 2, rec.n - 1}) check_round_trip(app.hits, x, 0, c);
    check_round_trip(app.hits, m, 0, 0);
    const auto reg = app.hits.find("m", HitKind::reg);
    REQUIRE(reg);
    CHECK(reg->buffer == m);
    // x's cells lie left to right on one line.
    const auto a = app.hits.rect_of(x, 0, 0), b = app.hits.rect_of(x, 0, 1);
    REQUIRE(a);
    REQUIRE(b);
    CHECK(b->x > a->x);
    CHECK(b->y == doctest::Approx(a->y));
    CHECK(app.hits.find("SRAM", HitKind::memory));
    CHECK(app.hits.code_line(1));
  }
  SUBCASE("chunked view") {
    open_at_middle(h, app, "chunked");
    const Recording& rec = *app.played.rec;
    const int x = rec.find_buffer("x"), mt = rec.find_buffer("m_tree"), lt = rec.find_buffer("l_tree");
    for (int c : {0, rec.n - 1}) check_round_trip(app.hits, x, 0, c);
    const auto w1 = app.hits.find("worker 1", HitKind::node);
    REQUIRE(w1);
    // A node shows m_tree and l_tree at its column: both point at the same box.
    const auto bm = app.hits.rect_of(mt, 0, 0), bl = app.hits.rect_of(lt, 0, 0);
    REQUIRE(bm);
    REQUIRE(bl);
    CHECK(bm->x == doctest::Approx(w1->rect.x));
    CHECK(bl->y == doctest::Approx(w1->rect.y));
  }
  SUBCASE("matrix view (FlashAttention-2)") {
    open_at_middle(h, app, "attn-tiled-v2");
    const Recording& rec = *app.played.rec;
    for (const char* name : {"Q", "S", "O"}) {
      CAPTURE(name);
      const int b = rec.find_buffer(name);
      REQUIRE(b >= 0);
      const BufferInfo& info = rec.buffers[static_cast<std::size_t>(b)];
      check_round_trip(app.hits, b, 0, 0);
      check_round_trip(app.hits, b, info.rows - 1, info.cols - 1);
      check_round_trip(app.hits, b, info.rows / 2, info.cols / 2);
    }
    // K is drawn transposed (Kᵀ): its rows run across the screen.
    const int k = rec.find_buffer("K");
    const auto k0 = app.hits.rect_of(k, 0, 0), k1 = app.hits.rect_of(k, 1, 0);
    REQUIRE(k0);
    REQUIRE(k1);
    CHECK(k1->x > k0->x);
    CHECK(k1->y == doctest::Approx(k0->y));
  }
}

TEST_CASE("memory panel: every title, label, size and arrow label stays inside its box or lane, and nothing runs past the panel's right edge, at fonts 1× to 2× in a 1280 × 800 window and presenting") {
  // At font 2× in a 1280 × 800 window the lane between the boxes kept 192 px while the chip's
  // title read "on chi" and its tiles' sizes "16 · loa"; "O₂⁽¹⁾ (not yet divided)" was wider than
  // the chip's box at any size. The boxes' text now gives way down to its font-1× size and a
  // label's remark goes where even that leaves no room. From font 1.25× the tile's budget
  // ("Kⱼ, Vⱼ: 2·Bc·d = …    Qᵢ, Oᵢ: …    Sᵢⱼ: Br·Bc = 16") ran past the panel's edge in one
  // line, and the counters' table beside the comparison did: the terms now flow onto the next
  // line and the two go one above the other.
  Headless h;
  int tiles = 0;
  for (const float font : {1.0f, 1.5f, 2.0f})
    for (const bool presenting : {false, true}) {
      if (presenting && font > 1.5f) continue;
      ImGui::GetIO().DisplaySize = presenting ? ImVec2(1920, 1080) : ImVec2(1280, 800);
      for (const Lesson& l : lessons()) {
        CAPTURE(font);
        CAPTURE(presenting);
        CAPTURE(l.id);
        AppState app;
        open_at(app, l.id.c_str(), Tab::lesson, presenting, font);
        if (!app.panels.memory) continue;
        h.at_steps(app, 3, 3, [&] {
          const ImGuiWindow* panel = ImGui::FindWindowByName("Memory: HBM and SRAM");
          REQUIRE(panel);
          CHECK(panel->ContentSize.x <= panel->ContentRegionRect.GetWidth() + 1.0f);
          const std::vector<HitMap::Labelled> boxes = app.hits.memory_boxes();
          const auto box = [&](const char* name) {
            const auto it = std::find_if(boxes.begin(), boxes.end(), [&](const auto& b) { return b.name == name; });
            REQUIRE(it != boxes.end());
            return *it;
          };
          const HitMap::Labelled hbm = box("HBM"), chip = box("SRAM");
          REQUIRE(hbm.labelled.shown);
          REQUIRE(chip.labelled.shown);
          const float eps = 0.5f;
          const auto inside = [&](const Rect& r, const Rect& in) { return r.x >= in.x - eps && r.x + r.w <= in.x + in.w + eps; };
          CHECK(inside(hbm.labelled, hbm.rect));   // the title with its (?)
          CHECK(inside(chip.labelled, chip.rect));
          for (const HitMap::Labelled& b : boxes) {
            if (b.name == "HBM" || b.name == "SRAM") continue;
            CAPTURE(b.name);
            REQUIRE(b.labelled.shown);
            CHECK((inside(b.labelled, hbm.rect) || inside(b.labelled, chip.rect)));
            ++tiles;
          }
          for (const char* move : {"load", "write"})
            if (const auto m = app.hits.find(move, HitKind::move)) {
              CAPTURE(move);
              CHECK(m->rect.x >= hbm.rect.x + hbm.rect.w);
              CHECK(m->rect.x + m->rect.w <= chip.rect.x);
            }
        });
      }
    }
  CHECK(tiles > 100);
  restore_window();
}

TEST_CASE("hit map: what a window's clip hides (a scrolled panel's rows under the panel below) is neither a step's rect nor under the mouse") {
  HitMap hits;
  // A panel showing y in [0, 100): a heatmap of 4 rows × 2 columns from y = 40 to 160 (rows of 30
  // px, the last two partly and wholly below the panel's edge), and a memory tile at 120.
  Rect clip{0, 0, 200, 100, true};
  hits.set_clip_source([&] { return clip; });
  hits.add_heatmap(3, false, 4, 2, Rect{0, 40, 20, 120, true});
  hits.add_memory("K₁", Rect{50, 120, 20, 20, true}, 3, 0, 4, 0, 2);
  clip = Rect{};  // a window without clip: all of it
  hits.add_register(4, 0, "m", Rect{100, 150, 10, 10, true});

  Step st;
  st.reads.push_back(Region{3, 0, 0, 4, 2});  // buffer, r0, c0, r1, c1
  st.reads.push_back(Region{4, 0, 0, 1, 1});
  const std::vector<Rect> rects = hits.step_rects(st);
  // The heatmap's region cut at y = 100 (rows 1 and 2 of 4, 60 px), the tile gone, the register whole.
  REQUIRE(rects.size() == 2);
  CHECK(rects[0].y == doctest::Approx(40));
  CHECK(rects[0].h == doctest::Approx(60));
  CHECK(rects[1].y == doctest::Approx(150));
  // Row 3 (y 100–130) is hidden: no rect for it, nothing under the mouse there.
  CHECK(hits.rects_of_region(3, 3, 4, 0, 2).empty());
  CHECK_FALSE(hits.at(5, 110));
  CHECK_FALSE(hits.at(55, 125));
  const auto seen = hits.at(5, 80);  // row 1, still in sight
  REQUIRE(seen);
  CHECK(seen->row == 1);
  CHECK(hits.at(105, 155));
}
