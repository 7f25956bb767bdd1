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

TEST_CASE("measure with a GPU backend: the GPU race runs after the whole CPU race, never beside it, and a refusal skips the point with its reason") {
  // On a software renderer the GPU's shaders run on the CPU's cores: a GPU point between two CPU
  // points would skew the CPU curve. So the GPU is asked only once every CPU point is in.
  MeasurePlan plan;
  plan.attention_n = {64, 128};
  plan.d = 16;
  plan.softmax_n = {1000};
  plan.repeat = 2;
  std::vector<std::pair<Algorithm, int>> asked;
  std::vector<MeasurePoint> points;
  plan.gpu_time_ms = [&](const Resolved& r, const std::atomic<bool>*) -> double {
    // Every CPU point (4 attention, 2 softmax) has arrived before the first GPU run.
    CHECK(points.size() >= 6);
    asked.emplace_back(r.scenario.algorithm, r.n);
    if (r.scenario.algorithm == Algorithm::attn_naive && r.n == 128) throw std::runtime_error("S does not fit");
    return 1.0 + static_cast<double>(asked.size());  // later runs slower: the best is the first
  };
  CHECK(measure(plan, nullptr, [&](const MeasurePoint& p, float) { points.push_back(p); }));
  REQUIRE(points.size() == 10);  // CPU: naive, tiled per N, safe, online; then GPU: naive, tiled per N
  const Algorithm order[] = {Algorithm::attn_naive, Algorithm::attn_tiled_v2, Algorithm::attn_naive,
                             Algorithm::attn_tiled_v2, Algorithm::safe,       Algorithm::online,
                             Algorithm::attn_naive, Algorithm::attn_tiled_v2, Algorithm::attn_naive,
                             Algorithm::attn_tiled_v2};
  const int sizes[] = {64, 64, 128, 128, 1000, 1000, 64, 64, 128, 128};
  for (int k = 0; k < 10; ++k) {
    CAPTURE(k);
    CHECK(points[k].gpu == (k >= 6));
    CHECK(points[k].algorithm == order[k]);
    CHECK(points[k].n == sizes[k]);
  }
  CHECK(points[6].time_ms == 2.0);  // best of two: 2 and 3
  CHECK(points[7].time_ms == 4.0);
  CHECK(points[8].skipped);
  CHECK(points[8].note == "S does not fit");
  CHECK_FALSE(points[9].skipped);
  // Naive at 128 was asked once: the first refusal ends its repeats.
  CHECK(asked.size() == 7);
  // The GPU's cancel ends the run.
  std::atomic<bool> cancel{false};
  plan.softmax_n = {};
  plan.gpu_time_ms = [&](const Resolved&, const std::atomic<bool>* c) -> double {
    cancel = true;
    CHECK(c == &cancel);
    throw Cancelled();
  };
  int calls = 0;
  CHECK_FALSE(measure(plan, &cancel, [&](const MeasurePoint&, float) { ++calls; }));
  CHECK(calls == 4);  // the CPU points of both sizes
}
