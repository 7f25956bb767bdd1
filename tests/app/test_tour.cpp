// The guided tour in the window, headless: N starts it and walks the stops, B goes back, Esc
// leaves; the stop's target is found where the views drew it (the frame's HitMap) on the vector,
// chunked and matrix views; a stop whose event does not happen is skipped and said so; a tour
// file replaces the lesson's tour, and a bad one is refused in the status line.
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "tests/app/headless.h"
#include "tests/temp_dir.h"
#include "app/ui/model/app_state.h"
#include "app/ui/model/tour_state.h"
#include "app/ui/panels/panels.h"
#include "app/ui/style.h"
#include "app/ui/views/hit_map.h"
#include "core/lessons.h"

#include <doctest/doctest.h>
#include <imgui_internal.h>

#include <fstream>

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
      // A buffer target: the cell under the box's first cell is the target's.
      if (stop.point.kind == TourTarget::Kind::buffer) {
        const TargetCells c = target_cells(*app.played.rec, stop.point, steps[static_cast<std::size_t>(s)], stop.at);
        const auto hit = app.hits.at(box->x + 1, box->y + 1);
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

}  // namespace

TEST_CASE("tour: at every stop of every lesson the tour's box covers neither the outlined target nor what the step points at, at 1280×800 and presenting at 1920×1080") {
  Headless h;
  ImGuiIO& io = ImGui::GetIO();
  for (const Lesson& l : lessons()) {
    if (l.tour.empty()) continue;
    for (bool presenting : {false, true}) {
      CAPTURE(l.id);
      CAPTURE(presenting);
      io.DisplaySize = presenting ? ImVec2(1920, 1080) : ImVec2(1280, 800);
      AppState app;
      app.background_allowed = false;
      open(h, app, l.id.c_str());
      app.presenting = presenting;
      use_scale(app, presenting ? 1.5f : 1.0f, presenting ? Theme::projector : Theme::dark);
      set_tour(app, true);
      const Tour& tour = shown_tour(app);
      const std::vector<int>& steps = tour_steps(app);
      for (int s = 0; s < static_cast<int>(tour.stops.size()); ++s) {
        CAPTURE(s);
        if (!go_to_tour_stop(app, s)) continue;  // a stop whose event does not happen
        for (int f = 0; f < 3; ++f) h.frame(app);
        REQUIRE(tour_view(app).at_stop);
        const int step = steps[static_cast<std::size_t>(s)];
        const Rect box = window_rect("##tour");
        CAPTURE(box.x);
        CAPTURE(box.y);
        // The outline is drawn 5 px (times the scale) around the target, 9 px wide.
        const float halo = 9.5f * app.ui_scale;
        for (Rect t : tour_target_rects(app, tour.stops[static_cast<std::size_t>(s)], step)) {
          t = Rect{t.x - halo, t.y - halo, t.w + 2 * halo, t.h + 2 * halo, true};
          CHECK_FALSE(intersect(box, t));
        }
        for (const Rect& r : app.hits.step_rects(app.played.rec->steps[static_cast<std::size_t>(step)])) {
          CAPTURE(r.x);
          CAPTURE(r.y);
          CHECK_FALSE(intersect(box, r));
        }
      }
    }
  }
  restore_window();
}
