// The numbers the two labs show, against values worked out by hand.
#include "app/ui/labs/lab_measure.h"
#include "app/ui/labs/lab_overflow.h"
#include "app/ui/labs/lab_scale.h"
#include "app/ui/model/record_job.h"
#include "core/algorithms.h"

#include <doctest/doctest.h>

#include <cmath>
#include <map>

using namespace flashstep;
using namespace flashstep::ui;

TEST_CASE("1/sqrt(d) lab: the worked example, scaled correctly") {
  // [10, 0, -5] / sqrt(64) = [1.25, 0, -0.625]; e^1.25 = 3.49034, e^-0.625 = 0.535261.
  const auto p64 = softmax({1.25, 0, -0.625});
  const double l = std::exp(1.25) + 1.0 + std::exp(-0.625);
  CHECK(p64[0] == doctest::Approx(std::exp(1.25) / l));
  CHECK(p64[0] == doctest::Approx(0.69451).epsilon(1e-4));
  CHECK(p64[1] == doctest::Approx(0.19898).epsilon(1e-4));
  CHECK(p64[2] == doctest::Approx(0.10651).epsilon(1e-4));
  const auto p4 = softmax({5, 0, -2.5});
  CHECK(p4[0] == doctest::Approx(0.99276).epsilon(1e-4));
  CHECK(p4[1] == doctest::Approx(0.00669).epsilon(1e-2));
  CHECK(p4[2] == doctest::Approx(0.00055).epsilon(2e-2));
  const auto raw = softmax({10, 0, -5});
  CHECK(raw[0] == doctest::Approx(0.9999543).epsilon(1e-6));
}

TEST_CASE("1/sqrt(d) lab: q.k has variance d, entropy falls without the scale") {
  for (int d : {1, 16, 256}) {
    const auto dots = dot_samples(d, 5, 20000);
    CHECK(variance_of(dots) == doctest::Approx(d).epsilon(0.05));
    CHECK(std::abs(mean_of(dots)) < 4.0 * std::sqrt(d / 20000.0) + 1e-9);
  }
  CHECK(entropy({0.25, 0.25, 0.25, 0.25}) == doctest::Approx(std::log(4.0)));
  CHECK(entropy({1.0, 0.0}) == doctest::Approx(0.0));
  const ScaleCurves c = scale_curves(1, 16, 32);
  REQUIRE(c.d.size() == 11);
  CHECK(c.d.front() == 1);
  CHECK(c.d.back() == 1024);
  // Without 1/sqrt(d) softmax collapses onto one key as d grows; with it, it does not.
  CHECK(c.entropy_raw.back() < 0.5 * c.entropy_raw.front());
  CHECK(c.max_raw.back() > 0.8);
  CHECK(c.entropy_scaled.back() == doctest::Approx(c.entropy_scaled.front()).epsilon(0.3));
  ScaleLab lab;
  lab.d = 64;
  update_scale_lab(lab);
  CHECK(lab.w_raw.size() == kScaleLabKeys);
  CHECK(max_of(lab.w_raw) >= max_of(lab.w_scaled));
  CHECK(lab.var == doctest::Approx(64).epsilon(0.1));
}

TEST_CASE("overflow lab: naive breaks exactly above ln(max), safe never") {
  const OverflowRun ok16 = run_overflow(11.0, Precision::fp16);
  CHECK(ok16.naive_ok);
  CHECK(ok16.safe_ok);
  const OverflowRun bad16 = run_overflow(11.2, Precision::fp16);
  CHECK_FALSE(bad16.naive_ok);
  CHECK(bad16.safe_ok);
  CHECK(std::isinf(bad16.exp_naive[2]));
  CHECK(run_overflow(88.0, Precision::fp32).naive_ok);
  CHECK_FALSE(run_overflow(89.0, Precision::fp32).naive_ok);
  CHECK_FALSE(run_overflow(89.0, Precision::bf16).naive_ok);
  CHECK(run_overflow(709.0, Precision::fp64).naive_ok);
  const OverflowRun big = run_overflow(3000.0, Precision::fp64);
  CHECK_FALSE(big.naive_ok);
  CHECK(big.safe_ok);
  CHECK(big.y_safe[2] == doctest::Approx(1.0));
  CHECK(big.m_safe == 3000.0);
}

TEST_CASE("measure lab: the speed-up sentence compares one backend's points, and says slower when it is") {
  using flashstep::Algorithm;
  using flashstep::MeasurePoint;
  auto point = [](Algorithm a, std::int64_t n, double ms, bool gpu) {
    MeasurePoint p;
    p.algorithm = a;
    p.n = n;
    p.time_ms = ms;
    p.gpu = gpu;
    return p;
  };
  std::vector<MeasurePoint> points = {
      point(Algorithm::attn_naive, 1024, 40, false), point(Algorithm::attn_tiled_v2, 1024, 10, false),
      point(Algorithm::attn_naive, 1024, 30, true), point(Algorithm::attn_tiled_v2, 1024, 60, true),
      // Naive at 2048 on the GPU was refused: the largest size both have is 1024.
      point(Algorithm::attn_tiled_v2, 2048, 200, true)};
  points.push_back(point(Algorithm::attn_naive, 2048, 0, true));
  points.back().skipped = true;
  using flashstep::ui::speedup_text;
  // Attention's size is N, softmax's n, as the plots name them.
  CHECK(speedup_text(points, Algorithm::attn_naive, Algorithm::attn_tiled_v2) == "4.00x faster at N = 1024");
  CHECK(speedup_text(points, Algorithm::attn_naive, Algorithm::attn_tiled_v2, true) == "2.00x slower at N = 1024");
  CHECK(speedup_text({}, Algorithm::attn_naive, Algorithm::attn_tiled_v2, true).empty());
  const std::vector<MeasurePoint> softmax = {point(Algorithm::safe, 1 << 24, 30, false), point(Algorithm::online, 1 << 24, 20, false)};
  CHECK(speedup_text(softmax, Algorithm::safe, Algorithm::online) == "1.50x faster at n = 16M");
}

TEST_CASE("measure lab: on a software renderer the GPU race is opt-in, on a real GPU it runs unless unticked") {
  using namespace flashstep;
  using namespace flashstep::ui;
  CHECK(software_renderer("llvmpipe (LLVM 15.0.7, 256 bits)"));
  CHECK(software_renderer("softpipe"));
  CHECK(software_renderer("Google SwiftShader"));
  CHECK_FALSE(software_renderer("NVIDIA GeForce RTX 4090/PCIe/SSE2"));
  CHECK_FALSE(software_renderer("AMD Radeon RX 7900 XTX (radeonsi, navi31, LLVM 15.0.7, DRM 3.54)"));
  auto backend = [](const char* device) {
    auto record = [](const Resolved&, const RecordOptions&) -> Recording { return Recording{}; };
    return GpuBackend(record, [](const Resolved&) { return std::string(); }, device, record);
  };
  MeasureLab lab;
  set_gpu_backend(backend("llvmpipe (LLVM 15.0.7, 256 bits)"));
  CHECK_FALSE(measure_gpu_by_default());
  CHECK_FALSE(measure_gpu_wanted(lab));
  lab.gpu = true;  // ticked
  CHECK(measure_gpu_wanted(lab));
  set_gpu_backend(backend("NVIDIA H100 80GB HBM3/PCIe/SSE2"));
  lab.gpu.reset();
  CHECK(measure_gpu_by_default());
  CHECK(measure_gpu_wanted(lab));
  lab.gpu = false;  // unticked
  CHECK_FALSE(measure_gpu_wanted(lab));
  set_gpu_backend({});
  lab.gpu = true;  // no backend: nothing to tick
  CHECK_FALSE(measure_gpu_wanted(lab));
}

TEST_CASE("measure lab, run on the calling thread for a picture: both races' points on the CPU, and its sizes from the command line") {
  using namespace flashstep;
  using namespace flashstep::ui;
  MeasureLab lab;
  lab.gpu = true;  // ticked, but a picture times the CPU alone
  CHECK(set_measure_sizes(lab, 512, 128).empty());
  CHECK(lab.max_attention_log2 == 9);
  CHECK(lab.d == 128);
  measure_now(lab);
  CHECK_FALSE(lab.running);
  const MeasurePlan plan = measure_plan(lab);
  REQUIRE(plan.attention_n == std::vector<std::int64_t>{512});
  // One point for each algorithm at each size of its race, none skipped, none on the GPU.
  std::map<Algorithm, std::vector<std::int64_t>> sizes;
  for (const MeasurePoint& p : lab.points) {
    CAPTURE(std::string(algorithm_id(p.algorithm)));
    CHECK_FALSE(p.skipped);
    CHECK_FALSE(p.gpu);
    CHECK(p.time_ms > 0);
    if (takes_qkv(p.algorithm)) CHECK(p.d == 128);
    sizes[p.algorithm].push_back(p.n);
  }
  CHECK(sizes[kAttentionRace.slow] == plan.attention_n);
  CHECK(sizes[kAttentionRace.fast] == plan.attention_n);
  CHECK(sizes[kSoftmaxRace.slow] == plan.softmax_n);
  CHECK(sizes[kSoftmaxRace.fast] == plan.softmax_n);
  CHECK(sizes.size() == 4);
  CHECK(speedup_text(lab.points, kAttentionRace.slow, kAttentionRace.fast).find("at N = 512") != std::string::npos);
  CHECK(speedup_text(lab.points, kSoftmaxRace.slow, kSoftmaxRace.fast).find("at n = 16M") != std::string::npos);
  // The sizes the lab's own controls offer, and nothing else, each refused naming its option.
  MeasureLab other;
  CHECK(set_measure_sizes(other, 16384, 64).empty());
  CHECK(other.max_attention_log2 == 14);
  CHECK(set_measure_sizes(other, 0, 0).empty());  // the lab's own
  CHECK(other.max_attention_log2 == 14);
  for (const int n : {256, 1000, 32768, -512, 1})
    CHECK(set_measure_sizes(other, n, 0) == "--measure-n " + std::to_string(n) +
                                                 ": the largest N of Measure it yourself is a power of two from 512 to 16384");
  for (const int d : {32, 96, -64})
    CHECK(set_measure_sizes(other, 0, d) == "--measure-d " + std::to_string(d) + ": Measure it yourself times d = 64 or 128");
  CHECK(other.max_attention_log2 == 14);
  CHECK(other.d == 64);
}

TEST_CASE("measure lab: every figure a legend or a curve shows names its size") {
  using flashstep::ui::figure_text;
  CHECK(figure_text(38149.2, "ms", 4096, true) == "38149 ms at N = 4096");
  CHECK(figure_text(57821.0, "ms", 8192, true) == "57821 ms at N = 8192");
  CHECK(figure_text(12.34, "ms", 1 << 24, false) == "12.3 ms at n = 16M");
  CHECK(figure_text(512.0, "MiB", 8192, true) == "512 MiB at N = 8192");
}
