// The recording memory estimate is close to what a recording really takes, and a recording
// above the budget is refused with the estimate in the message.
#include "core/algorithms.h"
#include "core/engine.h"

#include <doctest/doctest.h>

using namespace flashstep;

TEST_CASE("estimate_recording_bytes is within a factor of 2 of the real footprint") {
  for (Algorithm a : kAllAlgorithms) {
    for (bool causal : {false, true}) {
      if (causal && !info(a).takes_mask) continue;
      Scenario s;
      s.algorithm = a;
      s.n = takes_qkv(a) ? 40 : 300;
      s.rows = 3;
      s.d = 8;
      s.causal = causal;
      s.block_rows = 8;
      s.block_cols = 6;
      s.chunks = 5;
      CAPTURE(algorithm_id(a));
      CAPTURE(causal);
      const Resolved r = resolve(s);
      const double estimate = static_cast<double>(estimate_recording_bytes(r));
      const double real = static_cast<double>(record(r).memory_bytes());
      CHECK(estimate > 0.5 * real);
      CHECK(estimate < 2.0 * real);
    }
  }
}

TEST_CASE("a recording above the memory budget is refused with the estimate") {
  Scenario s;
  s.algorithm = Algorithm::attn_online;
  s.n = 200;
  s.d = 16;
  const Resolved r = resolve(s);
  RecordOptions opt;
  opt.memory_budget = estimate_recording_bytes(r) / 2;
  try {
    record(r, opt);
    FAIL("the recording was not refused");
  } catch (const InputError& e) {
    const std::string msg = e.what();
    CHECK(msg.find("would need") != std::string::npos);
    CHECK(msg.find("GiB") != std::string::npos);
    CHECK(msg.find("--steps none") != std::string::npos);
  }
  // A summary-only run of the same scenario is not limited by the recording budget.
  opt.keep_steps = false;
  CHECK(record(r, opt).output().rows() == 200);
}
