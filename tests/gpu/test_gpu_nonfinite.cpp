// NaN and −∞ on the GPU shaders: the cases of tests/core/nonfinite_cases.h, each case and
// algorithm once (the precision turning with them, fp64 being CPU-only), with the trace
// (--steps all) and without (--steps none), against the same plain reference as the CPU table.
// The shaders test NaN and −∞ on the bits; a driver that folds isnan() away or whose max()
// drops a NaN fails here.
#include "gpu_context.h"
#include "tests/core/nonfinite_cases.h"

using namespace flashstep;
using namespace nonfinite;

namespace {

constexpr Precision kGpuPrecisions[] = {Precision::fp32, Precision::fp16, Precision::bf16};

using gpu_test::on_gpu;

}  // namespace

TEST_CASE("non-finite softmax inputs on the GPU give numpy's answer, every case and algorithm once") {
  const auto cases = softmax_cases();
  std::vector<SoftmaxAlgo> algos;  // the softmax rows with a GPU engine
  for (const SoftmaxAlgo& a : softmax_algos())
    if (info(a.a).gpu) algos.push_back(a);
  REQUIRE(!algos.empty());
  int runs = 0;
  for (std::size_t ci = 0; ci < cases.size(); ++ci)
    for (std::size_t ai = 0; ai < algos.size(); ++ai) {
      const Precision p = kGpuPrecisions[(ci + ai) % 3];
      Scenario s;
      s.algorithm = algos[ai].a;
      s.chunks = algos[ai].chunks;
      s.precision = p;
      s.x = {cases[ci].x};
      CAPTURE(cases[ci].name);
      CAPTURE(algorithm_id(s.algorithm));
      CAPTURE(s.chunks);
      CAPTURE(precision_name(p));
      for (bool steps : {true, false}) {
        check_softmax(steps ? "GPU, steps all" : "GPU, steps none", on_gpu(s, steps), cases[ci], s.algorithm, p,
                      s.chunks, tolerance::Exp::glsl);
        ++runs;
      }
    }
  CHECK(runs == static_cast<int>(cases.size() * algos.size() * 2));
}

TEST_CASE("non-finite attention scores on the GPU give numpy's answer, every case and algorithm once") {
  const std::vector<Algorithm> algos = rows::on_gpu(rows::taking_qkv());
  int runs = 0;
  const std::size_t case_count = attention_cases(Precision::fp32).size();
  for (std::size_t ci = 0; ci < case_count; ++ci)
    for (std::size_t ai = 0; ai < algos.size(); ++ai) {
      const Precision p = kGpuPrecisions[(ci + ai) % 3];
      const AttnCase c = attention_cases(p)[ci];
      for (int blocks : {0, 1}) {
        if (blocks == 1 && !info(algos[ai]).takes_blocks) continue;
        Scenario s;
        s.algorithm = algos[ai];
        s.precision = p;
        s.q = c.q, s.k = c.k, s.v = c.v;
        s.d = static_cast<int>(c.q[0].size());
        s.n = static_cast<int>(c.q.size());
        s.causal = c.causal;
        s.block_rows = s.block_cols = blocks;
        CAPTURE(c.name);
        CAPTURE(algorithm_id(s.algorithm));
        CAPTURE(precision_name(p));
        CAPTURE(blocks);
        for (bool steps : {true, false}) {
          check_attention(steps ? "GPU, steps all" : "GPU, steps none", on_gpu(s, steps), c, p,
                          info(s.algorithm).stores_lse);
          ++runs;
        }
      }
    }
  CHECK(runs > 0);
}
