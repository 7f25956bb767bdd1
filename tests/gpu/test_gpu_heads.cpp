// Several heads on the GPU (`run --heads H`): every head's output against the CPU's and against
// a long-double reference written here, heads that differ from each other (a shader that ignored
// the head index would fail), batches of heads, the memory refusal at N = 65536; and the driver's
// loop cap as the start-up probe measured it.
#include "../core/reference.h"
#include "../rows.h"
#include "../sample.h"
#include "../tolerance.h"
#include "core/heads.h"
#include "core/timed_run.h"
#include "gpu_context.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

using namespace flashstep;

namespace {

std::vector<std::vector<double>> rows_of(const MatrixRM& m) {
  std::vector<std::vector<double>> out(static_cast<std::size_t>(m.rows()));
  for (Eigen::Index i = 0; i < m.rows(); ++i) out[i].assign(m.row(i).data(), m.row(i).data() + m.cols());
  return out;
}

RecordOptions summary() {
  RecordOptions opt;
  opt.keep_steps = false;
  return opt;
}

// The largest |a - b| over rows [a0, a0 + N) of a and [b0, b0 + N) of b.
double worst(const MatrixRM& a, Eigen::Index a0, const MatrixRM& b, Eigen::Index b0, Eigen::Index N) {
  return (a.middleRows(a0, N) - b.middleRows(b0, N)).cwiseAbs().maxCoeff();
}

// Each head of `gpu` (H heads stacked) against the CPU's run of the same heads and a long-double
// reference; every head but the first differs from the first by far more than the tolerance.
// `checked`, when not empty, names the heads to check (the others are not looked at).
void check_heads(const Resolved& r, int H, const Recording& gpu, const std::vector<int>& checked = {}) {
  const int N = r.n;
  REQUIRE(gpu.heads == H);
  REQUIRE(gpu.output().rows() == static_cast<Eigen::Index>(H) * N);
  REQUIRE(gpu.l().size() == static_cast<std::size_t>(H) * N);
  const Recording cpu = run_timed_heads(r, H, 1, true).rec;
  REQUIRE(cpu.output().rows() == gpu.output().rows());
  for (int h = 0; h < H; ++h) {
    if (!checked.empty() && std::find(checked.begin(), checked.end(), h) == checked.end()) continue;
    CAPTURE(h);
    const Resolved head = h == 0 ? r : resolve_head(r, h);
    const ref::Mat O = ref::attention(rows_of(head.q), rows_of(head.k), rows_of(head.v), head.scale, r.scenario.causal);
    double to_ref = 0;
    for (int i = 0; i < N; ++i)
      for (int c = 0; c < r.d; ++c)
        to_ref = std::max(to_ref, std::fabs(gpu.output()(h * N + i, c) - static_cast<double>(O[i][c])));
    const tolerance::Bound glsl = tolerance::of_run(head, tolerance::Exp::glsl);
    const tolerance::Bound both = glsl + tolerance::of_run(head, tolerance::Exp::cpu);  // CPU against GPU
    const double limit = glsl.output, between = both.output;
    const double to_cpu = worst(gpu.output(), h * N, cpu.output(), h * N, N);
    const std::string what = std::string(algorithm_id(r.scenario.algorithm)) + (r.scenario.causal ? " causal" : "");
    MESSAGE(what << ", head " << h << ": observed / limit: |O - O_ref| " << to_ref << " / " << limit
                 << ", |O_gpu - O_cpu| " << to_cpu << " / " << between);
    CHECK(to_ref <= limit);
    CHECK(to_cpu <= between);
    double l_rel = 0;
    for (int i = 0; i < N; ++i)
      l_rel = std::max(l_rel, std::fabs(gpu.l()[h * N + i] - cpu.l()[h * N + i]) / std::fabs(cpu.l()[h * N + i]));
    CHECK(l_rel <= both.l);
    if (h > 0) CHECK(worst(gpu.output(), h * N, gpu.output(), 0, N) > 100 * between);
  }
}

}  // namespace

TEST_CASE("three heads on the GPU: each equals the CPU's head and a long-double reference, and differs from the others") {
  for (Algorithm a : rows::on_gpu(rows::taking_qkv()))
    for (bool causal : {false, true}) {
      Scenario s;
      s.algorithm = a;
      s.n = 67;
      s.d = 16;
      s.causal = causal;
      s.scale_mode = ScaleMode::inv_sqrt_d;
      s.seed = 11;
      if (a == Algorithm::attn_tiled || a == Algorithm::attn_tiled_v2) {
        s.block_rows = 16;  // Tr = 5, Tc = 3: several Q and K/V blocks per head
        s.block_cols = 24;
      }
      const Resolved r = resolve(s);
      const Recording gpu = gpu_test::engine().record(r, summary(), 3);
      check_heads(r, 3, gpu);
      // Head 0 is the single-head run.
      const Recording one = gpu_test::engine().record(r, summary());
      CHECK(worst(gpu.output(), 0, one.output(), 0, r.n) == 0.0);
    }
}

TEST_CASE("heads beyond one storage buffer run in batches, each dispatch covering its heads") {
  // S of one head at N = 1500 is 8.6 MiB: llvmpipe's largest storage buffer (128 MiB) holds 14,
  // so these 16 heads take two batches there; a GPU with larger buffers runs them in one.
  Scenario s;
  s.algorithm = Algorithm::attn_naive;
  s.n = 1500;
  s.d = 4;
  s.scale_mode = ScaleMode::inv_sqrt_d;
  s.seed = 2;
  const Resolved r = resolve(s);
  // The sample (tests/sample.h): the long-double reference and bound of a head cost most of this
  // test, so it checks heads 0, 1, H − 2 and H − 1: the first batch's first two and the last
  // two, which end the last batch whatever the number of heads per batch.
  const int H = 16;
  check_heads(r, H, gpu_test::engine().record(r, summary(), H),
              sample::on() ? std::vector<int>{0, 1, H - 2, H - 1} : std::vector<int>{});
}

TEST_CASE("several heads are refused with the steps kept, and for a softmax") {
  Scenario s;
  s.algorithm = Algorithm::attn_tiled;
  s.n = 8;
  s.d = 2;
  CHECK(gpu_test::engine().unsupported(resolve(s), true, 2).find("--steps none") != std::string::npos);
  s.algorithm = Algorithm::safe;
  CHECK(gpu_test::engine().unsupported(resolve(s), false, 2).find("softmax") != std::string::npos);
}

TEST_CASE("the memory win at N = 65536, H = 16: attn-naive is refused naming 550 GB, attn-tiled-v2 is not") {
  Scenario s;
  s.algorithm = Algorithm::attn_tiled_v2;
  s.n = 65536;
  s.d = 64;
  s.scale_mode = ScaleMode::inv_sqrt_d;
  CHECK(gpu_test::engine().unsupported(resolve(s), false, 16) == "");
  s.algorithm = Algorithm::attn_naive;
  const std::string why = gpu_test::engine().unsupported(resolve(s), false, 16);
  CHECK(why.find("S and P of every head") != std::string::npos);
  CHECK(why.find("512.0 GiB (550 GB)") != std::string::npos);
}

TEST_CASE("the loop cap is measured at start-up: llvmpipe's 65535 refuses up front, a driver without one runs past it") {
  gpu::Engine& gpu = gpu_test::engine();
  const long long cap = gpu.loop_cap();
  const std::string renderer = gpu.info().renderer;
  MESSAGE(renderer << ": loop cap " << cap << " (0: none found)");
  // attn-tiled-v2 with one row per Q block and Bc = 64 at d = 64: each of the 18 tiles makes one
  // invocation load all of K_j and V_j (64 x 64 iterations) and loop over its 64 keys four times:
  // more than 65535 iterations in all, whatever the compiler unrolls.
  Scenario s;
  s.algorithm = Algorithm::attn_tiled_v2;
  s.n = 1100;
  s.d = 64;
  s.block_rows = 1;
  s.block_cols = 64;
  s.scale_mode = ScaleMode::inv_sqrt_d;
  const Resolved r = resolve(s);
  REQUIRE(gpu.unsupported(r, false) == "");
  const std::string counted = std::to_string(cap) + " iterations (measured at start-up)";
  if (cap > 0) {
    if (renderer.find("llvmpipe") != std::string::npos) CHECK(cap == 65535);
    const std::string why = gpu.exceeds_loop_cap(r);
    CHECK(why.find("ends an invocation's loops after " + counted) != std::string::npos);
    CHECK_THROWS_WITH_AS(gpu.record(r, summary()), doctest::Contains(counted.c_str()), gpu::Unsupported);
    // Just below what the count foresees, the step trace's loops may still pass the cap: then
    // the shaders' own counts refuse the run after it, never a partial result.
    s.n = 963;
    const Resolved edge = resolve(s);
    REQUIRE(gpu.exceeds_loop_cap(edge) == "");
    try {
      const Recording rec = gpu.record(edge);
      const ref::Mat O = ref::attention(rows_of(edge.q), rows_of(edge.k), rows_of(edge.v), edge.scale, false);
      double to_ref = 0;
      for (int i = 0; i < edge.n; ++i)
        for (int c = 0; c < edge.d; ++c) to_ref = std::max(to_ref, std::fabs(rec.output()(i, c) - static_cast<double>(O[i][c])));
      CHECK(to_ref <= tolerance::of_run(edge, tolerance::Exp::glsl).output);
    } catch (const gpu::Unsupported& e) {
      MESSAGE("refused after the run: " << std::string(e.what()));
      CHECK(std::string(e.what()).find("stopped before the end of its work: this driver ends an invocation's loops after " +
                                       counted) != std::string::npos);
    }
  } else {
    // No cap: the same run completes, and right.
    CHECK(gpu.exceeds_loop_cap(r) == "");
    const Recording rec = gpu.record(r, summary());
    const ref::Mat O = ref::attention(rows_of(r.q), rows_of(r.k), rows_of(r.v), r.scale, false);
    double to_ref = 0;
    for (int i = 0; i < r.n; ++i)
      for (int c = 0; c < r.d; ++c) to_ref = std::max(to_ref, std::fabs(rec.output()(i, c) - static_cast<double>(O[i][c])));
    CHECK(to_ref <= tolerance::of_run(r, tolerance::Exp::glsl).output);
  }
}
