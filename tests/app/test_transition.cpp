// Animated steps: when a move between steps happens and how long it lasts (transition.h), and
// the bars of a rescale drawn in between, checked against exp() worked out here in long double.
#include "app/ui/model/transition.h"

#include "app/ui/views/vector_bars.h"
#include "core/engine.h"
#include "tests/tolerance.h"

#include <doctest/doctest.h>

#include <cmath>
#include <memory>

using namespace flashstep;
using namespace flashstep::ui;

namespace {

std::shared_ptr<const Recording> online_3251() {
  Scenario s;
  s.algorithm = Algorithm::online;
  s.x = {{3, 2, 5, 1}};
  return std::make_shared<const Recording>(record(s));
}

}  // namespace

TEST_CASE("transition: a move lasts 150–400 ms at the play speed, shorter when faster, none past 150 ms a step") {
  CHECK(Transition::seconds_playing(0.25) == doctest::Approx(0.4));  // a step of 4 s: the longest move
  CHECK(Transition::seconds_playing(2) == doctest::Approx(0.3));     // 0.6 of a 0.5 s step
  CHECK(Transition::seconds_playing(4) == doctest::Approx(0.15));    // 0.6 · 0.25 s, at the floor
  CHECK(Transition::seconds_playing(8) == 0.0);                      // a step of 125 ms: no move
  CHECK(Transition::seconds_playing(1024) == 0.0);
  CHECK(Transition::seconds_playing(0) == 0.0);
  for (double sp = 0.25; sp < 8; sp *= 2)
    CHECK(Transition::seconds_playing(sp) >= Transition::seconds_playing(sp * 2));
}

TEST_CASE("transition: one step by hand moves for 250 ms from the step left, and jumps, key repeat and the switch do not") {
  const auto rec = online_3251();
  Transition tr;
  tr.observe(rec, 0, -1, 10.0, false, 2);  // the recording arrives: nothing to move from
  CHECK_FALSE(tr.active());
  tr.observe(rec, 1, -1, 11.0, false, 2);  // → after a second
  REQUIRE(tr.active());
  CHECK(tr.from() == 0);
  CHECK(tr.to() == 1);
  CHECK(tr.seconds() == doctest::Approx(Transition::kByHandSeconds));
  const Tween* tw = tr.tween_at(1);
  REQUIRE(tw != nullptr);
  CHECK(tw->from_step == 0);
  CHECK(tw->forward());
  CHECK(tw->t == 0.0f);
  CHECK(tr.tween_at(2) == nullptr);  // another step shown: not this move
  // The second cursor holds the state after step 0: m = 3 (x₁), as the recording's replay says.
  const int bm = rec->find_buffer("m");
  CHECK(tw->from->at(bm, 0, 0, 1) == replay(*rec, 0).at(bm, 0, 0, 1));
  tr.observe(rec, 1, -1, 11.125, false, 2);  // half way: smoothstep(0.5) = 0.5
  CHECK(tr.tween_at(1)->t == doctest::Approx(0.5f));
  tr.observe(rec, 1, -1, 11.3, false, 2);  // done
  CHECK_FALSE(tr.active());
  CHECK(tr.tween_at(1) == nullptr);

  // Back one step moves too, from the later step.
  tr.observe(rec, 0, -1, 12.0, false, 2);
  REQUIRE(tr.active());
  CHECK(tr.from() == 1);
  CHECK_FALSE(tr.tween_at(0)->forward());
  // Key repeat: the next step 40 ms later ends the move and starts none.
  tr.observe(rec, 1, -1, 12.04, false, 2);
  CHECK_FALSE(tr.active());
  // A jump of two steps: none.
  tr.observe(rec, 3, -1, 13.0, false, 2);
  CHECK_FALSE(tr.active());
  // Parts of a step: none.
  tr.observe(rec, 3, 0, 14.0, false, 2);
  CHECK_FALSE(tr.active());
  // Turned off: none.
  tr.enabled = false;
  tr.observe(rec, 2, -1, 15.0, false, 2);
  CHECK_FALSE(tr.active());
  tr.enabled = true;
  // Playing at 8 steps/s (125 ms a step): none; at 2 steps/s: 300 ms.
  tr.observe(rec, 1, -1, 16.0, true, 8);
  CHECK_FALSE(tr.active());
  tr.observe(rec, 2, -1, 17.0, true, 2);
  CHECK(tr.active());
  CHECK(tr.seconds() == doctest::Approx(0.3));
  // A new recording ends the move.
  const auto other = online_3251();
  tr.observe(other, 2, -1, 17.1, true, 2);
  CHECK_FALSE(tr.active());
}

TEST_CASE("transition: a held move (gif --tween) stays at its progress until stopped") {
  const auto rec = online_3251();
  Transition tr;
  tr.hold(rec, 1, 2, 0.5);
  REQUIRE(tr.tween_at(2) != nullptr);
  CHECK(tr.tween_at(2)->t == doctest::Approx(0.5f));
  tr.observe(rec, 2, -1, 100.0, false, 2);  // the clock does not move a held frame
  CHECK(tr.tween_at(2)->t == doctest::Approx(0.5f));
  tr.stop();
  CHECK(tr.tween_at(2) == nullptr);
  tr.hold(rec, 1, 99, 0.5);  // past the last step: refused
  CHECK_FALSE(tr.active());
}

TEST_CASE("transition: an animation's frames are each step's own, with the moves between them") {
  const std::vector<TweenFrame> f = tween_frames(2, 4, 2);
  REQUIRE(f.size() == 3 + 2 * 2);
  CHECK((f[0].step == 2 && !f[0].between));
  CHECK((f[1].step == 3 && f[1].between && f[1].progress == doctest::Approx(1.0 / 3)));
  CHECK((f[2].step == 3 && f[2].between && f[2].progress == doctest::Approx(2.0 / 3)));
  CHECK((f[3].step == 3 && !f[3].between));
  CHECK((f[6].step == 4 && !f[6].between));
  CHECK(tween_frames(5, 5, 3).size() == 1);
  CHECK(tween_frames(0, 9, 0).size() == 10);
}

TEST_CASE("transition: a value in between mixes finite ends and shows any other at the nearer end") {
  bool def = false;
  CHECK(tween_value(true, 1.0, true, 3.0, 0.25f, &def) == doctest::Approx(1.5));
  CHECK(def);
  CHECK(tween_value(false, 0.0, true, 3.0, 0.25f, &def) == 0.0);
  CHECK_FALSE(def);
  CHECK(tween_value(false, 0.0, true, 3.0, 0.75f, &def) == 3.0);
  CHECK(def);
  CHECK(std::isinf(tween_value(true, 1.0, true, INFINITY, 0.5f)));
  CHECK(ease(0) == 0.0f);
  CHECK(ease(1) == 1.0f);
  CHECK(ease(0.5) == doctest::Approx(0.5f));
}

TEST_CASE("transition: the bars of a rescale shrink from e^{x − m_old} to e^{x − m_new} in between") {
  const auto rec = online_3251();
  Cursor a(*rec), b(*rec);
  a.seek(1);  // after x₂: m = 3, bars e^{0}, e^{−1}
  b.seek(2);  // after x₃ = 5: m = 5, bars e^{−2}, e^{−3}, e^{0}
  const double u = tolerance::unit_roundoff(Precision::fp32);
  const double eta = tolerance::exp_error(tolerance::Exp::cpu, Precision::fp32, 3.0) + 4 * u;
  for (float t : {0.0f, 0.25f, 0.5f, 1.0f}) {
    const ExpBars bars = tween_exp_bars(*rec, a.state(), 1, b.state(), 2, 0, t);
    const long double tl = t;
    auto between = [&](long double from, long double to) { return static_cast<double>(from + (to - from) * tl); };
    CAPTURE(t);
    REQUIRE(bars.drawn.size() == 4);
    CHECK(std::fabs(bars.value[0] - between(std::exp(0.0L), std::exp(-2.0L))) <= eta);
    CHECK(std::fabs(bars.value[1] - between(std::exp(-1.0L), std::exp(-3.0L))) <= eta);
    CHECK(std::fabs(bars.value[2] - between(0.0L, std::exp(0.0L))) <= eta);  // x₃'s bar grows from nothing
    CHECK(bars.drawn[3] == 0);
    CHECK(bars.rescale);  // the step shown is the rescale: its old bars stay drawn as outlines
  }
}
