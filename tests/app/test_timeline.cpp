// The playhead rules, without a window.
#include "app/ui/model/timeline.h"
#include "core/engine.h"
#include "core/lessons.h"

#include <doctest/doctest.h>

using namespace flashstep;
using namespace flashstep::ui;

namespace {

// 12 steps: pass 1 = steps 0-3, pass 2 = 4-7, pass 3 = 8-11 (safe softmax on 4 elements).
Timeline three_passes() {
  Timeline t;
  t.load(12, {{0, 1, 0}, {4, 2, 0}, {8, 3, 0}}, 3, 1);
  return t;
}

}  // namespace

TEST_CASE("timeline: steps clamp at both ends") {
  Timeline t = three_passes();
  CHECK(t.playhead() == 0);
  CHECK_FALSE(t.step(-1));
  CHECK(t.playhead() == 0);
  CHECK(t.step(1));
  CHECK(t.playhead() == 1);
  CHECK(t.seek(100));
  CHECK(t.playhead() == 11);
  CHECK_FALSE(t.step(1));
  CHECK(t.first());
  CHECK(t.playhead() == 0);
  CHECK(t.last());
  CHECK(t.playhead() == 11);
}

TEST_CASE("timeline: next and previous pass") {
  Timeline t = three_passes();
  CHECK(t.next_pass());
  CHECK(t.playhead() == 4);
  CHECK(t.next_pass());
  CHECK(t.playhead() == 8);
  CHECK_FALSE(t.next_pass());  // already in the last pass
  CHECK(t.playhead() == 8);
  t.seek(10);
  CHECK(t.prev_pass());        // inside a pass: back to its start
  CHECK(t.playhead() == 8);
  CHECK(t.prev_pass());        // at a start: the previous pass
  CHECK(t.playhead() == 4);
  CHECK(t.prev_pass());
  CHECK(t.playhead() == 0);
  CHECK_FALSE(t.prev_pass());
}

TEST_CASE("timeline: position text names the pass and the step") {
  Timeline t = three_passes();
  t.seek(6);
  CHECK(t.position_text() == "pass 2/3 · step 7/12");
  CHECK(t.pass() == 2);
  CHECK(t.segment() == 1);
  Timeline rows;
  rows.load(8, {{0, 1, 0}, {2, 2, 0}, {4, 1, 1}, {6, 2, 1}}, 2, 2);
  rows.seek(5);
  CHECK(rows.position_text() == "row 2/2 · pass 1/2 · step 6/8");
  CHECK(t.brief_position_text() == "step 7/12");
  CHECK(rows.brief_position_text() == "step 6/8");
  Timeline empty;
  CHECK(empty.position_text() == "no steps");
  CHECK(empty.brief_position_text() == "no steps");
  CHECK_FALSE(empty.step(1));
  CHECK_FALSE(empty.next_pass());
}

TEST_CASE("timeline: playing advances by speed × time and stops at the end") {
  Timeline t = three_passes();
  t.set_speed_index(3);  // 2 steps/s
  CHECK(t.speed() == 2.0);
  CHECK_FALSE(t.advance(1.0));  // paused: nothing moves
  t.play();
  CHECK(t.playing());
  CHECK_FALSE(t.advance(0.2));  // 0.4 of a step
  CHECK(t.advance(0.3));        // 1.0 step
  CHECK(t.playhead() == 1);
  CHECK(t.advance(1.0));
  CHECK(t.playhead() == 3);
  CHECK(t.advance(100.0));
  CHECK(t.playhead() == 11);
  CHECK_FALSE(t.playing());     // stopped at the last step
  t.play();                     // play at the end starts over
  CHECK(t.playhead() == 0);
  CHECK(t.playing());
  t.toggle_play();
  CHECK_FALSE(t.playing());
}

TEST_CASE("timeline: speed steps through its levels and clamps") {
  Timeline t;
  CHECK(t.speed_index() == Timeline::kDefaultSpeed);
  for (int i = 0; i < 30; ++i) t.faster();
  CHECK(t.speed() == Timeline::kSpeeds[Timeline::kSpeedCount - 1]);
  for (int i = 0; i < 30; ++i) t.slower();
  CHECK(t.speed() == Timeline::kSpeeds[0]);
}

TEST_CASE("timeline: re-recording keeps the same pass when it still exists") {
  Timeline before = three_passes();
  before.seek(9);  // pass 3, offset 1
  Timeline longer;
  longer.load(15, {{0, 1, 0}, {5, 2, 0}, {10, 3, 0}}, 3, 1);
  CHECK(Timeline::carry_over(before, longer) == 11);
  Timeline shorter;
  shorter.load(6, {{0, 1, 0}, {2, 2, 0}, {4, 3, 0}}, 3, 1);
  before.seek(11);  // offset 3 into pass 3: clamped to that pass's last step
  CHECK(Timeline::carry_over(before, shorter) == 5);
  Timeline two;
  two.load(8, {{0, 1, 0}, {4, 2, 0}}, 2, 1);  // no pass 3 any more: start over
  CHECK(Timeline::carry_over(before, two) == 0);
  before.seek(5);
  CHECK(Timeline::carry_over(before, two) == 5);
}

TEST_CASE("timeline: loads the segments of a real recording") {
  Scenario s;
  s.algorithm = Algorithm::safe;
  s.x = {{3, 2, 5, 1}};
  const Recording rec = record(s);
  Timeline t;
  t.load(rec);
  CHECK(t.count() == 12);
  CHECK(t.pass_count() == 3);
  REQUIRE(t.segments().size() == 3);
  CHECK(t.segments()[1].start == 4);
  CHECK(t.segments()[2].start == 8);
  t.last();
  CHECK(t.position_text() == "pass 3/3 · step 12/12");
  // Every lesson's recording gives a timeline whose segments cover its steps.
  for (const Lesson& l : lessons()) {
    const Recording r = record(l.scenario);
    Timeline lt;
    lt.load(r);
    CHECK(lt.count() == r.step_count());
    CHECK(!lt.segments().empty());
    CHECK(lt.segments().front().start == 0);
  }
}

TEST_CASE("timeline: . and , walk a tiled step's parts, the last part being the whole step") {
  // FA-2 on N = 4 with 2×2 tiles: per Q block two tile steps of three parts, then the write.
  Scenario s;
  s.algorithm = Algorithm::attn_tiled_v2;
  s.n = 4;
  s.d = 2;
  s.block_rows = s.block_cols = 2;
  const Recording rec = record(s);
  Timeline t;
  t.load(rec);
  REQUIRE(t.count() == 6);
  CHECK(t.part_count_at(0) == 3);
  CHECK(t.part_count_at(1) == 3);
  CHECK(t.part_count_at(2) == 0);
  // Forward from the whole step 0: its parts are behind it; on into step 1's parts.
  std::vector<std::pair<int, int>> walked;
  while (t.step_part(1)) walked.push_back({t.playhead(), t.part()});
  const std::vector<std::pair<int, int>> forward = {{1, 0}, {1, 1}, {1, -1}, {2, -1}, {3, 0}, {3, 1},
                                                    {3, -1}, {4, 0}, {4, 1}, {4, -1}, {5, -1}};
  CHECK(walked == forward);
  CHECK(t.position_text() == "pass 2/2 · step 6/6");
  // Backward visits the same positions in reverse, down to the whole step 0's earlier parts.
  walked.clear();
  while (t.step_part(-1)) walked.push_back({t.playhead(), t.part()});
  const std::vector<std::pair<int, int>> backward = {{4, -1}, {4, 1}, {4, 0}, {3, -1}, {3, 1}, {3, 0},
                                                     {2, -1}, {1, -1}, {1, 1}, {1, 0}, {0, -1},
                                                     {0, 1}, {0, 0}};
  CHECK(walked == backward);
  CHECK(t.position_text() == "pass 1/2 · step 1/6 · part 1/3");
  CHECK(t.brief_position_text() == "step 1/6 · part 1/3");
  // A whole-step move leaves the parts.
  CHECK(t.step(1));
  CHECK(t.part() == -1);
  CHECK(t.seek(1, 1));
  CHECK(t.part() == 1);
  CHECK(t.seek(1, 2));  // the last part is the whole step
  CHECK(t.part() == -1);
  CHECK(t.seek(2, 0));  // step 2 has no parts: the whole step
  CHECK(t.part() == -1);
  CHECK(t.playhead() == 2);
}
