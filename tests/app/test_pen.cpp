// The pen of presentation mode: strokes as the mouse draws them, cleared on the next step and
// on leaving presentation mode; `shot --pen`'s points refused in one line when they are not.
#include "app/ui/model/pen.h"

#include <doctest/doctest.h>

#include <string>

using namespace flashstep::ui;

TEST_CASE("pen: a drag draws a stroke only with the pen on, and the next step and leaving presentation clear it") {
  Pen pen;
  pen.observe(4, -1, true);
  pen.press({0.1f, 0.1f});
  pen.drag({0.2f, 0.2f});
  CHECK(pen.strokes.empty());  // the pen is off: the mouse only points
  pen.toggle();
  REQUIRE(pen.on);
  pen.press({0.1f, 0.1f});
  pen.drag({0.2f, 0.2f});
  pen.drag({0.2005f, 0.2f});  // too small a move to keep
  pen.drag({0.3f, 0.25f});
  pen.release();
  pen.drag({0.9f, 0.9f});  // button up: not drawn
  REQUIRE(pen.strokes.size() == 1);
  CHECK(pen.strokes[0].size() == 3);
  CHECK(pen.strokes[0][2].x == 0.3f);
  pen.press({0.5f, 0.5f});
  pen.drag({0.6f, 0.5f});
  CHECK(pen.strokes.size() == 2);
  pen.observe(4, -1, true);  // the same step: kept
  CHECK(pen.strokes.size() == 2);
  pen.observe(5, -1, true);  // the next step: gone, the pen stays on
  CHECK(pen.strokes.empty());
  CHECK(pen.on);
  pen.press({0.5f, 0.5f});
  pen.drag({0.6f, 0.5f});
  pen.observe(5, 0, true);  // a part of the step is a move too
  CHECK(pen.strokes.empty());
  pen.press({0.5f, 0.5f});
  pen.drag({0.6f, 0.5f});
  pen.observe(5, 0, false);  // presentation ends: gone, and the pen is put down
  CHECK(pen.strokes.empty());
  CHECK_FALSE(pen.on);
}

TEST_CASE("pen: shot's stroke points are fractions of the view, refused in one line otherwise") {
  PenStroke s;
  CHECK(Pen::parse_stroke("0.1,0.2 0.5,0.5  1,0", s).empty());
  REQUIRE(s.size() == 3);
  CHECK(s[1].x == 0.5f);
  CHECK(s[2].y == 0.0f);
  for (const char* bad : {"", "0.1,0.2", "0.1,0.2 0.3", "0.1,0.2 a,b", "0.1,0.2 1.5,0.2", "0.1,0.2 0.3,-1",
                          "0.1,0.2 0.3,0.4x", "0.1,0.2 nan,0.4"}) {
    const std::string text = bad;
    CAPTURE(text);
    const std::string err = Pen::parse_stroke(text, s);
    CHECK(err.rfind("--pen '", 0) == 0);
    CHECK(err.find('\n') == std::string::npos);
    CHECK(s.empty());
  }
}
