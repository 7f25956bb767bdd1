// The "measure it yourself" runner: every point comes, in order; naive attention beyond the
// memory budget is refused with the estimate; cancel stops it.
#include "core/measure.h"

#include <doctest/doctest.h>

using namespace flashstep;

TEST_CASE("measure runs every point and refuses what would not fit") {
  MeasurePlan plan;
  plan.attention_n = {64, 256};
  plan.d = 16;
  plan.softmax_n = {1000};
  plan.repeat = 1;
  // 256² · 2 · 4 bytes = 512 KiB of S and P: over a 300 KiB budget, 64² is not.
  plan.memory_budget = 300 * 1024;
  std::vector<MeasurePoint> points;
  float last_progress = 0;
  CHECK(measure(plan, nullptr, [&](const MeasurePoint& p, float progress) {
    points.push_back(p);
    CHECK(progress > last_progress);
    last_progress = progress;
  }));
  REQUIRE(points.size() == 6);
  CHECK(points[0].algorithm == Algorithm::attn_naive);
  CHECK_FALSE(points[0].skipped);
  CHECK(points[0].time_ms > 0);
  CHECK(points[2].algorithm == Algorithm::attn_naive);
  CHECK(points[2].n == 256);
  CHECK(points[2].skipped);
  CHECK(points[2].note.find("would need") != std::string::npos);
  CHECK_FALSE(points[3].skipped);  // tiled at 256 needs no N² memory
  CHECK(points[5].algorithm == Algorithm::online);
  CHECK(last_progress == doctest::Approx(1.0f));
  CHECK(extra_bytes_needed(Algorithm::attn_naive, 8192) == 512ll * 1024 * 1024);
}

TEST_CASE("measure stops when cancelled") {
  MeasurePlan plan;
  plan.attention_n = {64};
  plan.softmax_n = {};
  std::atomic<bool> cancel{true};
  int calls = 0;
  CHECK_FALSE(measure(plan, &cancel, [&](const MeasurePoint&, float) { ++calls; }));
  CHECK(calls == 0);
}
