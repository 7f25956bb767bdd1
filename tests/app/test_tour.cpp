// The guided tour in the window, headless: N starts it and walks the stops, B goes back, Esc
// leaves; the stop's target is found where the views drew it (the frame's HitMap) on the vector,
// chunked and matrix views; a stop whose event does not happen is skipped and said so; a tour
// file replaces the lesson's tour, and a bad one is refused in the status line.
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "tests/app/headless.h"
#include "tests/sample.h"
#include "tests/temp_dir.h"
#include "app/ui/model/app_state.h"
#include "app/ui/model/tour_state.h"
#include "app/ui/panels/panels.h"
#include "app/ui/style.h"
#include "app/ui/views/hit_map.h"
#include "core/lessons.h"

#include <doctest/doctest.h>
#include <imgui_internal.h>

#include <algorithm>
#include <cfloat>
#include <fstream>
#include <vector>

using namespace flashstep;
using namespace flashstep::ui;

namespace {

void open(Headless& h, AppState& app, const char* lesson) {
  REQUIRE(app.open_lesson(lesson));
  app.tab = Tab::lesson;
  app.tab_changed = true;
  h.frame(app);
}

std::string write(const TempDir& dir, const std::string& name, const std::string& text) {
  const std::string path = dir.file(name);
  std::ofstream(path) << text;
  return path;
}

}  // namespace

TEST_CASE("tour: N starts the tour and walks its stops, B goes back, Esc leaves") {
  Headless h;
  AppState app;
  app.background_allowed = false;
  open(h, app, "online");
  const Tour& tour = find_lesson("online")->tour;
  const std::vector<int> steps = tour_stop_steps(*app.played.rec, tour);
  CHECK_FALSE(app.tour.on);
  h.press(app, GLFW_KEY_N);
  REQUIRE(app.tour.on);
  CHECK(app.tour.stop == 0);
  CHECK(app.timeline.playhead() == steps[0]);
  CHECK(Headless::drawn("##tour"));
  h.press(app, GLFW_KEY_N);
  CHECK(app.tour.stop == 1);
  CHECK(app.timeline.playhead() == steps[1]);
  h.press(app, GLFW_KEY_B);
  CHECK(app.tour.stop == 0);
  CHECK(app.timeline.playhead() == steps[0]);
  // At the last stop N stays there, and the takeaway is shown.
  for (std::size_t k = 0; k < tour.stops.size() + 2; ++k) h.press(app, GLFW_KEY_N);
  CHECK(app.tour.stop == static_cast<int>(tour.stops.size()) - 1);
  CHECK(tour_view(app).takeaway == tour.takeaway);
  h.press(app, GLFW_KEY_ESCAPE);
  CHECK_FALSE(app.tour.on);
  h.frame(app);
  CHECK_FALSE(Headless::drawn("##tour"));
}

TEST_CASE("tour: in presentation mode N starts the tour, its panel and outline are drawn, Esc leaves the tour first") {
  Headless h;
  AppState app;
  app.background_allowed = false;
  open(h, app, "attn-tiled-v2");
  h.press(app, GLFW_KEY_P);
  REQUIRE(app.presenting);
  h.press(app, GLFW_KEY_N);
  REQUIRE(app.tour.on);
  CHECK(Headless::drawn("##tour"));
  const Tour& tour = shown_tour(app);
  const int step = tour_steps(app)[0];
  CHECK(!tour_target_rects(app, tour.stops[0], step).empty());
  h.press(app, GLFW_KEY_ESCAPE);
  CHECK_FALSE(app.tour.on);
  CHECK(app.presenting);
  h.press(app, GLFW_KEY_ESCAPE);
  CHECK_FALSE(app.presenting);
}

TEST_CASE("tour: the stop's target is found where the vector, chunked and matrix views drew it") {
  Headless h;
  AppState app;
  app.background_allowed = false;
  for (const char* id : {"online", "chunked", "attn-tiled-v2"}) {
    CAPTURE(id);
    open(h, app, id);
    set_tour(app, true);
    const Tour& tour = shown_tour(app);
    const std::vector<int>& steps = tour_steps(app);
    for (int s = 0; s < static_cast<int>(tour.stops.size()); ++s) {
      CAPTURE(s);
      REQUIRE(go_to_tour_stop(app, s));
      h.frame(app);
      h.frame(app);
      const TourStop& stop = tour.stops[static_cast<std::size_t>(s)];
      REQUIRE(tour_view(app).at_stop);
      const std::vector<Rect> boxes = tour_target_rects(app, stop, steps[static_cast<std::size_t>(s)]);
      REQUIRE(!boxes.empty());
      const Rect* box = &boxes.front();
      CHECK(box->w > 0);
      CHECK(box->h > 0);
      // A buffer target: the outline holds the target's cells (and the matrix's name where it
      // starts at the first one), and the cell under their first is the target's.
      if (stop.point.kind == TourTarget::Kind::buffer) {
        const TargetCells c = target_cells(*app.played.rec, stop.point, steps[static_cast<std::size_t>(s)], stop.at);
        const auto cells = app.hits.rect_of_region(c.buffer, c.r0, c.r1, c.c0, c.c1);
        REQUIRE(cells);
        CHECK(cells->x >= box->x);
        CHECK(cells->y >= box->y);
        CHECK(cells->x + cells->w <= box->x + box->w);
        CHECK(cells->y + cells->h <= box->y + box->h);
        const auto hit = app.hits.at(cells->x + 1, cells->y + 1);
        REQUIRE(hit);
        CHECK(hit->buffer == c.buffer);
        CHECK(hit->row >= c.r0);
        CHECK(hit->row < c.r1);
        CHECK(hit->col >= c.c0);
        CHECK(hit->col < c.c1);
      }
    }
    set_tour(app, false);
  }
}

TEST_CASE("tour: a stop whose event does not happen is skipped, and the tour says so") {
  Headless h;
  AppState app;
  app.background_allowed = false;
  TempDir dir("tour");
  open(h, app, "online");
  // [3, 2, 5, 1] in fp32 overflows nowhere: stop 2 cannot happen.
  const std::string path = write(dir, "lecture.json", R"j({"lesson": "online", "takeaway": "One line.", "stops": [
      {"at": "first step", "point": {"register": "m"}, "text": "m = {m}."},
      {"at": "first overflow", "point": {"buffer": "e"}, "text": "Overflow."},
      {"at": "last step", "point": {"buffer": "y", "cells": "all"}, "text": "Done."}]})j");
  REQUIRE(open_tour_file(app, path));
  CHECK(app.tour.on);
  CHECK(tour_view(app).source == "tour file lecture.json");
  h.press(app, GLFW_KEY_N);
  CHECK(app.tour.stop == 2);
  CHECK(app.timeline.playhead() == app.timeline.count() - 1);
  const TourView v = tour_view(app);
  REQUIRE(v.notes.size() == 1);
  CHECK(v.notes[0] == "stop 2 (the first overflow) does not happen with these inputs");
  // Back to the lesson's own tour.
  drop_tour_file(app);
  CHECK(&shown_tour(app) == &find_lesson("online")->tour);
}

TEST_CASE("tour: a bad tour file is refused in the status line and the lesson's tour stays") {
  Headless h;
  AppState app;
  app.background_allowed = false;
  TempDir dir("tour");
  open(h, app, "online");
  const std::string path = write(dir, "bad.json", R"j({"lesson": "online", "takeaway": "x", "stops": [
      {"at": "first step", "point": {"register": "m"}, "text": "t"},
      {"at": "pass 9 begins", "point": {"register": "m"}, "text": "t"}]})j");
  CHECK_FALSE(open_tour_file(app, path));
  CHECK(app.status_line().text == "bad.json: tour.stops[1].at = \"pass 9 begins\": this lesson has 2 passes");
  CHECK_FALSE(app.tour.file);
  CHECK(app.current_lesson().id == "online");
  const std::string other = write(dir, "other.json", R"j({"lesson": "attn-naive", "takeaway": "x", "stops": [
      {"at": "first step", "point": {"buffer": "x"}, "text": "t"}]})j");
  CHECK_FALSE(open_tour_file(app, other));
  CHECK(app.status_line().text == "other.json: tour.stops[0].point.buffer = \"x\": this lesson's recording has no such buffer");
  CHECK(app.current_lesson().id == "online");
}

namespace {

bool intersect(const Rect& a, const Rect& b) {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

// Where an ImGui window was drawn in the last frame.
Rect window_rect(const char* name) {
  const ImGuiWindow* w = ImGui::FindWindowByName(name);
  REQUIRE(w);
  REQUIRE(w->Active);
  return Rect{w->Pos.x, w->Pos.y, w->Size.x, w->Size.y, true};
}

// A letter drawn in the last frame: its quad, as the font's atlas gives it, and the part of it
// its draw command's clip (its window) shows.
struct Letter {
  ImVec2 p0, p1, uv0;
  Rect seen;
};

// The letters of the last frame: of the tour outline's window (where it draws its outline and
// what it draws over it), or of every other list but the tour's own panel; the font's quads,
// told from the white pixel and the baked lines by their UVs.
std::vector<Letter> letters_drawn(bool foreground) {
  std::vector<Letter> out;
  const ImGuiIO& io = ImGui::GetIO();
  const ImVec2 white = io.Fonts->TexUvWhitePixel;
  ImVec4 lines(1, 1, 0, 0);  // the baked lines' UVs, as a box
  for (const ImVec4& l : io.Fonts->TexUvLines)
    lines = ImVec4(std::min({lines.x, l.x, l.z}), std::min({lines.y, l.y, l.w}), std::max({lines.z, l.x, l.z}),
                   std::max({lines.w, l.y, l.w}));
  auto letter = [&](const ImVec2& uv) {
    const bool on_line = uv.x >= lines.x && uv.x <= lines.z && uv.y >= lines.y && uv.y <= lines.w;
    return !(uv.x == white.x && uv.y == white.y) && !on_line;
  };
  const ImGuiWindow* tour = ImGui::FindWindowByName("##tour");
  const ImGuiWindow* outline = ImGui::FindWindowByName("##tour-outline");
  const ImDrawData* d = ImGui::GetDrawData();
  for (int i = 0; d && i < d->CmdListsCount; ++i) {
    const ImDrawList* dl = d->CmdLists[i];
    if ((outline && dl == outline->DrawList) != foreground || (tour && dl == tour->DrawList)) continue;
    for (const ImDrawCmd& cmd : dl->CmdBuffer) {
      if (cmd.UserCallback || cmd.TextureId != io.Fonts->TexID || cmd.ElemCount == 0) continue;
      unsigned lo = ~0u, hi = 0;
      for (unsigned k = 0; k < cmd.ElemCount; ++k) {
        const unsigned v = cmd.VtxOffset + dl->IdxBuffer[static_cast<int>(cmd.IdxOffset + k)];
        lo = std::min(lo, v), hi = std::max(hi, v);
      }
      for (unsigned v = lo; v + 3 <= hi; ++v) {
        const ImDrawVert* q = &dl->VtxBuffer[static_cast<int>(v)];
        if (!letter(q[0].uv) || !letter(q[1].uv) || !letter(q[2].uv) || !letter(q[3].uv)) continue;
        // A glyph: (x0, y0), (x1, y0), (x1, y1), (x0, y1).
        if (q[0].pos.y != q[1].pos.y || q[1].pos.x != q[2].pos.x || q[2].pos.y != q[3].pos.y) continue;
        const float x0 = std::max(q[0].pos.x, cmd.ClipRect.x), y0 = std::max(q[0].pos.y, cmd.ClipRect.y);
        const float x1 = std::min(q[2].pos.x, cmd.ClipRect.z), y1 = std::min(q[2].pos.y, cmd.ClipRect.w);
        if (x1 > x0 && y1 > y0) out.push_back({q[0].pos, q[2].pos, q[0].uv, Rect{x0, y0, x1 - x0, y1 - y0, true}});
        v += 3;
      }
    }
  }
  return out;
}

Rect grown(const Rect& r, float by) { return Rect{r.x - by, r.y - by, r.w + 2 * by, r.h + 2 * by, true}; }

float area_in(const Rect& a, const Rect& b) {
  const float w = std::min(a.x + a.w, b.x + b.w) - std::max(a.x, b.x);
  const float h = std::min(a.y + a.h, b.y + b.h) - std::max(a.y, b.y);
  return w > 0 && h > 0 ? w * h : 0.0f;
}

// Every stop of every lesson's tour, in the 1280 × 800 window and presenting at 1920 × 1080 in
// the projector theme, at each of `fonts`: `at(app, stop, step)` after three frames at each
// stop that happens. Sample (tests/sample.h): every lesson in one of the modes (window or
// presenting, at one of the fonts), turning with the lesson.
template <class At>
void at_every_stop(Headless& h, At at, std::vector<float> fonts = {1.0f}) {
  ImGuiIO& io = ImGui::GetIO();
  std::size_t k = 0;
  for (const Lesson& l : lessons()) {
    if (l.tour.empty()) continue;
    const std::size_t lesson = k++;
    for (std::size_t mode = 0; mode < 2 * fonts.size(); ++mode) {
      if (!sample::keeps(lesson, mode, 2 * fonts.size())) continue;
      const bool presenting = mode % 2 == 1;
      const float font = fonts[mode / 2];
      CAPTURE(l.id);
      CAPTURE(presenting);
      CAPTURE(font);
      io.DisplaySize = presenting ? ImVec2(1920, 1080) : ImVec2(1280, 800);
      AppState app;
      app.background_allowed = false;
      open(h, app, l.id.c_str());
      app.presenting = presenting;
      app.set_font_scale(font);
      use_scale(app, (presenting ? 1.5f : 1.0f) * font, presenting ? Theme::projector : Theme::dark);
      set_tour(app, true);
      const Tour& tour = shown_tour(app);
      const std::vector<int>& steps = tour_steps(app);
      for (int s = 0; s < static_cast<int>(tour.stops.size()); ++s) {
        CAPTURE(s);
        if (!go_to_tour_stop(app, s)) continue;  // a stop whose event does not happen
        for (int f = 0; f < 3; ++f) h.frame(app);
        REQUIRE(tour_view(app).at_stop);
        at(app, tour.stops[static_cast<std::size_t>(s)], steps[static_cast<std::size_t>(s)]);
      }
    }
  }
  restore_window();
}

bool same(const Letter& a, const Letter& b) {
  return a.p0.x == b.p0.x && a.p0.y == b.p0.y && a.p1.x == b.p1.x && a.p1.y == b.p1.y && a.uv0.x == b.uv0.x &&
         a.uv0.y == b.uv0.y;
}

}  // namespace

TEST_CASE("tour: at every stop of every lesson each letter the outline lies over (a matrix's name, a number, a line beside the target) is drawn again over it, at 1280×800 and presenting at 1920×1080") {
  Headless h;
  int crossed = 0;
  at_every_stop(h, [&](const AppState& app, const TourStop& stop, int step) {
    const std::vector<Letter> letters = letters_drawn(false), over = letters_drawn(true);
    REQUIRE(letters.size() > 50);  // the screen's words were found
    // What lies between pad − halo/2 and pad + halo/2 out from the target is under the
    // outline; a letter whose box that band crosses must be drawn again over it.
    const float sc = app.ui_scale;
    const float in = std::max(kTourOutline.pad - kTourOutline.halo * 0.5f, 0.0f) * sc, out = kTourOutline.reach() * sc;
    for (const Rect& t : tour_target_rects(app, stop, step))
      for (const Letter& g : letters) {
        const Rect& b = g.seen;
        if (area_in(b, grown(t, out)) - area_in(b, grown(t, in)) <= 0) continue;
        ++crossed;
        CAPTURE(t.x);
        CAPTURE(t.y);
        CAPTURE(t.w);
        CAPTURE(t.h);
        CAPTURE(b.x);
        CAPTURE(b.y);
        CHECK_MESSAGE(std::any_of(over.begin(), over.end(), [&](const Letter& o) { return same(o, g); }),
                      "a letter under the outline");
      }
    // And nothing over it that the panels do not show where it stands.
    for (const Letter& o : over) {
      CAPTURE(o.p0.x);
      CAPTURE(o.p0.y);
      CHECK_MESSAGE(std::any_of(letters.begin(), letters.end(), [&](const Letter& g) { return same(o, g); }),
                    "a letter over the outline that no panel shows");
    }
  });
  CHECK(crossed > 0);  // the case arises: names and numbers beside targets
}

TEST_CASE("tour: a tooltip lies over the outline, and the letters under it stay hidden, as the panels' are") {
  Headless h;
  AppState app;
  open(h, app, "naive");
  set_tour(app, true);
  REQUIRE(go_to_tour_stop(app, 1));  // the pseudocode's first loop, outlined
  h.frame(app);
  const auto view = app.hits.find("View", HitKind::panel);
  REQUIRE(view);
  int crossing = 0;  // tooltips that lay over a letter drawn again over the outline
  ImGuiIO& io = ImGui::GetIO();
  for (float y = view->rect.y; y < view->rect.y + view->rect.h; y += 23)
    for (float x = view->rect.x; x < view->rect.x + view->rect.w; x += 37) {
      io.MousePos = ImVec2(x, y);
      h.frame(app);
      h.frame(app);
      std::vector<Rect> tips;
      for (const ImGuiWindow* w : ImGui::GetCurrentContext()->Windows)
        if (w->Active && (w->Flags & ImGuiWindowFlags_Tooltip)) tips.push_back(Rect{w->Pos.x, w->Pos.y, w->Size.x, w->Size.y, true});
      for (const Letter& o : letters_drawn(true))
        for (const Rect& t : tips) {
          CAPTURE(x);
          CAPTURE(y);
          CHECK_FALSE(intersect(o.seen, t));
        }
      const auto outline = tour_target_rects(app, find_lesson("naive")->tour.stops[1], app.timeline.playhead());
      for (const Rect& t : tips)
        for (const Rect& r : outline) crossing += intersect(t, grown(r, kTourOutline.reach()));
      // And the tooltip is drawn over the outline, not under it.
      const ImDrawData* d = ImGui::GetDrawData();
      int outline_at = -1, tip_at = -1;
      for (int i = 0; i < d->CmdListsCount; ++i) {
        if (d->CmdLists[i] == ImGui::FindWindowByName("##tour-outline")->DrawList) outline_at = i;
        for (const ImGuiWindow* w : ImGui::GetCurrentContext()->Windows)
          if (w->Active && (w->Flags & ImGuiWindowFlags_Tooltip) && d->CmdLists[i] == w->DrawList) tip_at = i;
      }
      CHECK(outline_at >= 0);
      if (tip_at >= 0) CHECK(tip_at > outline_at);
    }
  io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
  CHECK(crossing > 0);  // some tooltip did lie over the outline
}

TEST_CASE("tour: the tour's box holds its lines at every stop, at fonts 1× and 2×: nothing runs past its right edge") {
  Headless h;
  at_every_stop(
      h,
      [&](const AppState&, const TourStop&, int) {
        const ImGuiWindow* w = ImGui::FindWindowByName("##tour");
        REQUIRE(w);
        CAPTURE(w->Size.x);
        CAPTURE(w->ContentSize.x);
        CHECK(w->ContentSize.x <= w->Size.x - 2 * w->WindowPadding.x + 0.5f);
      },
      {1.0f, 2.0f});
}

TEST_CASE("tour: at every stop of every lesson the tour's box covers neither the outlined target, nor what the step points at, nor anything else the views drew, at 1280×800 and presenting at 1920×1080") {
  Headless h;
  at_every_stop(h, [&](const AppState& app, const TourStop& stop, int step) {
    const Rect box = window_rect("##tour");
    CAPTURE(box.x);
    CAPTURE(box.y);
    const float halo = kTourOutline.reach() * app.ui_scale;
    for (Rect t : tour_target_rects(app, stop, step)) {
      t = Rect{t.x - halo, t.y - halo, t.w + 2 * halo, t.h + 2 * halo, true};
      CHECK_FALSE(intersect(box, t));
    }
    for (const Rect& r : app.hits.step_rects(app.played.rec->steps[static_cast<std::size_t>(step)])) {
      CAPTURE(r.x);
      CAPTURE(r.y);
      CHECK_FALSE(intersect(box, r));
    }
    // Nor anything else the views drew (a cell, a node, a register, a memory tile, a line): the
    // explanation panel's place is always there to take.
    int under = 0;
    for (float y = box.y; y < box.y + box.h; y += 3)
      for (float x = box.x; x < box.x + box.w; x += 3) under += app.hits.at(x, y).has_value();
    CHECK(under == 0);
  });
}
