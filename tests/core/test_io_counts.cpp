// The IO model: the HBM reads and writes of every engine equal the table of issue 2 (the
// FlashAttention and online-softmax papers' analyses) exactly, for several shapes and block
// sizes, and a summary-only run counts, computes and reports the same as a full one.
#include "core/engine.h"
#include "tests/core/support.h"
#include "tests/rows.h"

#include <doctest/doctest.h>

#include <algorithm>

using namespace flashstep;

namespace {

using u64 = std::uint64_t;

u64 ceil_div(u64 a, u64 b) { return (a + b - 1) / b; }

Recording softmax_run(Algorithm a, int rows, int n, bool keep_steps) {
  Scenario s;
  s.algorithm = a;
  s.rows = rows;
  s.n = n;
  s.seed = 77;
  s.chunks = std::min(n, 3);
  return record(s, RecordOptions{keep_steps});
}

struct Shape {
  int N, d;
  int Br, Bc, M;  // given block sizes (0: from M), M = 0: the default budget
};

Recording attention_run(Algorithm a, const Shape& sh, bool causal, bool keep_steps) {
  Scenario s;
  s.algorithm = a;
  s.n = sh.N;
  s.d = sh.d;
  s.seed = 78;
  s.block_rows = sh.Br;
  s.block_cols = sh.Bc;
  s.sram = sh.M;
  s.causal = causal;
  return record(s, RecordOptions{keep_steps});
}

// Br and Bc as the paper sets them from M (Bc = ceil(M / 4d), Br = min(Bc, d)), unless given,
// and never more than N.
void block_sizes(const Shape& sh, u64& Br, u64& Bc) {
  const u64 M = sh.M > 0 ? static_cast<u64>(sh.M) : static_cast<u64>(kDefaultSram);
  const u64 d = static_cast<u64>(sh.d), N = static_cast<u64>(sh.N);
  Bc = sh.Bc > 0 ? static_cast<u64>(sh.Bc) : ceil_div(M, 4 * d);
  Br = sh.Br > 0 ? static_cast<u64>(sh.Br) : std::min(ceil_div(M, 4 * d), d);
  Br = std::min(Br, N);
  Bc = std::min(Bc, N);
}

// Shapes with and without given block sizes; in most, N is not a multiple of Br or Bc.
const Shape kShapes[] = {
    {64, 16, 0, 0, 1024},   // Bc = 16, Br = 16
    {100, 8, 0, 0, 300},    // Bc = 10, Br = 8
    {257, 64, 0, 0, 0},     // the default M = 16384: Bc = Br = 64
    {200, 32, 0, 0, 2000},  // Bc = 16, Br = 16
    {33, 4, 5, 7, 0},       // given
    {10, 3, 16, 16, 0},     // given, larger than N: clamped to 10
    {1, 1, 0, 0, 0},
};

}  // namespace

TEST_CASE("softmax HBM traffic: naive 2n reads / n writes, safe 3n / n, online 2n / n") {
  for (int rows : {1, 3})
    for (int n : {1, 7, 64, 1000}) {
      CAPTURE(rows);
      CAPTURE(n);
      const u64 rn = static_cast<u64>(rows) * static_cast<u64>(n);
      struct Want {
        Algorithm a;
        u64 reads, writes, exps;
      };
      // Every pass reads x once; only the output is written. exp() is called once per element
      // in each pass that uses it, twice in the online pass (the rescale factor and the term).
      const Want wants[] = {
          {Algorithm::naive, 2 * rn, rn, 2 * rn},
          {Algorithm::safe, 3 * rn, rn, 2 * rn},
          {Algorithm::online, 2 * rn, rn, 3 * rn},
          {Algorithm::logsumexp, 2 * rn, rn, 2 * rn},
          {Algorithm::chunked, 2 * rn, rn, 0},
      };
      rows::covers(wants, rows::taking_x(), [](const Want& w) { return w.a; });  // every softmax row
      for (const Want& w : wants) {
        CAPTURE(algorithm_id(w.a));
        const Recording rec = softmax_run(w.a, rows, n, false);
        CHECK(rec.io.hbm_reads == w.reads);
        CHECK(rec.io.hbm_writes == w.writes);
        if (w.exps > 0) CHECK(rec.io.exps == w.exps);
        CHECK(rec.io.flops > 0);
      }
    }
}

TEST_CASE("attention HBM traffic matches the FlashAttention analysis for several N, d and M") {
  for (const Shape& sh : kShapes) {
    u64 Br = 0, Bc = 0;
    block_sizes(sh, Br, Bc);
    const u64 N = static_cast<u64>(sh.N), d = static_cast<u64>(sh.d);
    const u64 Nd = N * d, Tr = ceil_div(N, Br), Tc = ceil_div(N, Bc);
    CAPTURE(N);
    CAPTURE(d);
    CAPTURE(Br);
    CAPTURE(Bc);
    struct Want {
      Algorithm a;
      u64 reads, writes;
    };
    const Want wants[] = {
        // S and P are written to and read back from HBM: Θ(Nd + N²).
        {Algorithm::attn_naive, 3 * Nd + 2 * N * N, 2 * N * N + Nd},
        // q_i once per row, k_j and v_j once per (i, j); only O is written.
        {Algorithm::attn_online, Nd + 2 * N * Nd, Nd},
        // K_j, V_j once; Q_i, O_i, l_i, m_i read and O_i, l_i, m_i written for every j.
        {Algorithm::attn_tiled, 2 * Nd + Tc * (2 * Nd + 2 * N), Tc * (Nd + 2 * N)},
        // Q_i once; K_j, V_j for every i; O and L written once.
        {Algorithm::attn_tiled_v2, Nd + Tr * 2 * Nd, Nd + N},
        // attn-naive's forward, then P read twice (dV, dS), dP and dS written and read back, dS
        // twice more (dQ, dK), dO, O, V, K, Q once each, D written and read: Θ(Nd + N²).
        {Algorithm::attn_backward, 3 * Nd + 2 * N * N + 5 * N * N + 7 * Nd + N, 2 * N * N + Nd + 2 * N * N + 3 * Nd + N},
        // FA-2's forward, then D from dO and O; K_j, V_j once; Q_i, dO_i, dQ_i, L_i, D_i for every
        // j, and dQ_i written back for every j; dK, dV and D written once.
        {Algorithm::attn_flash_backward, Nd + Tr * 2 * Nd + 2 * Nd + 2 * Nd + Tc * (3 * Nd + 2 * N),
         Nd + N + N + Tc * Nd + 2 * Nd},
    };
    rows::covers(wants, rows::taking_qkv(), [](const Want& w) { return w.a; });  // every attention row
    for (const Want& w : wants) {
      CAPTURE(algorithm_id(w.a));
      const Recording rec = attention_run(w.a, sh, false, false);
      if (info(w.a).takes_blocks) {
        CHECK(static_cast<u64>(rec.Br) == Br);
        CHECK(static_cast<u64>(rec.Bc) == Bc);
        CHECK(static_cast<u64>(rec.Tr) == Tr);
        CHECK(static_cast<u64>(rec.Tc) == Tc);
      }
      CHECK(rec.io.hbm_reads == w.reads);
      CHECK(rec.io.hbm_writes == w.writes);
      CHECK(rec.io.flops > 0);
      CHECK(rec.io.exps > 0);
    }
  }
}

TEST_CASE("tiling keeps S and P on chip: the tiled algorithms move far less than attn-naive") {
  // N = 1024, d = 64, M = 16384: Tc = Tr = 16. Naive moves 2N² of S and P; FlashAttention-1
  // moves ~Tc N d and FlashAttention-2 ~Tr N d; their S and P traffic is counted in SRAM.
  const Shape sh{1024, 64, 0, 0, 16384};
  const Recording naive = attention_run(Algorithm::attn_naive, sh, false, false);
  const Recording v1 = attention_run(Algorithm::attn_tiled, sh, false, false);
  const Recording v2 = attention_run(Algorithm::attn_tiled_v2, sh, false, false);
  CHECK(v1.io.hbm_accesses() < naive.io.hbm_accesses());
  CHECK(v2.io.hbm_accesses() < v1.io.hbm_accesses());
  CHECK(v1.io.sram_reads > 0);
  CHECK(v1.io.sram_writes > 0);
  CHECK(v2.io.sram_reads > 0);
  CHECK(v2.io.sram_writes > 0);
}

TEST_CASE("a summary-only run gives the same output, m, l and IO totals as a full run") {
  auto check_same = [](const Recording& full, const Recording& summary) {
    CHECK(full.keep_steps);
    CHECK_FALSE(summary.keep_steps);
    CHECK(summary.step_count() == 0);
    CHECK(summary.deltas.empty());
    CHECK(summary.keyframes.empty());
    CHECK(full.step_count() > 0);
    CHECK(support::same_matrix(full.output(), summary.output()));
    CHECK(support::same_vector(full.m(), summary.m()));
    CHECK(support::same_vector(full.l(), summary.l()));
    CHECK(support::same_vector(full.lse(), summary.lse()));
    CHECK(full.io == summary.io);
    // The counters a full run stamps on its last step are the totals.
    CHECK(full.steps.back().io == full.io);
  };
  for (Algorithm a : kAllAlgorithms) {
    CAPTURE(algorithm_id(a));
    if (takes(a, kInputX)) {
      for (int n : {1, 9, 40}) {
        CAPTURE(n);
        check_same(softmax_run(a, 3, n, true), softmax_run(a, 3, n, false));
      }
      continue;
    }
    for (const Shape& sh : {Shape{33, 4, 5, 7, 0}, Shape{40, 8, 0, 0, 300}, Shape{1, 1, 0, 0, 0}})
      for (bool causal : {false, true}) {
        CAPTURE(sh.N);
        CAPTURE(causal);
        check_same(attention_run(a, sh, causal, true), attention_run(a, sh, causal, false));
      }
  }
}

TEST_CASE("IO counters only grow from step to step") {
  for (Algorithm a : kAllAlgorithms) {
    CAPTURE(algorithm_id(a));
    const Recording rec = takes_qkv(a) ? attention_run(a, Shape{17, 4, 3, 5, 0}, true, true)
                                       : softmax_run(a, 2, 11, true);
    for (int k = 1; k < rec.step_count(); ++k) {
      const IoCounters& before = rec.steps[k - 1].io;
      const IoCounters& after = rec.steps[k].io;
      CHECK(before.hbm_reads <= after.hbm_reads);
      CHECK(before.hbm_writes <= after.hbm_writes);
      CHECK(before.sram_reads <= after.sram_reads);
      CHECK(before.sram_writes <= after.sram_writes);
      CHECK(before.flops <= after.flops);
      CHECK(before.exps <= after.exps);
    }
  }
}

TEST_CASE("chunked: a worker's running m and l stay in registers and only its final pair is written to SRAM") {
  // io_counters.h: scalars kept in registers are not counted; an on-chip intermediate is written
  // once. Each of the n_w workers writes its chunk's (m, l) once (2 writes) and each merge of the
  // tree writes its (m, l) once: n_w = 4 merges (1,2) (3,4) then the two results, 3 merges;
  // n_w = 3 merges (1,2), carries 3 up, then merges the two, 3 nodes; n_w = 1 has no merge.
  struct Want {
    int n, chunks;
    u64 writes_per_row;
  };
  for (const Want& w : {Want{12, 4, 2 * 4 + 2 * 3}, Want{12, 3, 2 * 3 + 2 * 3}, Want{5, 1, 2}, Want{40, 4, 2 * 4 + 2 * 3}}) {
    for (bool keep_steps : {false, true}) {
      CAPTURE(w.n);
      CAPTURE(w.chunks);
      Scenario s;
      s.algorithm = Algorithm::chunked;
      s.rows = 2;
      s.n = w.n;
      s.chunks = w.chunks;
      s.seed = 79;
      const Recording rec = record(s, RecordOptions{keep_steps});
      CHECK(rec.io.sram_writes == 2 * w.writes_per_row);  // the same for any n
    }
  }
}
