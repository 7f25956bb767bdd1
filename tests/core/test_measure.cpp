// The "measure it yourself" runner: every point comes, in order; naive attention beyond the
// memory budget is refused with the estimate; cancel stops it; a GPU backend adds its points.
#include "core/engine.h"
#include "core/measure.h"

#include <doctest/doctest.h>

#include <stdexcept>
#include <utility>
#include <vector>

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

TEST_CASE("measure with a GPU backend: each attention size is also timed on the GPU, and a refusal skips the point with its reason") {
  MeasurePlan plan;
  plan.attention_n = {64, 128};
  plan.d = 16;
  plan.softmax_n = {};
  plan.repeat = 2;
  std::vector<std::pair<Algorithm, int>> asked;
  plan.gpu_time_ms = [&](const Resolved& r, const std::atomic<bool>*) -> double {
    asked.emplace_back(r.scenario.algorithm, r.n);
    if (r.scenario.algorithm == Algorithm::attn_naive && r.n == 128) throw std::runtime_error("S does not fit");
    return 1.0 + static_cast<double>(asked.size());  // later runs slower: the best is the first
  };
  std::vector<MeasurePoint> points;
  CHECK(measure(plan, nullptr, [&](const MeasurePoint& p, float) { points.push_back(p); }));
  REQUIRE(points.size() == 8);  // per N: CPU naive, CPU tiled, GPU naive, GPU tiled
  for (int k = 0; k < 8; ++k) {
    CAPTURE(k);
    CHECK(points[k].gpu == (k % 4 >= 2));
    CHECK(points[k].algorithm == (k % 2 == 0 ? Algorithm::attn_naive : Algorithm::attn_tiled_v2));
    CHECK(points[k].n == (k < 4 ? 64 : 128));
  }
  CHECK(points[2].time_ms == 2.0);  // best of two: 2 and 3
  CHECK(points[3].time_ms == 4.0);
  CHECK(points[6].skipped);
  CHECK(points[6].note == "S does not fit");
  CHECK_FALSE(points[7].skipped);
  // Naive at 128 was asked once: the first refusal ends its repeats.
  CHECK(asked.size() == 7);
  // The GPU's cancel ends the run.
  std::atomic<bool> cancel{false};
  plan.gpu_time_ms = [&](const Resolved&, const std::atomic<bool>* c) -> double {
    cancel = true;
    CHECK(c == &cancel);
    throw Cancelled();
  };
  int calls = 0;
  CHECK_FALSE(measure(plan, &cancel, [&](const MeasurePoint&, float) { ++calls; }));
  CHECK(calls == 2);  // the CPU points of the first size
}
