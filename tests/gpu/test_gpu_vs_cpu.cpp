// Every algorithm on the GPU against the CPU reference engine: outputs, m and l at every step,
// the step sequence and the IO counters. One table of cases (the backend-ops test of ggml is the
// model), each with the tolerance tests/tolerance.h derives from its format and its inputs: the
// CPU's error bound plus the GPU's, whose exp() GLSL allows to be off by (3 + 2|x|) ulp.
#include "../rows.h"
#include "../sample.h"
#include "../tolerance.h"
#include "core/algorithms.h"
#include "core/compare.h"
#include "core/engine.h"
#include "gpu_context.h"

#include <algorithm>
#include <string>
#include <vector>

using namespace flashstep;

namespace {

struct Case {
  Algorithm algo;
  Precision precision = Precision::fp32;
  int rows = 1, n = 0, d = 0;
  bool causal = false;
  ScaleMode scale = ScaleMode::none;
  bool keep_steps = true;
};

std::string name(const Case& c) {
  return std::string(algorithm_id(c.algo)) + " " + std::string(precision_name(c.precision)) +
         " rows=" + std::to_string(c.rows) + " n=" + std::to_string(c.n) + " d=" + std::to_string(c.d) +
         (c.causal ? " causal" : "") + (c.scale == ScaleMode::inv_sqrt_d ? " 1/sqrt(d)" : "") +
         (c.keep_steps ? " (every step)" : " (summary)");
}

Scenario scenario(const Case& c) {
  Scenario s;
  s.algorithm = c.algo;
  s.precision = c.precision;
  s.causal = c.causal;
  s.scale_mode = c.scale;
  s.n = c.n;
  s.d = c.d > 0 ? c.d : 4;
  s.seed = 7;
  s.chunks = c.n >= 7 ? 7 : 1;  // n = 1000 and 4097 are not multiples of 7
  if (takes(c.algo, kInputX)) {
    s.x = gpu_test::scores_with_outliers(c.rows, c.n, 11);
    // In the 16-bit formats an outlier of 30 costs u·60 in every rescale's exponent, which
    // alone exceeds bf16's resolution: there the rows are the normal part alone, |x| <= 6.
    if (c.precision == Precision::fp16 || c.precision == Precision::bf16)
      for (auto& row : s.x)
        for (double& v : row) v = std::clamp(v, -6.0, 6.0);
  }
  return s;
}

// Runs the case on both backends and checks the report and the step structure.
void check(const Case& c) {
  CAPTURE(name(c));
  const Resolved r = resolve(scenario(c));
  RecordOptions opt;
  opt.keep_steps = c.keep_steps;
  const Recording cpu = record(r, opt);
  const Recording gpu = gpu_test::engine().record(r, opt);
  CHECK(gpu.backend == "gpu");
  CHECK(gpu.device.size() > 0);
  const CompareReport rep = compare(cpu, gpu);
  CHECK(rep.mismatch == "");
  tolerance::check(rep, tolerance::between(r, tolerance::Exp::cpu, tolerance::Exp::glsl),
                   name(c) + " over " + std::to_string(rep.steps_compared) + " steps");
  CHECK(cpu.io == gpu.io);
  CHECK(cpu.pass_names == gpu.pass_names);
  REQUIRE(cpu.buffers.size() == gpu.buffers.size());
  for (std::size_t b = 0; b < cpu.buffers.size(); ++b) {
    CHECK(cpu.buffers[b].name == gpu.buffers[b].name);
    CHECK(cpu.buffers[b].rows == gpu.buffers[b].rows);
    CHECK(cpu.buffers[b].cols == gpu.buffers[b].cols);
    CHECK(cpu.buffers[b].space == gpu.buffers[b].space);
  }
  if (c.keep_steps) {
    CHECK(rep.steps_compared == cpu.step_count());
    CHECK(gpu.step_count() == estimate_steps(r));
  }
}

}  // namespace

TEST_CASE("softmax algorithms, fp32, n = 1000 and 4097, every step") {
  // The sample (tests/sample.h): every algorithm at one of the two lengths, in turn.
  const std::vector<Algorithm> algos = rows::on_gpu(rows::taking_x());
  for (std::size_t ai = 0; ai < algos.size(); ++ai)
    for (int n : {1000, 4097})
      if (sample::keeps(ai, n == 1000 ? 0 : 1, 2)) check({algos[ai], Precision::fp32, 1, n});
}

TEST_CASE("softmax algorithms, fp32, several rows, scaled") {
  for (Algorithm a : rows::on_gpu(rows::taking_x())) {
    Case c{a, Precision::fp32, 3, 1000};
    c.scale = ScaleMode::inv_sqrt_d;
    check(c);
  }
}

TEST_CASE("attention algorithms, fp32, N = 257, d = 64 and 32, with and without the causal mask") {
  // Unscaled scores at d = 64 spread to about +-30, so P is sharp and every error of exp() shows.
  // The sample (tests/sample.h): every algorithm at one of the four (d, mask) pairs, the pair
  // turning with the algorithm.
  const std::vector<Algorithm> algos = rows::on_gpu(rows::taking_qkv());
  for (std::size_t ai = 0; ai < algos.size(); ++ai)
    for (int d : {64, 32})
      for (bool causal : {false, true}) {
        if (!sample::keeps(ai, (d == 32 ? 2 : 0) + (causal ? 1 : 0), 4)) continue;
        const Algorithm a = algos[ai];
        Case c{a, Precision::fp32, 1, 257, d, causal};
        // attn-online records d values per key: keep every step at d = 32, the summary at 64.
        c.keep_steps = !(a == Algorithm::attn_online && d == 64);
        check(c);
      }
}

TEST_CASE("attention algorithms, fp32, N = 257, d = 64, scaled by 1/sqrt(d)") {
  for (Algorithm a : rows::on_gpu(rows::taking_qkv())) {
    Case c{a, Precision::fp32, 1, 257, 64, true, ScaleMode::inv_sqrt_d};
    c.keep_steps = a != Algorithm::attn_online;
    check(c);
  }
}

TEST_CASE("tiled attention with block sizes that do not divide N (summary, N = 1000)") {
  // The sample (tests/sample.h): every tiled algorithm once, with and without the mask in turn.
  const std::vector<Algorithm> algos = rows::on_gpu(rows::where([](const AlgorithmInfo& row) { return row.takes_blocks; }));
  for (std::size_t ai = 0; ai < algos.size(); ++ai)
    for (bool causal : {false, true}) {
      if (!sample::keeps(ai, causal ? 1 : 0, 2)) continue;
      const Algorithm a = algos[ai];
      Case c{a, Precision::fp32, 1, 1000, 64, causal, ScaleMode::inv_sqrt_d, /*keep_steps=*/false};
      check(c);
    }
}

TEST_CASE("fp16 and bf16 are emulated as on the CPU") {
  // With 11 and 8 significant bits the worst-case bound of tests/tolerance.h grows past the
  // values themselves within a few hundred terms (bf16's γ_n reaches 1 at n = 256), so these
  // problems are small enough for the bound to mean something: rows of 16, N = 24 with d = 4.
  for (Precision p : {Precision::fp16, Precision::bf16}) {
    for (Algorithm a : rows::on_gpu(rows::taking_x()))
      check({a, p, 2, 16, 0, false, ScaleMode::none, true});
    for (Algorithm a : rows::on_gpu(rows::taking_qkv()))
      check({a, p, 1, 24, 4, true, ScaleMode::inv_sqrt_d, true});
  }
}
