// The backward rows (attn-backward, attn-flash-backward) against independent references written
// here: central differences of a long-double forward for small N, analytic long-double loops for
// larger N; fp64 and fp32 with the bounds of tests/tolerance.h; causal and not, scaled and not,
// Br ≠ Bc and N a multiple of neither; the flash backward against the standard one; a row with
// no finite score; D's two sums; dO given and refused.
#include "core/algorithms.h"
#include "core/engine.h"
#include "core/heads.h"
#include "core/io_model.h"
#include "core/mask.h"
#include "core/narration_backward.h"
#include "core/recorder.h"
#include "core/scenario.h"
#include "core/scenario_json.h"
#include "tests/core/backward_reference.h"
#include "tests/core/support.h"
#include "tests/rows.h"
#include "tests/tolerance.h"

#include <doctest/doctest.h>

#include <cfloat>
#include <cmath>
#include <string>
#include <vector>

using namespace flashstep;
using support::Rows;

using namespace backward_reference;

TEST_CASE("backward: gradients equal central differences of a long-double forward (N ≤ 6)") {
  for (Algorithm a : backward_rows())
    for (Precision p : {Precision::fp64, Precision::fp32})
      for (bool causal : {false, true})
        for (ScaleMode mode : {ScaleMode::none, ScaleMode::inv_sqrt_d}) {
          Scenario s = backward_scenario(a, p, 5, 3, 11, causal, mode);
          s.block_rows = 2, s.block_cols = 3;  // Br ≠ Bc, N a multiple of neither
          const Resolved r = resolve(s);
          CAPTURE(std::string(algorithm_id(a)));
          CAPTURE(precision_name(p));
          CAPTURE(causal);
          CAPTURE(r.scale);
          const Recording rec = record(r);
          const LMat Q = to_l(r.q), K = to_l(r.k), V = to_l(r.v), dO = to_l(r.d_o);
          const long double sc = r.scale;
          // One evaluation of ℓ in long double: N·N·d products and sums of at most N·d terms of
          // size Σ|dO|·max|V|, rounded at γ of their count (tests/tolerance.h, point 1).
          long double size = 0;
          for (const auto& row : dO)
            for (long double x : row) size += std::fabs(x) * 4.0L;  // |V| < 4
          const double f_error = tolerance::gamma(4LL * r.n * r.n * r.d, LDBL_EPSILON / 2) * static_cast<double>(size);
          const tolerance::GradBound b = tolerance::attention_grads(r, tolerance::Exp::cpu);
          const long double h = 1e-4L;
          // d ℓ / d X(i, c) by central differences at h and h/2, Richardson's extrapolation of both.
          auto fd = [&](int which, std::size_t i, std::size_t c, double& err) {
            auto at = [&](long double step) {
              LMat q = Q, k = K, v = V;
              LMat& X = which == 0 ? q : which == 1 ? k : v;
              const long double x = X[i][c];
              X[i][c] = x + step;
              const long double up = loss(q, k, v, dO, sc, causal);
              X[i][c] = x - step;
              const long double down = loss(q, k, v, dO, sc, causal);
              return (up - down) / (2 * step);
            };
            const long double d1 = at(h), d2 = at(h / 2);
            err = tolerance::central_difference_error(d1, d2, f_error, h / 2);
            return (4 * d2 - d1) / 3;
          };
          const char* names[] = {"dq", "dk", "dv"};
          for (int which = 0; which < 3; ++which) {
            const MatrixRM& got = grad(rec, names[which]);
            const MatrixRM& bound = which == 0 ? b.dq : which == 1 ? b.dk : b.dv;
            for (std::size_t i = 0; i < Q.size(); ++i)
              for (std::size_t c = 0; c < Q[0].size(); ++c) {
                double err = 0;
                const long double want = fd(which, i, c, err);
                const double e = static_cast<double>(std::fabs(got(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(c)) - want));
                CAPTURE(names[which]);
                CAPTURE(i);
                CAPTURE(c);
                CHECK(e <= bound(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(c)) + err);
              }
          }
        }
}

TEST_CASE("backward: gradients equal the analytic long-double loops at N = 37, d = 8 and N = 64, d = 16") {
  struct Shape {
    int N, d, Br, Bc;
  };
  for (const Shape sh : {Shape{37, 8, 5, 7}, Shape{64, 16, 16, 8}})
    for (Algorithm a : backward_rows())
      for (Precision p : {Precision::fp64, Precision::fp32})
        for (bool causal : {false, true})
          for (ScaleMode mode : {ScaleMode::none, ScaleMode::inv_sqrt_d}) {
            Scenario s = backward_scenario(a, p, sh.N, sh.d, 5, causal, mode);
            s.block_rows = sh.Br, s.block_cols = sh.Bc;
            const Resolved r = resolve(s);
            CAPTURE(std::string(algorithm_id(a)));
            CAPTURE(precision_name(p));
            CAPTURE(causal);
            CAPTURE(sh.N);
            const Recording rec = record(r);
            const Grads want = analytic(to_l(r.q), to_l(r.k), to_l(r.v), to_l(r.d_o), r.scale, causal);
            check_grads(rec, r, want, tolerance::attention_grads(r, tolerance::Exp::cpu));
          }
}

TEST_CASE("backward: the bound catches an error of twice its size") {
  Scenario s = backward_scenario(Algorithm::attn_flash_backward, Precision::fp32, 9, 4, 3, true, ScaleMode::inv_sqrt_d);
  s.block_rows = 2, s.block_cols = 4;
  const Resolved r = resolve(s);
  const Recording rec = record(r);
  const Grads want = analytic(to_l(r.q), to_l(r.k), to_l(r.v), to_l(r.d_o), r.scale, true);
  const tolerance::GradBound b = tolerance::attention_grads(r, tolerance::Exp::cpu);
  MatrixRM off = grad(rec, "dk");
  off(3, 1) = static_cast<double>(want.dk[3][1]) + 2.0 * b.dk(3, 1);
  bool within = true;
  for (Eigen::Index i = 0; i < off.rows(); ++i)
    for (Eigen::Index c = 0; c < off.cols(); ++c)
      within = within && std::fabs(off(i, c) - static_cast<double>(want.dk[static_cast<std::size_t>(i)][static_cast<std::size_t>(c)])) <= b.dk(i, c);
  CHECK_FALSE(within);
}

TEST_CASE("backward: the flash backward equals the standard one within the sum of their bounds") {
  for (Precision p : {Precision::fp64, Precision::fp32, Precision::fp16, Precision::bf16})
    for (bool causal : {false, true}) {
      Scenario s = backward_scenario(Algorithm::attn_backward, p, 23, 8, 7, causal, ScaleMode::inv_sqrt_d);
      Scenario f = s;
      f.algorithm = Algorithm::attn_flash_backward;
      f.block_rows = 4, f.block_cols = 6;
      const Resolved rs = resolve(s), rf = resolve(f);
      CAPTURE(precision_name(p));
      CAPTURE(causal);
      const Recording a = record(rs), b = record(rf);
      const tolerance::GradBound ba = tolerance::attention_grads(rs, tolerance::Exp::cpu);
      const tolerance::GradBound bb = tolerance::attention_grads(rf, tolerance::Exp::cpu);
      for (const char* name : {"dq", "dk", "dv"}) {
        const MatrixRM &ga = grad(a, name), &gb = grad(b, name);
        const MatrixRM bound = std::string(name) == "dq" ? MatrixRM(ba.dq + bb.dq)
                               : std::string(name) == "dk" ? MatrixRM(ba.dk + bb.dk)
                                                           : MatrixRM(ba.dv + bb.dv);
        CAPTURE(name);
        CHECK(((ga - gb).cwiseAbs().array() <= bound.array()).all());
      }
    }
}

TEST_CASE("backward: a row with no finite score has O = 0, D = 0 and zero gradients, never nan") {
  // Query 3's scores overflow to −∞ in the run's format (a huge first feature against keys whose
  // first feature is large), while the other queries' first feature is 0 and leaves them alone.
  for (Algorithm a : backward_rows())
    for (Precision p : {Precision::fp64, Precision::fp32}) {
      Scenario s = backward_scenario(a, p, 8, 4, 2, false, ScaleMode::none);
      s.block_rows = 3, s.block_cols = 3;
      for (auto& row : s.q) row[0] = 0;
      for (auto& row : s.k) row[0] = 1e9;
      s.q[3][0] = p == Precision::fp64 ? -1e300 : -1e30;
      CAPTURE(std::string(algorithm_id(a)));
      CAPTURE(precision_name(p));
      const Recording rec = record(resolve(s));
      for (Eigen::Index c = 0; c < 4; ++c) {
        CHECK(rec.output()(3, c) == 0.0);
        CHECK(grad(rec, "dq")(3, c) == 0.0);
      }
      CHECK(rec.results.find_row("D")->values[3] == 0.0);
      for (const char* name : {"dq", "dk", "dv"}) CHECK(grad(rec, name).allFinite());
    }
}

// A number as num() prints it ("−0.12345", "1.2346×10⁻⁵") read back.
double read_num(std::string t) {
  auto swap = [&](const std::string& from, const std::string& to) {
    for (std::size_t k; (k = t.find(from)) != std::string::npos;) t.replace(k, from.size(), to);
  };
  swap("−", "-");
  swap("×10", "e");
  swap("⁻", "-");
  const char* sup[] = {"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
  for (int k = 0; k < 10; ++k) swap(sup[k], std::to_string(k));
  return std::stod(t);
}

TEST_CASE("backward: the D step's two sums, rowsum(dO ∘ O) and rowsum(P ∘ dP), are each within its bound of D") {
  for (bool causal : {false, true}) {
    Scenario s = backward_scenario(Algorithm::attn_backward, Precision::fp32, 12, 4, 9, causal, ScaleMode::inv_sqrt_d);
    const Resolved r = resolve(s);
    const Recording rec = record(r);
    const Grads want = analytic(to_l(r.q), to_l(r.k), to_l(r.v), to_l(r.d_o), r.scale, causal);
    const tolerance::GradBound b = tolerance::attention_grads(r, tolerance::Exp::cpu);
    int seen = 0;
    for (const Step& st : rec.steps) {
      if (st.label.rfind("D", 0) != 0) continue;
      const std::size_t i = static_cast<std::size_t>(st.row);
      CAPTURE(st.text);
      // "Dᵢ = rowsum(dOᵢ ∘ Oᵢ) = X; beside it rowsum(Pᵢ ∘ dPᵢ) = Y, ..."
      const std::size_t x0 = st.text.find(") = ") + 4, x1 = st.text.find(';', x0);
      const std::size_t y0 = st.text.find(") = ", x1) + 4, y1 = st.text.find(',', y0);
      REQUIRE(x1 != std::string::npos);
      REQUIRE(y1 != std::string::npos);
      const double X = read_num(st.text.substr(x0, x1 - x0)), Y = read_num(st.text.substr(y0, y1 - y0));
      const double exact = static_cast<double>(want.D[i]);
      CHECK(std::fabs(X - exact) <= b.D[i] + tolerance::printed_error(X));
      CHECK(std::fabs(Y - exact) <= b.D_from_P[i] + tolerance::printed_error(Y));
      CHECK(std::fabs(X - rec.results.find_row("D")->values[i]) <= tolerance::printed_error(X));
      ++seen;
    }
    CHECK(seen == r.n);
  }
}

TEST_CASE("backward: dO is given, drawn after Q, K, V from the seed, or refused with one line naming the shape") {
  Scenario s;
  s.algorithm = Algorithm::attn_flash_backward;
  s.n = 6, s.d = 3, s.seed = 4;
  const Resolved r = resolve(s);
  // Q, K, V are those of the forward with the same seed: dO is drawn after them.
  Scenario fwd = s;
  fwd.algorithm = Algorithm::attn_tiled_v2;
  const Resolved rf = resolve(fwd);
  CHECK(r.q == rf.q);
  CHECK(r.k == rf.k);
  CHECK(r.v == rf.v);
  REQUIRE(r.d_o.rows() == 6);
  REQUIRE(r.d_o.cols() == 3);
  CHECK(r.d_o != r.q);
  // Given: used as given, with random Q, K, V.
  s.d_o = Rows(6, std::vector<double>{1, -2, 0.5});
  const Resolved given = resolve(s);
  CHECK(given.d_o(4, 1) == -2.0);
  CHECK(given.q == rf.q);
  // The wrong shape: one line naming the shape expected.
  s.d_o = Rows(5, std::vector<double>{1, 2, 3});
  CHECK_THROWS_WITH_AS(resolve(s), "dO must be 6 × 3 (N × d), got 5 rows", InputError);
  s.d_o = Rows(6, std::vector<double>{1, 2});
  CHECK_THROWS_WITH_AS(resolve(s), "dO must be 6 × 3 (N × d), got 2 values in row 1", InputError);
  // A row that takes no dO refuses it by name.
  s.d_o = Rows(6, std::vector<double>{1, 2, 3});
  s.algorithm = Algorithm::attn_tiled_v2;
  CHECK_THROWS_WITH_AS(resolve(s), "attn-tiled-v2 takes Q, K, V; it takes no dO", InputError);
  s.algorithm = Algorithm::safe;
  CHECK_THROWS_WITH_AS(resolve(s), "safe takes x; it takes no dO", InputError);
}

TEST_CASE("backward: summaries (--steps none) and several heads carry the gradients and D") {
  for (Algorithm a : backward_rows()) {
    Scenario s = backward_scenario(a, Precision::fp32, 10, 4, 1, true, ScaleMode::inv_sqrt_d);
    s.block_rows = 3, s.block_cols = 4;
    const Resolved r = resolve(s);
    RecordOptions none;
    none.keep_steps = false;
    const Recording full = record(r), summary = record(r, none);
    CAPTURE(std::string(algorithm_id(a)));
    CHECK(summary.steps.empty());
    for (const char* name : {"dq", "dk", "dv"}) CHECK(grad(summary, name) == grad(full, name));
    CHECK(summary.results.find_row("D")->values == full.results.find_row("D")->values);
    CHECK(summary.io == full.io);
    // Two heads: head 1 draws its own inputs; the stacked results hold head 0 then head 1.
    std::vector<Recording> heads;
    for (int h = 0; h < 2; ++h) heads.push_back(record(resolve_head(r, h), none));
    const Recording one = record(resolve_head(r, 1), none);
    const Recording stacked = stack_heads(std::move(heads));
    for (const char* name : {"dq", "dk", "dv"}) {
      REQUIRE(grad(stacked, name).rows() == 20);
      CHECK(MatrixRM(grad(stacked, name).middleRows(10, 10)) == grad(one, name));
    }
    CHECK(stacked.results.find_row("D")->values.size() == 20u);
  }
}

TEST_CASE("flash backward: every tile's P is exp(S − L) from the forward's L alone, and its sentence says so in numbers") {
  for (bool causal : {false, true}) {
    Scenario s = backward_scenario(Algorithm::attn_flash_backward, Precision::fp32, 10, 4, 6, causal, ScaleMode::inv_sqrt_d);
    s.block_rows = 3, s.block_cols = 4;
    const Resolved r = resolve(s);
    const Recording rec = record(r);
    const int bS = rec.find_buffer("S"), bP = rec.find_buffer("P (from L)"), bdQ = rec.find_buffer("dQ");
    REQUIRE(bS >= 0);
    REQUIRE(bP >= 0);
    REQUIRE(bdQ >= 0);
    const std::vector<double>& L = rec.lse();
    const double u = tolerance::unit_roundoff(Precision::fp32);
    Cursor cur(rec);
    int tiles = 0;
    for (int k = 0; k < rec.step_count(); ++k) {
      const Step& st = rec.steps[static_cast<std::size_t>(k)];
      if (st.tile_i < 0 || st.tile_j < 0 || st.pass <= static_cast<int>(r.Tr)) continue;  // the backward's tiles
      ++tiles;
      cur.seek(k);
      CAPTURE(st.label);
      const int r0 = st.tile_i * r.Br, c0 = st.tile_j * r.Bc;
      for (int x = r0; x < std::min(r0 + r.Br, r.n); ++x)
        for (int y = c0; y < std::min(c0 + r.Bc, r.n); ++y) {
          const double S = cur.value(bS, x, y), P = cur.value(bP, x, y);
          // exp of (S − L) as fp32 rounds it: the subtraction, the exp (8 ulp) and the store.
          if (std::isinf(S)) {  // masked: exactly 0, never exp(−∞ − L)'s neighbour
            CHECK(P == 0.0);
            continue;
          }
          const double want = std::exp(S - L[static_cast<std::size_t>(x)]);
          CHECK(std::fabs(P - want) <= want * (u * (1 + std::fabs(S - L[static_cast<std::size_t>(x)])) +
                                               tolerance::exp_error(tolerance::Exp::cpu, Precision::fp32, S - L[static_cast<std::size_t>(x)]) + u));
        }
      // dQ_i is written back at every tile; the first part names L, not m or l.
      bool writes_dq = false;
      for (const Region& w : st.writes) writes_dq = writes_dq || w.buffer == bdQ;
      CHECK(writes_dq);
      REQUIRE(st.parts.size() == 6u);
      CHECK(st.parts[0].text.find("from L alone, no m and no l") != std::string::npos);
      CHECK(st.parts[4].text.find("written back") != std::string::npos);
    }
    // Causal: the empty tiles are skipped, as the forward skips them.
    int live = 0;
    for (int i = 0; i < r.Tr; ++i)
      for (int j = 0; j < r.Tc; ++j)
        live += !causal || j * r.Bc <= std::min(i * r.Br + r.Br, r.n) - 1;
    CHECK(tiles == live);
  }
}

TEST_CASE("backward narration: a backend that keeps no per-tile values counts the same IO and hands the final gradients") {
  // As a GPU run without traces drives it: empty views at every step, the results at the end.
  Scenario s = backward_scenario(Algorithm::attn_flash_backward, Precision::fp32, 11, 4, 8, true, ScaleMode::inv_sqrt_d);
  s.block_rows = 3, s.block_cols = 5;
  const Resolved r = resolve(s);
  RecordOptions none;
  none.keep_steps = false;
  const Recording cpu = record(r, none);
  Recording out = start_recording(r, "test", "test");
  out.keep_steps = false;
  Recorder rec(out, false);
  record_attn_tiled_v2(r, rec);
  AttnFlashBackwardNarration say(r, rec);
  const Mask mask = Mask::of(r);
  for (int i = 0; i < r.Tr; ++i) say.d_block(i, {});
  for (int j = 0; j < r.Tc; ++j) {
    say.start_kv(j);
    for (int i = 0; i < r.Tr; ++i) {
      const int r0 = i * r.Br, c0 = j * r.Bc;
      if (mask.tile(r0, std::min(r.Br, r.n - r0), c0, std::min(r.Bc, r.n - c0)) != TileKind::empty)
        say.tile(i, j, {}, {}, {}, {}, {}, {}, {});
    }
    say.finish_kv(j, {}, {});
  }
  const MatrixRM &dq = grad(cpu, "dq"), &dk = grad(cpu, "dk"), &dv = grad(cpu, "dv");
  const std::vector<double>& D = cpu.results.find_row("D")->values;
  say.results({dq.data(), r.n, r.d, r.d}, {dk.data(), r.n, r.d, r.d}, {dv.data(), r.n, r.d, r.d},
              {D.data(), r.n, 1, 1});
  say.finish();
  CHECK(out.io == cpu.io);
  CHECK(out.io == expected_io(r));
  for (const char* name : {"dq", "dk", "dv"}) CHECK(grad(out, name) == grad(cpu, name));
  CHECK(out.results.find_row("D")->values == D);
}

TEST_CASE("scenario files: \"do\" is written only when given, read back as given, and an empty one is refused") {
  Scenario s;
  s.algorithm = Algorithm::attn_backward;
  s.n = 2, s.d = 2;
  CHECK_FALSE(scenario_to_json(s).contains("do"));  // files without it keep their bytes
  s.d_o = {{1, -2}, {0.5, 3}};
  const Json j = scenario_to_json(s);
  REQUIRE(j.contains("do"));
  CHECK(scenario_from_json(j).d_o == s.d_o);
  Json empty = j;
  empty["do"] = Json::array();
  CHECK_THROWS_AS(scenario_from_json(empty), InputError);
  Json word = j;
  word["do"][1][0] = "x";
  CHECK_THROWS_WITH_AS(scenario_from_json(word), "scenario: \"do\" row 2 value 1 is \"x\", not a number", InputError);
}
