// The window's own frames (FrameOptions::live) with the moves between steps and the pen: a
// step by hand starts a move that the views are handed and that ends on time, a quick second
// press starts none; in presentation mode L puts the pen on, a drag draws a stroke in the
// view's draw list, and the next step (a clicker's PgDn) clears it. Pictures stay exact.
#include "tests/app/headless.h"
#include "tests/images.h"

#include "app/export/export_job.h"
#include "app/ui/panels/panels.h"

#include <doctest/doctest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>
#include <vector>
#include <thread>

using namespace flashstep;
using namespace flashstep::ui;

namespace {

FrameOptions live() {
  FrameOptions o;
  o.live = true;
  return o;
}

void wait_ms(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

// Vertices of this frame drawn in the pen's ink, (236, 0, 140) opaque.
int ink_vertices() {
  int n = 0;
  const ImDrawData* d = ImGui::GetDrawData();
  for (int i = 0; d && i < d->CmdListsCount; ++i)
    for (const ImDrawVert& v : d->CmdLists[i]->VtxBuffer) n += v.col == IM_COL32(236, 0, 140, 255);
  return n;
}

}  // namespace

TEST_CASE("motion: a step by hand moves for a moment in the window's frames, and a quick second step and pictures do not") {
  Headless h;
  AppState app;
  app.background_allowed = false;
  REQUIRE(app.open_lesson("online"));
  h.frame(app, live());
  wait_ms(200);
  h.press(app, GLFW_KEY_RIGHT);
  h.frame(app, live());
  REQUIRE(app.motion.active());
  CHECK(app.motion.from() == 0);
  CHECK(app.motion.to() == 1);
  CHECK(view_input(app).tween != nullptr);
  wait_ms(static_cast<int>(Transition::kByHandSeconds * 1000) + 50);
  h.frame(app, live());
  CHECK_FALSE(app.motion.active());
  CHECK(view_input(app).tween == nullptr);
  // Two steps 150 ms apart or less: the second is a repeat, drawn at once.
  wait_ms(200);
  h.press(app, GLFW_KEY_RIGHT);
  h.frame(app, live());
  CHECK(app.motion.active());
  h.press(app, GLFW_KEY_RIGHT);
  h.frame(app, live());
  CHECK_FALSE(app.motion.active());
  // Turned off (View ▸ Animate steps): none.
  app.motion.enabled = false;
  wait_ms(200);
  h.press(app, GLFW_KEY_LEFT);
  h.frame(app, live());
  CHECK_FALSE(app.motion.active());
  // A picture's frames (not live) start none.
  app.motion.enabled = true;
  wait_ms(200);
  h.press(app, GLFW_KEY_LEFT);
  CHECK_FALSE(app.motion.active());
}

TEST_CASE("motion: in presentation mode L puts the pen on, a drag draws in the view, the next step clears it") {
  Headless h;
  AppState app;
  app.background_allowed = false;
  REQUIRE(app.open_lesson("online"));
  app.presenting = true;
  h.frame(app, live());
  ImGuiIO& io = ImGui::GetIO();
  // As the window's backend does, the mouse is set before every frame.
  auto at = [&](float x, float y, bool down) {
    io.MousePos = ImVec2(x, y);
    io.MouseDown[0] = down;
    h.frame(app, live());
  };
  auto drag = [&] {
    at(300, 300, true);
    at(500, 320, true);
    at(700, 300, true);
    at(700, 300, false);
  };
  drag();  // the pen is off: the mouse only points
  CHECK(app.pen.strokes.empty());
  CHECK(app.pen.pointer);
  h.press(app, GLFW_KEY_L);
  REQUIRE(app.pen.on);
  drag();
  REQUIRE(app.pen.strokes.size() == 1);
  CHECK(app.pen.strokes[0].size() == 3);
  CHECK(ink_vertices() > 0);
  h.press(app, GLFW_KEY_PAGE_DOWN);
  h.frame(app, live());
  CHECK(app.pen.strokes.empty());
  CHECK(ink_vertices() == 0);
  CHECK(app.pen.on);
  drag();
  CHECK(app.pen.strokes.size() == 1);
  h.press(app, GLFW_KEY_ESCAPE);  // leaves presentation mode
  h.frame(app, live());
  CHECK(app.pen.strokes.empty());
  CHECK_FALSE(app.pen.on);
  // Outside presentation mode L does nothing.
  h.press(app, GLFW_KEY_L);
  CHECK_FALSE(app.pen.on);
}

TEST_CASE("motion: the export dialog's GIF with frames between steps has them, its steps' frames as without, and the window keeps no move") {
  if (!std::getenv("DISPLAY")) return;
  AppState app;
  app.background_allowed = false;
  REQUIRE(app.open_lesson("online"));
  app.seek(5);
  auto write = [&](const std::string& path, int tween, int& frames) {
    ExportJob job;
    std::string error;
    ExportRequest r;
    r.kind = ExportRequest::gif;
    r.path = path;
    r.width = 640;
    r.height = 400;
    r.from = 1;
    r.to = 3;
    r.tween = tween;
    REQUIRE_MESSAGE(job.start(app, r, nullptr, error), error);
    frames = job.frame_count();
    int calls = 0;
    while (job.busy() && calls < 100) {
      job.step(app);
      ++calls;
      CHECK_FALSE(app.motion.active());  // held only while a frame is drawn
    }
    CHECK(calls == frames);
    CHECK(job.outcome() == ExportJob::Outcome::done);
  };
  const std::string exact = "/tmp/flashstep-motion-" + std::to_string(getpid()) + "-exact.gif",
                    tweened = "/tmp/flashstep-motion-" + std::to_string(getpid()) + "-tweened.gif";
  int n_exact = 0, n_tweened = 0;
  // The window's first picture settles its layout (the lesson list scrolls to the lesson): one
  // before, so that the two compared are drawn alike.
  write(exact, 0, n_exact);
  write(exact, 0, n_exact);
  write(tweened, 2, n_tweened);
  CHECK(n_exact == 3);
  CHECK(n_tweened == 3 + 2 * 2);
  const auto a = images::gif_frames(exact), b = images::gif_frames(tweened);
  REQUIRE(a.size() == 3);
  REQUIRE(b.size() == 7);
  CHECK(b[0] == a[0]);
  CHECK(b[3] == a[1]);
  CHECK(b[6] == a[2]);
  for (int k : {1, 2, 4, 5}) CHECK(b[static_cast<std::size_t>(k)] != b[0]);
  CHECK(app.timeline.playhead() == 5);
  std::remove(exact.c_str());
  std::remove(tweened.c_str());
  // A count out of range, or with parts, is refused in one sentence.
  ExportRequest bad;
  bad.kind = ExportRequest::gif;
  bad.path = exact;
  bad.from = 1;
  bad.to = 3;
  bad.tween = 31;
  CHECK(check_export(app, bad).find("frames between steps must be 0 to 30") != std::string::npos);
  bad.tween = 2;
  bad.parts = true;
  CHECK(check_export(app, bad).find("choose one") != std::string::npos);
}
