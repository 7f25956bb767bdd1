// The working memory the fast kernels report (core/workspace.h), against what each algorithm
// must hold, worked out here: naive attention holds S and P, 2·N² floats, so it grows 4× when N
// doubles; the tiled loops hold per-thread tiles whose size does not depend on N.
#include "core/timed_run.h"
#include "core/workspace.h"

#include <doctest/doctest.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include <cstdint>

using namespace flashstep;

namespace {

std::int64_t workspace_of(Algorithm a, int N, int d, int B) {
  Scenario s;
  s.algorithm = a;
  s.n = N;
  s.d = d;
  s.block_rows = s.block_cols = B;
  const TimedRun run = run_timed(resolve(s), 1, false);
  REQUIRE(run.kernel == "fast");
  return run.peak_bytes;
}

int max_threads() {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

}  // namespace

TEST_CASE("workspace: naive attention holds S and P, exactly 2·N² floats, so it grows as N²") {
  for (int N : {64, 256, 512, 1024}) {
    CAPTURE(N);
    const std::int64_t want = 2LL * N * N * static_cast<std::int64_t>(sizeof(float));
    CHECK(workspace_of(Algorithm::attn_naive, N, 16, 32) == want);
  }
  const double ratio = static_cast<double>(workspace_of(Algorithm::attn_naive, 1024, 16, 32)) /
                       static_cast<double>(workspace_of(Algorithm::attn_naive, 512, 16, 32));
  CHECK(ratio == 4.0);
}

TEST_CASE("workspace: the tiled loops hold their tiles per thread, the same for every N") {
  const int d = 16, B = 32;
  // FlashAttention-2: Q_i and O_i (Br × d), S_ij (Br × Bc), m_i, l_i and the tile's row maxima
  // (Br), and K_j (Bc × d) repacked for the micro-kernels (d = 16 is a whole number of vectors on
  // every ISA) per thread, and the count of keys each row of a partial tile sees and of each row
  // of the tile (2 · Br ints).
  const std::int64_t v2_tile = (2LL * B * d + 1LL * B * B + 3LL * B + 1LL * B * d) * static_cast<std::int64_t>(sizeof(float)) +
                               2LL * B * static_cast<std::int64_t>(sizeof(int));
  // FlashAttention-1: S_ij (Br × Bc), P̃_ij V_j (Br × d), m̃ and l̃ (Br), the packed K_j and the
  // two counts of keys per thread; m and l of every row are the caller's outputs.
  const std::int64_t v1_tile = (1LL * B * B + 1LL * B * d + 2LL * B + 1LL * B * d) * static_cast<std::int64_t>(sizeof(float)) +
                               2LL * B * static_cast<std::int64_t>(sizeof(int));
  for (const auto& kernel : {std::pair{Algorithm::attn_tiled_v2, v2_tile}, std::pair{Algorithm::attn_tiled, v1_tile}}) {
    const Algorithm a = kernel.first;
    const std::int64_t tile = kernel.second;
    CAPTURE(algorithm_id(a));
    const std::int64_t small = workspace_of(a, 256, d, B);
    CHECK(small >= tile);
    CHECK(small <= tile * max_threads());
    CHECK(small % tile == 0);  // whole sets of tiles, one per thread
    for (int N : {512, 1024, 2048}) {
      CAPTURE(N);
      const std::int64_t w = workspace_of(a, N, d, B);
      CHECK(w >= tile);
      CHECK(w <= tile * max_threads());  // flat: bounded by the threads, not by N
    }
  }
}

TEST_CASE("workspace: a hold counts while it lives and the peak keeps the largest total") {
  const std::int64_t base = Workspace::current();
  Workspace::reset_peak();
  {
    const Workspace::Hold a(1000);
    {
      const Workspace::Hold b(500);
      CHECK(Workspace::current() == base + 1500);
    }
    CHECK(Workspace::current() == base + 1000);
  }
  CHECK(Workspace::current() == base);
  CHECK(Workspace::peak() == base + 1500);
}
