// The IO formulas (core/io_model.h) and the engines' running counts describe the same model:
// they must agree exactly, for every algorithm, shape, scale and mask.
#include "core/algorithms.h"
#include "core/engine.h"
#include "core/io_model.h"

#include <doctest/doctest.h>

using namespace flashstep;

TEST_CASE("expected_io equals what every engine counts") {
  for (Algorithm a : kAllAlgorithms) {
    for (int n : {1, 5, 13, 33}) {
      for (bool scaled : {false, true}) {
        for (bool causal : {false, true}) {
          if (causal && !info(a).takes_mask) continue;
          Scenario s;
          s.algorithm = a;
          s.n = n;
          s.d = 3;
          s.rows = 2;
          s.seed = static_cast<std::uint64_t>(n);
          s.causal = causal;
          s.scale_mode = scaled ? ScaleMode::inv_sqrt_d : ScaleMode::none;
          s.chunks = std::min(n, 3);
          s.block_rows = 4;
          s.block_cols = 3;
          CAPTURE(algorithm_id(a));
          CAPTURE(n);
          CAPTURE(scaled);
          CAPTURE(causal);
          const Resolved r = resolve(s);
          const IoCounters want = expected_io(r);
          const IoCounters got = record(r, RecordOptions{false}).io;
          CHECK(got.hbm_reads == want.hbm_reads);
          CHECK(got.hbm_writes == want.hbm_writes);
          CHECK(got.sram_reads == want.sram_reads);
          CHECK(got.sram_writes == want.sram_writes);
          CHECK(got.flops == want.flops);
          CHECK(got.exps == want.exps);
        }
      }
    }
  }
}
