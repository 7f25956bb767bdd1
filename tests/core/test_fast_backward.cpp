// The backward rows' fast fp32 kernels (core/fast_backward.h, behind `run --steps none`) against
// the analytic long-double loops, within the bounds of tests/tolerance.h; their results named as
// the recording engine names them; the flash kernel's dQ the same on every run.
#include "core/engine.h"
#include "core/timed_run.h"
#include "tests/core/backward_reference.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

using namespace flashstep;
using namespace backward_reference;

TEST_CASE("backward: the fast fp32 kernels (--steps none) equal the analytic long-double loops, and report what the recording does") {
  struct Shape {
    int N, d, Br, Bc;
  };
  for (const Shape sh : {Shape{37, 8, 5, 7}, Shape{64, 16, 16, 8}, Shape{200, 32, 64, 48}})
    for (Algorithm a : backward_rows())
      for (bool causal : {false, true}) {
        Scenario s = backward_scenario(a, Precision::fp32, sh.N, sh.d, 9, causal, ScaleMode::inv_sqrt_d);
        s.block_rows = sh.Br, s.block_cols = sh.Bc;
        const Resolved r = resolve(s);
        CAPTURE(std::string(algorithm_id(a)));
        CAPTURE(causal);
        CAPTURE(sh.N);
        REQUIRE(has_fast_kernel(r));
        const TimedRun run = run_timed(r, 1, /*keep_output=*/true);
        CHECK(run.kernel == "fast");
        const Grads want = analytic(to_l(r.q), to_l(r.k), to_l(r.v), to_l(r.d_o), r.scale, causal);
        check_grads(run.rec, r, want, tolerance::attention_grads(r, tolerance::Exp::cpu));
        // The same results as the recording engine's summary, by name and group, in the same order.
        RecordOptions none;
        none.keep_steps = false;
        const Recording ref = record(r, none);
        REQUIRE(run.rec.results.matrices.size() == ref.results.matrices.size());
        for (std::size_t k = 0; k < ref.results.matrices.size(); ++k) {
          CHECK(run.rec.results.matrices[k].name == ref.results.matrices[k].name);
          CHECK(run.rec.results.matrices[k].group == ref.results.matrices[k].group);
        }
        std::vector<std::string> got_rows, ref_rows;
        for (const RowResult& x : run.rec.results.rows) got_rows.push_back(x.name);
        for (const RowResult& x : ref.results.rows) ref_rows.push_back(x.name);
        std::sort(got_rows.begin(), got_rows.end());
        std::sort(ref_rows.begin(), ref_rows.end());
        CHECK(got_rows == ref_rows);
        CHECK(run.rec.io == ref.io);
      }
}

TEST_CASE("flash backward: the fast kernel's dQ is the same on every run, whatever the threads' timing") {
  Scenario s = backward_scenario(Algorithm::attn_flash_backward, Precision::fp32, 300, 16, 4, true, ScaleMode::inv_sqrt_d);
  s.block_rows = 32, s.block_cols = 16;
  const Resolved r = resolve(s);
  const TimedRun first = run_timed(r, 1, true);
  for (int k = 0; k < 5; ++k) {
    const TimedRun again = run_timed(r, 1, true);
    CHECK(grad(again.rec, "dq") == grad(first.rec, "dq"));
    CHECK(grad(again.rec, "dk") == grad(first.rec, "dk"));
  }
}
