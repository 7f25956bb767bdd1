// NaN and −∞, in every algorithm, precision and kernel, against the plain reference of
// tests/core/nonfinite_cases.h (numpy's semantics, the rule README states). Every case runs on
// the recording engine and, where there is one (fp32), on the fast kernel. The Release build
// runs the whole table; the sanitizer suite (FLASHSTEP_TEST_SAMPLE=1: tests/sample.h) a fixed
// sample that still meets every case and every algorithm once.
#include "core/timed_run.h"
#include "tests/core/nonfinite_cases.h"
#include "tests/sample.h"

using namespace flashstep;
using namespace nonfinite;

namespace {

// The runs of one scenario: the recording, and the fast kernel where there is one.
template <class Check>
void each_kernel(const Scenario& s, Check check) {
  const Resolved r = resolve(s);
  check("recording", record(r));
  if (has_fast_kernel(r)) check("fast kernel", run_timed(r, 1, true).rec);
}

}  // namespace

TEST_CASE("non-finite softmax inputs give numpy's answer in every algorithm, precision and kernel") {
  const auto cases = softmax_cases();
  const auto algos = softmax_algos();
  int runs = 0;
  for (std::size_t ci = 0; ci < cases.size(); ++ci)
    for (std::size_t ai = 0; ai < algos.size(); ++ai)
      for (std::size_t pi = 0; pi < 4; ++pi) {
        // The sample: every case and algorithm once, the precision turning with them.
        if (!sample::keeps(ci + ai, pi, 4)) continue;
        const Precision p = kAllPrecisions[pi];
        const SoftmaxCase& c = cases[ci];
        Scenario s;
        s.algorithm = algos[ai].a;
        s.chunks = algos[ai].chunks;
        s.precision = p;
        s.x = {c.x};
        CAPTURE(c.name);
        CAPTURE(algorithm_id(s.algorithm));
        CAPTURE(s.chunks);
        CAPTURE(precision_name(p));
        each_kernel(s, [&](const std::string& kernel, const Recording& rec) {
          check_softmax(kernel, rec, c, s.algorithm, p, s.chunks);
          ++runs;
        });
      }
  CHECK(runs > 0);
}

TEST_CASE("non-finite attention scores give numpy's answer in every algorithm, precision, kernel and block size") {
  const std::vector<Algorithm> algos = rows::taking_qkv();  // every row that takes Q, K, V
  int runs = 0;
  for (std::size_t pi = 0; pi < 4; ++pi) {
    const Precision p = kAllPrecisions[pi];
    const auto cases = attention_cases(p);
    for (std::size_t ci = 0; ci < cases.size(); ++ci)
      for (std::size_t ai = 0; ai < algos.size(); ++ai)
        for (int blocks : {0, 1}) {  // derived from M, and 1 × 1 tiles
          if (!sample::keeps(ci + ai, pi, 4)) continue;
          if (blocks == 1 && !info(algos[ai]).takes_blocks) continue;
          const AttnCase& c = cases[ci];
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
          each_kernel(s, [&](const std::string& kernel, const Recording& rec) {
            check_attention(kernel, rec, c, p, info(s.algorithm).stores_lse);
            ++runs;
          });
        }
  }
  CHECK(runs > 0);
}
