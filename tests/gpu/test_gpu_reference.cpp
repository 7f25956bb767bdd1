// The GPU engine on its own terms: its numbers against long-double references written in the
// tests, the lessons' overflow examples, the tile sequence of the tiled algorithms, and how it
// refuses what it cannot run and reports shaders that do not compile.
#include "../core/reference.h"
#include "../rows.h"
#include "../sample.h"
#include "../tolerance.h"
#include "core/compare.h"
#include "core/engine.h"
#include "gpu/kernels.h"
#include "gpu/program.h"
#include "gpu_context.h"

#include <cmath>
#include <string>
#include <vector>

using namespace flashstep;

namespace {

using gpu_test::on_gpu;

Scenario softmax_of(Algorithm a, std::vector<std::vector<double>> x, Precision p = Precision::fp32) {
  Scenario s;
  s.algorithm = a;
  s.precision = p;
  s.x = std::move(x);
  return s;
}

Scenario attention(Algorithm a, int N, int d, bool causal, ScaleMode scale) {
  Scenario s;
  s.algorithm = a;
  s.n = N;
  s.d = d;
  s.causal = causal;
  s.scale_mode = scale;
  s.seed = 3;
  return s;
}

}  // namespace

TEST_CASE("online and chunked softmax on the GPU match a long-double reference (n = 4097)") {
  const auto x = gpu_test::scores_with_outliers(1, 4097, 5);
  const ref::Vec y = ref::softmax(x[0]);
  long double m = -INFINITY, l = 0;
  for (double v : x[0]) m = std::fmax(m, v);
  for (double v : x[0]) l += std::exp(v - m);
  // Every GPU row that takes x, keeps a max and writes softmax itself (not its log).
  for (Algorithm a : rows::on_gpu(rows::where([](const AlgorithmInfo& row) {
         return takes(row.algorithm, kInputX) && row.has_max && !row.stores_lse;
       }))) {
    const std::string id(algorithm_id(a));
    CAPTURE(id);
    const Recording rec = on_gpu(softmax_of(a, x), /*keep_steps=*/false);
    double worst = 0;
    for (int i = 0; i < 4097; ++i) worst = std::max(worst, std::fabs(rec.output()(0, i) - static_cast<double>(y[i])));
    const tolerance::Bound b = tolerance::softmax_row(a, x[0], 1.0, Precision::fp32, tolerance::Exp::glsl, 4);
    const double l_err = std::fabs(rec.l()[0] - static_cast<double>(l)) / static_cast<double>(l);
    MESSAGE(id << ": observed / limit: |y - y_ref| " << worst << " / " << b.output << ", l " << l_err << " / " << b.l);
    CHECK(worst <= b.output);
    CHECK(rec.m()[0] == static_cast<double>(m));
    CHECK(l_err <= b.l);
  }
}

TEST_CASE("logsumexp on the GPU matches a long-double reference") {
  const auto x = gpu_test::scores_with_outliers(1, 1000, 9);
  const long double lse = ref::logsumexp(x[0]);
  const Recording rec = on_gpu(softmax_of(Algorithm::logsumexp, x), false);
  const tolerance::Bound b =
      tolerance::softmax_row(Algorithm::logsumexp, x[0], 1.0, Precision::fp32, tolerance::Exp::glsl);
  MESSAGE("observed / limit: LSE " << std::fabs(rec.lse()[0] - static_cast<double>(lse)) << " / " << b.lse);
  CHECK(std::fabs(rec.lse()[0] - static_cast<double>(lse)) <= b.lse);
  for (int i = 0; i < 1000; ++i) CHECK(std::fabs(rec.output()(0, i) - static_cast<double>(x[0][i] - lse)) <= b.output);
}

TEST_CASE("tiled attention on the GPU matches a long-double reference (N = 257, d = 64)") {
  // The sample (tests/sample.h): every algorithm at one of the four (mask, scale) pairs, the
  // pair turning with the algorithm.
  const std::vector<Algorithm> algos = rows::on_gpu(rows::taking_qkv());
  for (std::size_t ai = 0; ai < algos.size(); ++ai)
    for (bool causal : {false, true})
      for (ScaleMode scale : {ScaleMode::inv_sqrt_d, ScaleMode::none}) {
        if (!sample::keeps(ai, (causal ? 2 : 0) + (scale == ScaleMode::none ? 1 : 0), 4)) continue;
        const Algorithm a = algos[ai];
        const Scenario s = attention(a, 257, 64, causal, scale);
        const Resolved r = resolve(s);
        const ref::Mat O = ref::attention(r.scenario.q, r.scenario.k, r.scenario.v, r.scale, causal);
        const Recording gpu = on_gpu(s, false);
        RecordOptions summary;
        summary.keep_steps = false;
        const Recording cpu = record(r, summary);
        double worst_gpu = 0, worst_cpu = 0;
        for (int i = 0; i < 257; ++i)
          for (int c = 0; c < 64; ++c) {
            worst_gpu = std::max(worst_gpu, std::fabs(gpu.output()(i, c) - static_cast<double>(O[i][c])));
            worst_cpu = std::max(worst_cpu, std::fabs(cpu.output()(i, c) - static_cast<double>(O[i][c])));
          }
        const std::string what = std::string(algorithm_id(a)) + (causal ? " causal" : "") +
                                 (scale == ScaleMode::none ? " unscaled" : " 1/sqrt(d)");
        const double limit_gpu = tolerance::of_run(r, tolerance::Exp::glsl).output;
        const double limit_cpu = tolerance::of_run(r, tolerance::Exp::cpu).output;
        MESSAGE(what << ": observed / limit of |O - O_ref|: GPU " << worst_gpu << " / " << limit_gpu << ", CPU fp32 "
                     << worst_cpu << " / " << limit_cpu);
        CHECK(worst_gpu <= limit_gpu);
        CHECK(worst_cpu <= limit_cpu);
      }
}

TEST_CASE("[1000, 2000, 3000]: the same NaN pattern on both backends") {
  const std::vector<std::vector<double>> x = {{1000, 2000, 3000}};
  for (Algorithm a : rows::on_gpu(rows::taking_x())) {
    const std::string id(algorithm_id(a));
    CAPTURE(id);
    Scenario s = softmax_of(a, x);
    s.chunks = 2;
    const Recording gpu = on_gpu(s);
    const Recording cpu = record(resolve(s));
    for (int i = 0; i < 3; ++i) CHECK(abs_diff(gpu.output()(0, i), cpu.output()(0, i)) == 0.0);
    const CompareReport rep = compare(cpu, gpu);
    CHECK(rep.max_abs_output_diff == 0.0);
    CHECK(rep.max_rel_l_diff == 0.0);
    CHECK(rep.mismatch == "");
    if (!info(a).has_max) {
      // e^1000 overflows fp32: every e_i and l are inf, so every y_i = inf / inf is NaN.
      CHECK(std::isinf(gpu.l()[0]));
      for (int i = 0; i < 3; ++i) CHECK(std::isnan(gpu.output()(0, i)));
      CHECK(gpu.count_nonfinite_outputs() == 3);
    } else if (info(a).stores_lse) {  // log-softmax
      CHECK(gpu.output()(0, 0) == -2000.0);
      CHECK(gpu.output()(0, 1) == -1000.0);
      CHECK(gpu.output()(0, 2) == 0.0);
    } else {
      CHECK(gpu.output()(0, 0) == 0.0);
      CHECK(gpu.output()(0, 1) == 0.0);
      CHECK(gpu.output()(0, 2) == 1.0);
    }
  }
}

TEST_CASE("fp16: naive overflows at x >= 11.1 on the GPU as on the CPU, safe stays finite") {
  const std::vector<std::vector<double>> x = {{10, 11, 11.1, 12}};
  const Recording naive = on_gpu(softmax_of(Algorithm::naive, x, Precision::fp16));
  const Recording cpu = record(resolve(softmax_of(Algorithm::naive, x, Precision::fp16)));
  const int be = naive.find_buffer("e");
  Cursor cur(naive);
  cur.seek(3);  // after pass 1: e_i = exp(x_i) rounded to fp16
  CHECK(std::isfinite(cur.value(be, 0, 0)));
  CHECK(std::isfinite(cur.value(be, 0, 1)));
  CHECK(std::isinf(cur.value(be, 0, 2)));  // 11.1 rounds to 11.1015625 in fp16; e^that > 65504
  CHECK(std::isinf(cur.value(be, 0, 3)));
  CHECK(naive.steps[2].text.find("overflow") != std::string::npos);
  CHECK(compare(cpu, naive).max_abs_output_diff == 0.0);  // the same NaN / 0 pattern
  const Recording safe = on_gpu(softmax_of(Algorithm::safe, x, Precision::fp16));
  CHECK(safe.count_nonfinite_outputs() == 0);
}

TEST_CASE("the tiled algorithms run the CPU's tiles in the CPU's order") {
  // Br = 48 and Bc = 80 divide neither N = 257 nor each other; with the causal mask some tiles
  // are skipped, and the GPU's list of the tiles it ran decides its steps.
  for (Algorithm a : rows::on_gpu(rows::where([](const AlgorithmInfo& row) { return row.takes_blocks; })))
    for (bool causal : {false, true}) {
      Scenario s = attention(a, 257, 32, causal, ScaleMode::inv_sqrt_d);
      s.block_rows = 48;
      s.block_cols = 80;
      const Recording gpu = on_gpu(s);
      const Recording cpu = record(resolve(s));
      REQUIRE(gpu.step_count() == cpu.step_count());
      for (int k = 0; k < cpu.step_count(); ++k) {
        CAPTURE(k);
        CHECK(gpu.steps[k].pass == cpu.steps[k].pass);
        CHECK(gpu.steps[k].tile_i == cpu.steps[k].tile_i);
        CHECK(gpu.steps[k].tile_j == cpu.steps[k].tile_j);
        CHECK(gpu.steps[k].label == cpu.steps[k].label);
        CHECK(gpu.steps[k].io == cpu.steps[k].io);
      }
      tolerance::check(compare(cpu, gpu), tolerance::between(resolve(s), tolerance::Exp::cpu, tolerance::Exp::glsl));
    }
}

TEST_CASE("chunked with more workers than one workgroup's invocations") {
  Scenario s = softmax_of(Algorithm::chunked, gpu_test::scores_with_outliers(2, 1000, 4));
  s.chunks = 300;  // more than the 256 invocations per workgroup: each runs two workers
  const Recording gpu = on_gpu(s);
  const Recording cpu = record(resolve(s));
  const CompareReport rep = compare(cpu, gpu);
  CHECK(rep.mismatch == "");
  tolerance::check(rep, tolerance::between(resolve(s), tolerance::Exp::cpu, tolerance::Exp::glsl));
}

TEST_CASE("a GPU Recording seeks backward and forward like a CPU one") {
  const Recording rec = on_gpu(attention(Algorithm::attn_tiled_v2, 40, 8, true, ScaleMode::inv_sqrt_d));
  Cursor cur(rec);
  for (int k : {rec.step_count() - 1, 0, rec.step_count() / 2, 1, rec.step_count() - 2}) {
    cur.seek(k);
    const State want = replay(rec, k);
    CHECK(cur.state().values == want.values);
    CHECK(cur.state().defined == want.defined);
  }
}

TEST_CASE("fp64 and oversized tiles are refused with a message that says what to change") {
  Scenario s = attention(Algorithm::attn_tiled, 64, 64, false, ScaleMode::none);
  s.precision = Precision::fp64;
  CHECK_THROWS_WITH_AS(on_gpu(s), doctest::Contains("fp64"), gpu::Unsupported);
  s.precision = Precision::fp32;
  s.block_cols = 512;
  s.n = 600;
  CHECK_THROWS_WITH_AS(on_gpu(s), doctest::Contains("shared memory"), gpu::Unsupported);
}

TEST_CASE("a shader that does not compile reports its name and the driver's log") {
  gpu_test::engine();  // a current context
  const std::string broken = "#version 430\nlayout(local_size_x = 1) in;\nvoid main() { not_a_function(1.0); }\n";
  try {
    gpu::compile_compute("broken.comp", broken);
    FAIL("a broken shader compiled");
  } catch (const gpu::GpuError& e) {
    const std::string what = e.what();
    MESSAGE(what);
    CHECK(what.find("broken.comp") != std::string::npos);
    CHECK(what.find("not_a_function") != std::string::npos);  // the driver's log names it
  }
  // An embedded shader without the block sizes it needs: the log points into the file.
  CHECK_THROWS_WITH_AS(gpu::compile_compute("attn_tiled.comp", gpu::compose_source("attn_tiled.comp", {})),
                       doctest::Contains("attn_tiled.comp"), gpu::GpuError);
  CHECK_THROWS_AS(gpu::shader_source("no_such.comp"), gpu::GpuError);
}

TEST_CASE("every embedded shader compiles on this driver") {
  gpu_test::engine();
  const gpu::Defines tile = {{"D", "16"}, {"BR", "8"}, {"BC", "24"}, {"TRACE", "1"}, {"CAUSAL", "1"}};
  struct Want {
    const char* name;
    gpu::Defines defines;
  };
  const Want all[] = {{"softmax_rows.comp", {{"MODE", "3"}, {"WITH_LSE", "1"}}},
                      {"softmax_normalize.comp", {{"MODE", "1"}}},
                      {"softmax_chunked.comp", {{"K", "3"}, {"NODES", "6"}, {"LOCAL", "3"}}},
                      {"attn_scores.comp", {{"D", "8"}}},
                      {"attn_softmax.comp", {}},
                      {"attn_pv.comp", {{"D", "8"}}},
                      {"attn_online.comp", {{"D", "8"}, {"TRACE", "1"}}},
                      {"attn_tiled.comp", tile},
                      {"attn_tiled_v2.comp", tile}};
  for (const Want& w : all) {
    CAPTURE(w.name);
    CHECK_NOTHROW(gpu::compile_compute(w.name, gpu::compose_source(w.name, w.defines)));
  }
}

// common.glsl's tile_extent: on a driver that caps loops (llvmpipe) the engine's tiled shaders
// take a tile's extent through the uniform kNoBound, so that their loops over it stay loops;
// elsewhere as min(B, left), with no such uniform.
TEST_CASE("the tiled shaders keep their tile loops rolled exactly where the driver caps loops") {
  gpu_test::engine();  // the context
  gpu::Kernels kernels;
  const bool capped = kernels.limits().loop_cap > 0;
  MESSAGE("loop cap " << kernels.limits().loop_cap);
  const gpu::Defines tile = {{"D", "16"}, {"BR", "16"}, {"BC", "16"}, {"TRACE", "0"}};
  for (const char* name : {"attn_tiled.comp", "attn_tiled_v2.comp", "attn_flash_bwd_kv.comp", "attn_flash_bwd_dq.comp"}) {
    CAPTURE(name);
    const gpu::Program& p = kernels.program(name, tile);
    CHECK((glGetUniformLocation(p.id(), "kNoBound") >= 0) == capped);
  }
}
