// `gif --tween` and `shot --pen` end to end: the in-between frames of a move are added between
// the steps' own frames, which stay exactly what the animation without them holds; a pen
// stroke is drawn over the presented view in its ink. Bad values: exit 2, one line.
#include "app/export/commands.h"
#include "tests/images.h"

#include "tests/invoke.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace {

using exe::invoke;

using images::as_gif_frame;
using images::gif_frames;
using images::load_png;
using images::Png;

std::string tween_file(const std::string& name) { return "/tmp/flashstep-tween-" + std::to_string(getpid()) + "-" + name; }

// Pixels close to the pen's ink, a strong magenta (236, 0, 140).
std::size_t ink_pixels(const Png& p) {
  std::size_t n = 0;
  for (std::size_t i = 0; i + 3 < p.rgba.size(); i += 4)
    n += p.rgba[i] > 200 && p.rgba[i + 1] < 50 && p.rgba[i + 2] > 100 && p.rgba[i + 2] < 180;
  return n;
}

}  // namespace

TEST_CASE("a tweened GIF's first and last frames are shot's pictures of those steps") {
  std::string err;
  const std::string tweened = tween_file("ends.gif"), first = tween_file("first.png"), last = tween_file("last.png");
  const std::string size = "--lesson online --width 640 --height 400 --panel view";
  REQUIRE(invoke("gif " + size + " --from 2 --to 4 --tween 3 --out " + tweened, err) == 0);
  REQUIRE(invoke("shot " + size + " --step 2 --out " + first, err) == 0);
  REQUIRE(invoke("shot " + size + " --step 4 --out " + last, err) == 0);
  const auto frames = gif_frames(tweened);
  REQUIRE(frames.size() == 9);
  const Png a = load_png(first), b = load_png(last);
  REQUIRE(a.w > 0);  // the view panel of a 640 × 400 window, as the GIF's frames
  REQUIRE(frames.front().size() == static_cast<std::size_t>(a.w) * a.h);
  CHECK(frames.front() == as_gif_frame(a));
  CHECK(frames.back() == as_gif_frame(b));
  CHECK(frames.front() != as_gif_frame(b));  // the two steps differ: the check can fail
  std::remove(tweened.c_str());
  std::remove(first.c_str());
  std::remove(last.c_str());
}

TEST_CASE("gif --tween adds the moves between steps, and the steps' own frames stay as without it") {
  std::string err;
  const std::string exact = tween_file("exact.gif"), tweened = tween_file("tweened.gif");
  // The online sweep over [3, 2, 5, 1]'s preset: steps 2 to 4 include a rescale (m grows).
  const std::string common = "--lesson online --from 2 --to 4 --width 640 --height 400 --panel view";
  REQUIRE(invoke("gif " + common + " --out " + exact, err) == 0);
  REQUIRE(invoke("gif " + common + " --tween 3 --out " + tweened, err) == 0);
  const auto a = gif_frames(exact), b = gif_frames(tweened);
  REQUIRE(a.size() == 3);
  REQUIRE(b.size() == 3 + 2 * 3);  // more frames than steps: 3 in between each pair
  // The first and last frames, and the middle step's, are the steps as drawn without moves.
  CHECK(b[0] == a[0]);
  CHECK(b[4] == a[1]);
  CHECK(b[8] == a[2]);
  // Each in-between frame is drawn: neither the step before nor the step after.
  for (int k : {1, 2, 3, 5, 6, 7}) {
    CAPTURE(k);
    const auto& before = k < 4 ? a[0] : a[1];
    const auto& after = k < 4 ? a[1] : a[2];
    CHECK(b[static_cast<std::size_t>(k)] != before);
    CHECK(b[static_cast<std::size_t>(k)] != after);
  }
  std::remove(exact.c_str());
  std::remove(tweened.c_str());
}

TEST_CASE("gif --tween with a bad count, or with --parts: exit 2, one line, no file") {
  const std::string out = tween_file("bad.gif");
  for (const char* args : {"--tween -1", "--tween 31", "--tween abc", "--tween 2 --parts"}) {
    std::string err;
    CAPTURE(args);
    CHECK(invoke(std::string("gif --lesson online --from 1 --to 3 ") + args + " --out " + out, err) == 2);
    CHECK(err.find("--tween") != std::string::npos);
    CHECK(std::count(err.begin(), err.end(), '\n') == 1);
    CHECK(access(out.c_str(), F_OK) != 0);
  }
}

TEST_CASE("shot --pen draws a stroke over the presented view in the pen's ink, and bad points are refused") {
  std::string err;
  const std::string plain = tween_file("plain.png"), pen = tween_file("pen.png");
  const std::string common = "--lesson online --step 3 --present --theme projector --width 960 --height 540";
  REQUIRE(invoke("shot " + common + " --out " + plain, err) == 0);
  REQUIRE(invoke("shot " + common + " --pen \"0.2,0.3 0.5,0.35 0.8,0.3\" --pen \"0.3,0.6 0.6,0.6\" --out " + pen, err) ==
          0);
  const Png p = load_png(plain), q = load_png(pen);
  REQUIRE(p.w == 960);
  REQUIRE(q.w == 960);
  CHECK(ink_pixels(p) == 0);
  CHECK(ink_pixels(q) > 960 / 2);  // two strokes across half the view, 5 units thick
  for (const char* args : {"--pen \"0.1,0.1\"", "--pen \"0.1,0.1 2,0.5\"", "--pen \"a,b c,d\""}) {
    CAPTURE(args);
    CHECK(invoke("shot " + common + " " + args + " --out " + pen + ".bad", err) == 2);
    CHECK(err.find("--pen") != std::string::npos);
    CHECK(std::count(err.begin(), err.end(), '\n') == 1);
  }
  CHECK(invoke("shot --lesson online --pen \"0.1,0.1 0.2,0.2\" --out " + pen + ".bad", err) == 2);
  CHECK(err.find("add --present") != std::string::npos);
  std::remove(plain.c_str());
  std::remove(pen.c_str());
}

TEST_CASE("shot --panel view --pen draws the strokes over the exported view as the whole window does") {
  std::string err;
  const std::string plain = tween_file("panel-plain.png"), pen = tween_file("panel-pen.png");
  const std::string common = "--lesson online --step 3 --panel view --theme projector --width 960 --height 540";
  REQUIRE(invoke("shot " + common + " --out " + plain, err) == 0);
  REQUIRE(invoke("shot " + common + " --pen \"0.2,0.3 0.5,0.35 0.8,0.3\" --pen \"0.3,0.6 0.6,0.6\" --out " + pen,
                 err) == 0);
  const Png p = load_png(plain), q = load_png(pen);
  REQUIRE(p.w > 0);
  CHECK(ink_pixels(p) == 0);
  CHECK(ink_pixels(q) > static_cast<std::size_t>(q.w) / 2);  // two strokes across half the view, 5 units thick
  std::remove(plain.c_str());
  std::remove(pen.c_str());
}
