// Every lesson drawn off-screen (hidden window; ./build.sh test runs ctest under Xvfb) at its
// first, middle and last step: the picture has the right size, is not blank, and moving the
// playhead changes it.
#include "app/ui/offscreen.h"
#include "core/lessons.h"
#include "tests/display.h"

#include <doctest/doctest.h>

#include <cstdlib>
#include <memory>

using namespace flashstep;
using namespace flashstep::ui;

namespace {

OffscreenRenderer* renderer() {
  static std::unique_ptr<OffscreenRenderer> r;
  if (!r) r = std::make_unique<OffscreenRenderer>();
  return r.get();
}

}  // namespace

TEST_CASE("render: every lesson at its first, middle and last step") {
  if (!have_display()) {
    MESSAGE("no display: run under xvfb-run (./build.sh test does)");
    return;
  }
  OffscreenRenderer& r = *renderer();
  REQUIRE_MESSAGE(r.ok(), r.error());
  RenderOptions opt;
  opt.width = 1280;
  opt.height = 800;
  for (const Lesson& l : lessons()) {
    CAPTURE(l.id);
    AppState app;
    app.background_allowed = false;
    REQUIRE(app.open_lesson(l.id));
    const int n = app.timeline.count();
    REQUIRE(n > 1);
    Image img[3];
    const int steps[3] = {0, n / 2, n - 1};
    for (int i = 0; i < 3; ++i) {
      app.seek(steps[i]);
      REQUIRE_MESSAGE(r.render(app, opt, img[i]), r.error());
      CHECK(img[i].width == 1280);
      CHECK(img[i].height == 800);
      CHECK(distinct_colours(img[i]) > 64);
    }
    CHECK(difference(img[0], img[1]) > 0.0005);
    CHECK(difference(img[1], img[2]) > 0.0005);
  }
}

TEST_CASE("render: one panel at 2x is rendered at twice the size, and written as PNG") {
  if (!have_display()) return;
  OffscreenRenderer& r = *renderer();
  REQUIRE(r.ok());
  RenderOptions opt;
  opt.width = 400;
  opt.height = 300;
  opt.scale = 2.0f;
  opt.frame.panel = "pseudocode";
  Image img;
  std::string error;
  REQUIRE_MESSAGE(render_lesson(r, "attn-tiled", -1, opt, img, error), error);
  CHECK(img.width == 800);
  CHECK(img.height == 600);
  CHECK(distinct_colours(img) > 32);
  const std::string path = "test_render_panel.png";
  REQUIRE_MESSAGE(write_png(path, img, error), error);
  CHECK(std::remove(path.c_str()) == 0);
  CHECK_FALSE(write_png("/nonexistent-dir/x.png", img, error));
  CHECK(error.find("/nonexistent-dir/x.png") != std::string::npos);
  // Every named panel renders.
  opt.scale = 1.0f;
  for (const std::string& p : panel_names()) {
    CAPTURE(p);
    opt.frame.panel = p;
    REQUIRE_MESSAGE(render_lesson(r, "online", 3, opt, img, error), error);
    CHECK(distinct_colours(img) > 8);
  }
}

TEST_CASE("render: a step's part is drawn the same however the playhead got there") {
  if (!have_display()) return;
  OffscreenRenderer& r = *renderer();
  REQUIRE(r.ok());
  RenderOptions opt;
  opt.width = 1280;
  opt.height = 800;
  AppState app;
  app.background_allowed = false;
  REQUIRE(app.open_lesson("attn-tiled"));
  // The first step with three parts (S, P̃, the merge), and one before it.
  int k = 1;
  while (k < app.timeline.count() && app.timeline.part_count_at(k) < 3) ++k;
  REQUIRE(k < app.timeline.count());
  auto draw = [&](Image& img) { REQUIRE_MESSAGE(r.render(app, opt, img), r.error()); };
  Image walked[3], direct[3], scratch;
  // Walked with `.` from the step before: part 1, part 2, then the whole step.
  app.seek(k - 1);
  draw(scratch);
  for (int p = 0; p < 3; ++p) {
    app.timeline.step_part(1);
    app.sync_cursor();
    CHECK(app.timeline.playhead() == k);
    CHECK(app.timeline.part() == (p < 2 ? p : -1));
    draw(walked[p]);
  }
  // Reached from a step further on, each on its own.
  for (int p = 0; p < 3; ++p) {
    app.seek(std::min(k + 2, app.timeline.count() - 1));
    draw(scratch);
    app.seek(k, p < 2 ? p : -1);
    draw(direct[p]);
  }
  for (int p = 0; p < 3; ++p) {
    CAPTURE(p);
    CHECK(difference(walked[p], direct[p]) == 0.0);
  }
  // The parts differ from one another: the comparison sees what a part changes.
  CHECK(difference(direct[0], direct[1]) > 0.0);
}
