// The attention engines against a long-double reference: every algorithm in every precision,
// FlashAttention-1 and -2 at N = 257, d = 64 in fp32 with and without the causal mask, the
// running (m, l, O) after every step, and the log-sum-exp FlashAttention-2 stores.
#include "core/engine.h"
#include "tests/core/reference.h"
#include "tests/core/support.h"
#include "tests/rows.h"
#include "tests/tolerance.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

using namespace flashstep;
using support::Rows;

namespace {

// Every row that takes Q, K, V, from the table.
std::vector<Algorithm> attention_algorithms() { return rows::taking_qkv(); }

Scenario attention_scenario(Algorithm a, Precision p, const support::Qkv& in, bool causal, ScaleMode mode) {
  Scenario s;
  s.algorithm = a;
  s.precision = p;
  s.q = in.q;
  s.k = in.k;
  s.v = in.v;
  s.causal = causal;
  s.scale_mode = mode;
  return s;
}

double max_error(const MatrixRM& got, const ref::Mat& want) {
  double e = 0;
  for (Eigen::Index i = 0; i < got.rows(); ++i)
    for (Eigen::Index k = 0; k < got.cols(); ++k)
      e = std::max(e, static_cast<double>(std::fabs(got(i, k) - want[i][k])));
  return e;
}

}  // namespace

TEST_CASE("every attention algorithm in every precision matches the reference, with and without the mask") {
  // N = 21 with Br = 4, Bc = 8: neither block size divides N.
  const int N = 21, d = 16;
  for (ScaleMode mode : {ScaleMode::none, ScaleMode::inv_sqrt_d}) {
    // Unscaled scores need smaller entries to stay of the same size (|s| <= 16).
    const support::Qkv in = support::attention_inputs(N, d, 7, mode == ScaleMode::none ? 0.5 : 1.0);
    const long double scale = mode == ScaleMode::none ? 1.0L : 0.25L;
    for (bool causal : {false, true}) {
      const ref::Mat want = ref::attention(in.q, in.k, in.v, scale, causal);
      for (Algorithm a : attention_algorithms())
        for (Precision p : kAllPrecisions) {
          CAPTURE(algorithm_id(a));
          CAPTURE(precision_name(p));
          CAPTURE(causal);
          CAPTURE(scale_name(mode, 1.0));
          Scenario s = attention_scenario(a, p, in, causal, mode);
          s.block_rows = 4;
          s.block_cols = 8;
          const Resolved r = resolve(s);
          const Recording rec = record(r);
          REQUIRE(rec.output().rows() == N);
          REQUIRE(rec.output().cols() == d);
          CHECK(max_error(rec.output(), want) <= tolerance::of_run(r, tolerance::Exp::cpu).output);
          for (int i = 0; i < N; ++i) {
            CAPTURE(i);
            const ref::RowStats st = ref::row_stats(ref::scores(in.q, in.k, i, scale, causal));
            const tolerance::Bound b =
                tolerance::attention_row(a, r.q, r.k, r.v, i, r.scale, causal, r.Tc, p, tolerance::Exp::cpu);
            CHECK(std::fabs(rec.m()[i] - st.m) <= b.m * std::max(1.0L, std::fabs(st.m)));
            CHECK(std::fabs(rec.l()[i] - st.l) <= b.l * st.l);
            if (a == Algorithm::attn_tiled_v2) CHECK(std::fabs(rec.lse()[i] - st.lse) <= b.lse);
          }
        }
    }
  }
}

TEST_CASE("FlashAttention-1 and -2 equal the reference and attn-naive in fp32 at N = 257, d = 64") {
  const int N = 257, d = 64;
  struct Blocks {
    int Br, Bc, M;  // M: SRAM budget when Br and Bc are 0
    int want_Br, want_Bc;
  };
  // None of these divides 257. M = 16384 and M = 5000 go through the rule Bc = ceil(M / 4d),
  // Br = min(Bc, d); Br = 32 > Bc = 16 gives causal tiles where whole rows are masked.
  const Blocks blocks[] = {
      {16, 32, 0, 16, 32}, {32, 16, 0, 32, 16}, {0, 0, 16384, 64, 64}, {0, 0, 5000, 20, 20}};
  for (ScaleMode mode : {ScaleMode::none, ScaleMode::inv_sqrt_d}) {
    // Entries of size 0.4 keep unscaled scores near those of the scaled case (|s| <= ~10): the
    // test then measures the algorithm, not how fp32 rounds a score of 30 (see the next case).
    const support::Qkv in = support::attention_inputs(N, d, 3, mode == ScaleMode::none ? 0.4 : 1.0);
    const long double scale = mode == ScaleMode::none ? 1.0L : 0.125L;
    for (bool causal : {false, true}) {
      CAPTURE(scale_name(mode, 1.0));
      CAPTURE(causal);
      const ref::Mat want = ref::attention(in.q, in.k, in.v, scale, causal);
      auto bound = [&](const Scenario& sc) { return tolerance::of_run(resolve(sc), tolerance::Exp::cpu); };
      auto run = [&](Algorithm a) {
        return record(attention_scenario(a, Precision::fp32, in, causal, mode), RecordOptions{false});
      };
      const Recording naive = run(Algorithm::attn_naive);
      const tolerance::Bound b_naive = bound(attention_scenario(Algorithm::attn_naive, Precision::fp32, in, causal, mode));
      CHECK(max_error(naive.output(), want) <= b_naive.output);
      CHECK(max_error(run(Algorithm::attn_online).output(), want) <=
            bound(attention_scenario(Algorithm::attn_online, Precision::fp32, in, causal, mode)).output);
      for (const Blocks& b : blocks)
        for (Algorithm a : {Algorithm::attn_tiled, Algorithm::attn_tiled_v2}) {
          CAPTURE(algorithm_id(a));
          CAPTURE(b.Br);
          CAPTURE(b.Bc);
          CAPTURE(b.M);
          Scenario s = attention_scenario(a, Precision::fp32, in, causal, mode);
          s.block_rows = b.Br;
          s.block_cols = b.Bc;
          s.sram = b.M;
          const Recording rec = record(s, RecordOptions{false});
          const tolerance::Bound tol = bound(s);
          CHECK(rec.Br == b.want_Br);
          CHECK(rec.Bc == b.want_Bc);
          CHECK(max_error(rec.output(), want) <= tol.output);
          double vs_naive = 0;
          for (Eigen::Index i = 0; i < rec.output().size(); ++i)
            vs_naive = std::max(vs_naive, std::fabs(rec.output().data()[i] - naive.output().data()[i]));
          CHECK(vs_naive <= tol.output + b_naive.output);
          if (a == Algorithm::attn_tiled_v2) {
            for (int i = 0; i < N; ++i) {
              const ref::RowStats st = ref::row_stats(ref::scores(in.q, in.k, i, scale, causal));
              CHECK(std::fabs(rec.lse()[i] - st.lse) <= tol.lse);
            }
          }
        }
    }
  }
}

TEST_CASE("fp32 with unscaled standard-normal inputs is limited by the rounding of large scores") {
  // The seed's N(0, 1) inputs at d = 64 without a scale give scores up to ~40, where one fp32
  // ulp is 4e-6: the scores' rounding (point 3 of tests/tolerance.h) dominates the bound, and
  // two summation orders of the same dot product (Eigen's GEMV in attn-naive, its GEMM in the
  // tiles) may differ by the sum of their bounds.
  Scenario s;
  s.precision = Precision::fp32;
  s.n = 257;
  s.d = 64;
  s.seed = 2;
  s.block_rows = 16;
  s.block_cols = 32;
  for (bool causal : {false, true}) {
    CAPTURE(causal);
    s.causal = causal;
    s.algorithm = Algorithm::attn_naive;
    const Resolved r = resolve(s);
    const ref::Mat want = ref::attention(r.scenario.q, r.scenario.k, r.scenario.v, 1.0L, causal);
    const double b_naive = tolerance::of_run(r, tolerance::Exp::cpu).output;
    const Recording naive = record(r, RecordOptions{false});
    CHECK(max_error(naive.output(), want) <= b_naive);
    for (Algorithm a : {Algorithm::attn_online, Algorithm::attn_tiled, Algorithm::attn_tiled_v2}) {
      CAPTURE(algorithm_id(a));
      s.algorithm = a;
      const Resolved ra = resolve(s);
      const double b = tolerance::of_run(ra, tolerance::Exp::cpu).output;
      const MatrixRM O = record(ra, RecordOptions{false}).output();
      MESSAGE(algorithm_id(a) << (causal ? " causal" : "") << ": observed / limit " << max_error(O, want) << " / " << b);
      CHECK(max_error(O, want) <= b);
      CHECK((O - naive.output()).cwiseAbs().maxCoeff() <= b + b_naive);
    }
  }
}

TEST_CASE("attn-online: after each key, m, l and o are those of the keys seen so far") {
  const int N = 9, d = 4;
  const support::Qkv in = support::attention_inputs(N, d, 17, 1.0);
  for (bool causal : {false, true}) {
    CAPTURE(causal);
    const Recording rec =
        record(attention_scenario(Algorithm::attn_online, Precision::fp64, in, causal, ScaleMode::inv_sqrt_d));
    const int bS = rec.find_buffer("S"), bacc = rec.find_buffer("O_acc");
    REQUIRE(bS >= 0);
    REQUIRE(bacc >= 0);
    Cursor cur(rec);
    std::vector<int> keys(N, 0);
    for (int k = 0; k < rec.step_count(); ++k) {
      const Step& st = rec.steps[k];
      if (st.line != 4) continue;  // the per-key update, not the final O_i = o / l
      const int i = st.row, j = keys[i]++;
      CAPTURE(i);
      CAPTURE(j);
      cur.seek(k);
      const ref::Vec s = ref::scores(in.q, in.k, i, 0.5L, causal);
      const ref::RowStats want = ref::row_stats(s, j + 1);
      CHECK(cur.value(bS, i, j) == doctest::Approx(s[j]).epsilon(1e-13));
      CHECK(support::buffer_at(rec, cur, "m", i) == doctest::Approx(want.m).epsilon(1e-13));
      CHECK(support::buffer_at(rec, cur, "l", i) == doctest::Approx(want.l).epsilon(1e-13));
      // o = sum over the keys so far of exp(s_j - m) v_j, not yet divided by l.
      for (int c = 0; c < d; ++c) {
        long double o = 0;
        for (int jj = 0; jj <= j; ++jj) o += std::exp(s[jj] - want.m) * in.v[jj][c];
        CHECK(std::fabs(cur.value(bacc, i, c) - o) <= 4e-13 * want.l);
      }
    }
    for (int i = 0; i < N; ++i) CHECK(keys[i] == (causal ? i + 1 : N));
  }
}

TEST_CASE("tiles: after tile (i, j), rows of Q block i hold m, l (and O) of the keys of blocks 1..j") {
  // FlashAttention-1 writes O_i normalised after every tile; FlashAttention-2 keeps it
  // unnormalised on chip (O_acc) and divides once at the end.
  const int N = 13, d = 4, Br = 3, Bc = 5;
  const support::Qkv in = support::attention_inputs(N, d, 23, 1.0);
  for (Algorithm a : {Algorithm::attn_tiled, Algorithm::attn_tiled_v2})
    for (bool causal : {false, true}) {
      CAPTURE(algorithm_id(a));
      CAPTURE(causal);
      Scenario s = attention_scenario(a, Precision::fp64, in, causal, ScaleMode::inv_sqrt_d);
      s.block_rows = Br;
      s.block_cols = Bc;
      const Recording rec = record(s);
      const bool v2 = a == Algorithm::attn_tiled_v2;
      const int bo = rec.find_buffer(v2 ? "O_acc" : "O");
      REQUIRE(bo >= 0);
      Cursor cur(rec);
      int tiles = 0;
      for (int k = 0; k < rec.step_count(); ++k) {
        const Step& st = rec.steps[k];
        if (st.tile_j < 0) continue;  // FlashAttention-2's closing step of a Q block
        ++tiles;
        cur.seek(k);
        const int keys = std::min(N, (st.tile_j + 1) * Bc);
        for (int i = st.tile_i * Br; i < std::min(N, (st.tile_i + 1) * Br); ++i) {
          CAPTURE(st.tile_i);
          CAPTURE(st.tile_j);
          CAPTURE(i);
          const ref::Vec sc = ref::scores(in.q, in.k, i, 0.5L, causal);
          const ref::RowStats want = ref::row_stats(sc, keys);
          CHECK(support::buffer_at(rec, cur, "m", i) == doctest::Approx(want.m).epsilon(1e-13));
          CHECK(support::buffer_at(rec, cur, "l", i) == doctest::Approx(want.l).epsilon(1e-13));
          for (int c = 0; c < d; ++c) {
            long double o = 0;
            for (int j = 0; j < keys; ++j)
              if (sc[j] != -INFINITY) o += std::exp(sc[j] - want.m) * in.v[j][c];
            if (!v2) o /= want.l;
            CHECK(std::fabs(cur.value(bo, i, c) - o) <= 4e-12 * (v2 ? want.l : 1.0L));
          }
        }
      }
      CHECK(tiles > 0);
    }
}

TEST_CASE("a numeric scale (1/temperature) multiplies every attention score") {
  const support::Qkv in = support::attention_inputs(11, 8, 29, 1.0);
  const ref::Mat want = ref::attention(in.q, in.k, in.v, 0.3L, false);
  for (Algorithm a : attention_algorithms()) {
    CAPTURE(algorithm_id(a));
    Scenario s = attention_scenario(a, Precision::fp64, in, false, ScaleMode::value);
    s.scale_value = 0.3;
    s.block_rows = 3;
    s.block_cols = 4;
    CHECK(max_error(record(s).output(), want) <= tolerance::of_run(resolve(s), tolerance::Exp::cpu).output);
  }
}
