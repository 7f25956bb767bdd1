// The softmax engines against long-double references: every algorithm in every precision,
// matrices of rows, the online invariants step by step, chunked == safe for every K, overflow
// exactly where each format overflows, and masked (-inf) entries.
#include "core/engine.h"
#include "tests/core/reference.h"
#include "tests/core/support.h"
#include "tests/rows.h"
#include "tests/tolerance.h"

#include <doctest/doctest.h>

#include <cmath>

using namespace flashstep;
using support::Rows;

namespace {

// Every row that takes a vector x, from the table.
std::vector<Algorithm> softmax_algorithms() { return rows::taking_x(); }

Scenario softmax_scenario(Algorithm a, Precision p, Rows x, int chunks = 4) {
  Scenario s;
  s.algorithm = a;
  s.precision = p;
  s.x = std::move(x);
  s.chunks = chunks;
  return s;
}

// The value fp16 stores for x (the engine rounds its inputs the same way).
double as_fp16(double x) {
  return static_cast<double>(static_cast<float>(Eigen::half(static_cast<float>(x))));
}

// Output, m and l of every row against the reference; `scale` multiplies x.
void check_rows(const Recording& rec, const Rows& x, long double scale) {
  const Precision p = rec.precision;
  const int n = rec.n;
  REQUIRE(rec.output().rows() == static_cast<Eigen::Index>(x.size()));
  REQUIRE(rec.output().cols() == n);
  for (int r = 0; r < rec.rows; ++r) {
    CAPTURE(r);
    const auto& row = x[r];
    std::vector<double> each;
    const tolerance::Bound b = tolerance::softmax_row(rec.algorithm, row, static_cast<double>(scale), p,
                                                      tolerance::Exp::cpu, std::max(rec.chunks, 1), &each);
    const ref::MaxSum ml = ref::prefix_max_sum(row, row.size(), scale);
    if (rec.algorithm == Algorithm::logsumexp) {
      const ref::Vec want = ref::log_softmax(row, scale);
      const long double lse = ref::logsumexp(row, scale);
      for (int i = 0; i < n; ++i) {
        CAPTURE(i);
        if (std::isinf(want[i])) {
          CHECK(rec.output()(r, i) == want[i]);
          continue;
        }
        CHECK(std::fabs(rec.output()(r, i) - want[i]) <= each[i]);
      }
      REQUIRE(rec.lse().size() == static_cast<std::size_t>(rec.rows));
      CHECK(std::fabs(rec.lse()[r] - lse) <= b.lse);
    } else {
      const ref::Vec want = ref::softmax(row, scale);
      for (int i = 0; i < n; ++i) {
        CAPTURE(i);
        CHECK(std::fabs(rec.output()(r, i) - want[i]) <= each[i]);
      }
    }
    if (rec.algorithm == Algorithm::naive) {
      // Naive softmax's l is the plain sum of exp(x_j): no max was subtracted.
      long double sum = 0;
      for (double v : row) sum += std::exp(scale * v);
      CHECK(std::fabs(rec.l()[r] - sum) <= b.l * sum);
    } else {
      // The max involves no arithmetic, so it is exact in every format.
      CHECK(rec.m()[r] == static_cast<double>(ml.m));
      CHECK(std::fabs(rec.l()[r] - ml.l) <= b.l * ml.l);
    }
  }
}

bool reads_cell(const Step& st, int buffer, int r, int c) {
  for (const Region& g : st.reads)
    if (g.buffer == buffer && g.r0 <= r && r < g.r1 && g.c0 <= c && c < g.c1) return true;
  return false;
}

}  // namespace

TEST_CASE("every softmax algorithm in every precision matches the reference on rows with outliers") {
  for (std::uint64_t seed : {11u, 12u}) {
    // 5 rows of 24; 5 chunks do not divide 24.
    const Rows x = support::softmax_rows(5, 24, seed);
    for (Algorithm a : softmax_algorithms())
      for (Precision p : kAllPrecisions)
        for (ScaleMode mode : {ScaleMode::none, ScaleMode::inv_sqrt_d}) {
          CAPTURE(algorithm_id(a));
          CAPTURE(precision_name(p));
          CAPTURE(scale_name(mode, 1.0));
          CAPTURE(seed);
          Scenario s = softmax_scenario(a, p, x, 5);
          s.scale_mode = mode;
          s.d = 4;  // 1/sqrt(d) = 0.5 is exact in every format
          check_rows(record(s), x, mode == ScaleMode::none ? 1.0L : 0.5L);
        }
  }
}

TEST_CASE("each row of a matrix is its own softmax, with its own m and l") {
  // Rows that differ by a constant have the same softmax but maxima 20 and 30 apart: a row
  // normalised with another row's m or l would be off by e^20.
  const Rows base = support::softmax_rows(1, 16, 5);
  Rows x;
  for (double offset : {0.0, 20.0, -30.0, 7.5}) {
    x.push_back(base[0]);
    for (double& v : x.back()) v += offset;
  }
  for (Algorithm a : softmax_algorithms())
    for (Precision p : {Precision::fp64, Precision::fp32}) {
      CAPTURE(algorithm_id(a));
      CAPTURE(precision_name(p));
      const Recording rec = record(softmax_scenario(a, p, x, 3));
      check_rows(rec, x, 1.0L);
      if (a != Algorithm::naive) CHECK(rec.m()[1] - rec.m()[0] == 20.0);
    }
}

TEST_CASE("a numeric scale (1/temperature) multiplies every score") {
  const Rows x = support::softmax_rows(3, 24, 21);
  for (double scale : {0.3, 2.5})
    for (Algorithm a : {Algorithm::safe, Algorithm::online, Algorithm::chunked})
      for (Precision p : {Precision::fp64, Precision::fp32}) {
        CAPTURE(algorithm_id(a));
        CAPTURE(precision_name(p));
        CAPTURE(scale);
        Scenario s = softmax_scenario(a, p, x);
        s.scale_mode = ScaleMode::value;
        s.scale_value = scale;
        const Recording rec = record(s);
        // scale * x is rounded now (and so is the scale): tests/tolerance.h point 3.
        for (int r = 0; r < 3; ++r) {
          const ref::Vec want = ref::softmax(x[r], scale);
          std::vector<double> each;
          tolerance::softmax_row(a, x[r], scale, p, tolerance::Exp::cpu, 4, &each);
          for (int i = 0; i < 24; ++i) CHECK(std::fabs(rec.output()(r, i) - want[i]) <= each[i]);
        }
      }
}

TEST_CASE("pass 1 of online and logsumexp: m_i is the prefix max, l_i = sum_{j<=i} exp(x_j - m_i)") {
  const Rows x = support::softmax_rows(3, 17, 31);
  for (Algorithm a : {Algorithm::online, Algorithm::logsumexp})
    for (Precision p : {Precision::fp64, Precision::fp32})
      for (long double scale : {1.0L, 0.5L}) {
        CAPTURE(algorithm_id(a));
        CAPTURE(precision_name(p));
        Scenario s = softmax_scenario(a, p, x);
        s.scale_mode = ScaleMode::value;
        s.scale_value = static_cast<double>(scale);
        const Recording rec = record(s);
        const int bx = rec.find_buffer("x");
        REQUIRE(bx >= 0);
        REQUIRE(rec.find_buffer("m") >= 0);
        REQUIRE(rec.find_buffer("l") >= 0);
        Cursor cur(rec);
        std::vector<int> seen(3, 0);
        for (int k = 0; k < rec.step_count(); ++k) {
          const Step& st = rec.steps[k];
          if (st.pass != 1) continue;
          REQUIRE(st.row >= 0);
          REQUIRE(st.row < 3);
          const int row = st.row, i = seen[row]++;
          CAPTURE(row);
          CAPTURE(i);
          CHECK(reads_cell(st, bx, row, i));  // step i of the row folds in x_i
          cur.seek(k);
          const ref::MaxSum want = ref::prefix_max_sum(x[row], i + 1, scale);
          CHECK(support::buffer_at(rec, cur, "m", row) == want.m);
          const std::vector<double> prefix(x[row].begin(), x[row].begin() + i + 1);
          CHECK(std::fabs(support::buffer_at(rec, cur, "l", row) - want.l) <=
                tolerance::softmax_row(a, prefix, static_cast<double>(scale), p, tolerance::Exp::cpu).l * want.l);
        }
        CHECK(seen == std::vector<int>{17, 17, 17});
      }
}

TEST_CASE("safe softmax: m_i is the prefix max in pass 1, l_i = sum_{j<=i} exp(x_j - m_n) in pass 2") {
  const Rows x = support::softmax_rows(2, 13, 41);
  const Recording rec = record(softmax_scenario(Algorithm::safe, Precision::fp64, x));
  Cursor cur(rec);
  std::vector<int> in_pass1(2, 0), in_pass2(2, 0);
  for (int k = 0; k < rec.step_count(); ++k) {
    const Step& st = rec.steps[k];
    cur.seek(k);
    const auto& row = x[st.row];
    if (st.pass == 1) {
      const int i = in_pass1[st.row]++;
      CHECK(support::buffer_at(rec, cur, "m", st.row) == ref::prefix_max_sum(row, i + 1).m);
    } else if (st.pass == 2) {
      const int i = in_pass2[st.row]++;
      const long double m = ref::prefix_max_sum(row, row.size()).m;
      long double l = 0;
      for (int j = 0; j <= i; ++j) l += std::exp(row[j] - m);
      // The per-step bound of the whole row holds for every partial sum.
      CHECK(std::fabs(support::buffer_at(rec, cur, "l", st.row) - l) <=
            tolerance::softmax_row(Algorithm::safe, row, 1.0, Precision::fp64, tolerance::Exp::cpu).l * l);
    }
  }
  CHECK(in_pass1 == std::vector<int>{13, 13});
  CHECK(in_pass2 == std::vector<int>{13, 13});
}

TEST_CASE("chunked equals safe for every K from 1 to n, whether or not K divides n") {
  for (int n : {1, 2, 7, 12, 13}) {
    const Rows x = support::softmax_rows(2, n, 50 + static_cast<std::uint64_t>(n));
    for (Precision p : {Precision::fp64, Precision::fp32, Precision::fp16}) {
      const Recording safe = record(softmax_scenario(Algorithm::safe, p, x));
      for (int K = 1; K <= n; ++K) {
        CAPTURE(n);
        CAPTURE(K);
        CAPTURE(precision_name(p));
        const Recording chunked = record(softmax_scenario(Algorithm::chunked, p, x, K));
        CHECK(chunked.chunks == K);
        check_rows(chunked, x, 1.0L);
        for (int r = 0; r < 2; ++r) {
          // Both within their bound of the exact result, so within the sum of each other.
          std::vector<double> each_c, each_s;
          const tolerance::Bound bc = tolerance::softmax_row(Algorithm::chunked, x[r], 1.0, p, tolerance::Exp::cpu, K, &each_c);
          const tolerance::Bound bs = tolerance::softmax_row(Algorithm::safe, x[r], 1.0, p, tolerance::Exp::cpu, 1, &each_s);
          CHECK(chunked.m()[r] == safe.m()[r]);
          CHECK(std::fabs(chunked.l()[r] - safe.l()[r]) <= (bc.l + bs.l) * safe.l()[r]);
          for (int i = 0; i < n; ++i)
            CHECK(std::fabs(chunked.output()(r, i) - safe.output()(r, i)) <= each_c[i] + each_s[i]);
        }
      }
    }
  }
}

TEST_CASE("chunked: every merge combines its children's (m, l) and the root is the row's (m, l)") {
  const Rows x = support::softmax_rows(2, 13, 61);
  for (int K : {2, 3, 5, 8, 13}) {
    CAPTURE(K);
    const Recording rec = record(softmax_scenario(Algorithm::chunked, Precision::fp64, x, K));
    const auto tree = merge_tree(K);
    const int btm = rec.find_buffer("m_tree"), btl = rec.find_buffer("l_tree");
    REQUIRE(btm >= 0);
    REQUIRE(btl >= 0);
    Cursor cur(rec);
    int merges = 0;
    for (int k = 0; k < rec.step_count(); ++k) {
      const Step& st = rec.steps[k];
      if (st.pass != 2) continue;
      ++merges;
      cur.seek(k);
      int id = -1;
      for (const Region& g : st.writes)
        if (g.buffer == btm) id = g.c0;
      REQUIRE(id >= K);
      const MergeNode& nd = tree[id];
      const long double ma = cur.value(btm, st.row, nd.left), la = cur.value(btl, st.row, nd.left);
      long double m = ma, l = la;
      if (nd.right >= 0) {
        const long double mb = cur.value(btm, st.row, nd.right), lb = cur.value(btl, st.row, nd.right);
        m = std::fmax(ma, mb);
        l = la * std::exp(ma - m) + lb * std::exp(mb - m);
      }
      CHECK(cur.value(btm, st.row, id) == m);
      // One merge: two exps (each with its argument rounded), two products and a sum.
      const double u = tolerance::unit_roundoff(Precision::fp64);
      double merge = 3.0 * u;
      for (long double a : {ma - m, nd.right >= 0 ? cur.value(btm, st.row, nd.right) - m : 0.0L})
        merge += tolerance::exp_error(tolerance::Exp::cpu, Precision::fp64, static_cast<double>(a)) +
                 u * static_cast<double>(std::fabs(a));
      CHECK(std::fabs(cur.value(btl, st.row, id) - l) <= merge * l);
      if (id == static_cast<int>(tree.size()) - 1) {
        const auto& row = x[st.row];
        const ref::MaxSum want = ref::prefix_max_sum(row, row.size());
        CHECK(support::buffer_at(rec, cur, "m", st.row) == want.m);
        CHECK(std::fabs(support::buffer_at(rec, cur, "l", st.row) - want.l) <=
              tolerance::softmax_row(Algorithm::chunked, row, 1.0, Precision::fp64, tolerance::Exp::cpu, K).l * want.l);
      }
    }
    CHECK(merges == 2 * (static_cast<int>(tree.size()) - K));
  }
}

TEST_CASE("fp16: naive softmax overflows once x >= 11.1 while safe, online and chunked stay finite") {
  for (double big : {11.1, 11.5, 12.0, 20.0, 1000.0}) {
    CAPTURE(big);
    const Rows x = {{big, 0.0, 1.0, -2.0}};
    const Rows seen = {{as_fp16(big), 0.0, 1.0, -2.0}};
    const Recording naive = record(softmax_scenario(Algorithm::naive, Precision::fp16, x));
    CHECK(std::isinf(naive.l()[0]));
    CHECK(std::isnan(naive.output()(0, 0)));  // inf / inf
    CHECK(naive.count_nonfinite_outputs() >= 1);
    for (Algorithm a : {Algorithm::safe, Algorithm::online, Algorithm::chunked, Algorithm::logsumexp}) {
      CAPTURE(algorithm_id(a));
      const Recording rec = record(softmax_scenario(a, Precision::fp16, x, 2));
      CHECK(rec.count_nonfinite_outputs() == 0);
      check_rows(rec, seen, 1.0L);
    }
  }
  // e^11 = 59874 is below fp16's largest value, 65504.
  const Rows x = {{11.0, 0.0, 1.0, -2.0}};
  const Recording naive = record(softmax_scenario(Algorithm::naive, Precision::fp16, x));
  CHECK(naive.count_nonfinite_outputs() == 0);
  check_rows(naive, x, 1.0L);
}

TEST_CASE("fp16 exp overflows exactly where e^x rounds past 65504, as on hardware") {
  // Neighbouring fp16 values around ln(65520) = 11.0901 (65520 = 65504 + half an ulp rounds up
  // to inf): e^11.0859375 = 65248 is finite, e^11.09375 = 65759 is not.
  CHECK(as_fp16(11.0859375) == 11.0859375);
  CHECK(as_fp16(11.09375) == 11.09375);
  const Recording below = record(softmax_scenario(Algorithm::naive, Precision::fp16, {{11.0859375, -3.0}}));
  CHECK(std::isfinite(below.l()[0]));
  CHECK(below.output()(0, 0) == 1.0);
  const Recording above = record(softmax_scenario(Algorithm::naive, Precision::fp16, {{11.09375, -3.0}}));
  CHECK(std::isinf(above.l()[0]));
  CHECK(std::isnan(above.output()(0, 0)));
}

TEST_CASE("naive softmax overflows around 88.72 in fp32 and bf16 and 709.78 in fp64") {
  CHECK(overflow_threshold(Precision::fp16) == doctest::Approx(std::log(65504.0)));
  CHECK(overflow_threshold(Precision::fp32) == doctest::Approx(std::log(3.4028234663852886e38)));
  CHECK(overflow_threshold(Precision::bf16) == doctest::Approx(std::log(3.3895313892515355e38)));
  CHECK(overflow_threshold(Precision::fp64) == doctest::Approx(std::log(1.7976931348623157e308)));
  CHECK(overflow_threshold(Precision::fp32) == doctest::Approx(88.7228).epsilon(1e-5));
  struct Case {
    Precision p;
    double finite, overflows;  // both values the format holds exactly
  };
  // bf16 holds only 88.5 and 89 near the threshold (its spacing there is 0.5).
  for (const Case& c : {Case{Precision::fp32, 88.72, 88.73}, Case{Precision::bf16, 88.5, 89.0},
                        Case{Precision::fp64, 709.78, 709.79}}) {
    CAPTURE(precision_name(c.p));
    const Recording ok = record(softmax_scenario(Algorithm::naive, c.p, {{c.finite, 0.0}}));
    CHECK(ok.count_nonfinite_outputs() == 0);
    CHECK(ok.output()(0, 0) == doctest::Approx(1.0));
    const Recording bad = record(softmax_scenario(Algorithm::naive, c.p, {{c.overflows, 0.0}}));
    CHECK(std::isinf(bad.l()[0]));
    CHECK(std::isnan(bad.output()(0, 0)));
    for (Algorithm a : {Algorithm::safe, Algorithm::online}) {
      const Recording rec = record(softmax_scenario(a, c.p, {{c.overflows, 0.0}}));
      CHECK(rec.count_nonfinite_outputs() == 0);
      CHECK(rec.output()(0, 0) == 1.0);
    }
  }
}

TEST_CASE("masked (-inf) entries get probability 0 in every softmax algorithm") {
  const double inf = std::numeric_limits<double>::infinity();
  // A row that starts masked, one masked in the middle, one whose first chunk is all masked.
  const Rows x = {{-inf, 1.0, 2.0, -inf}, {3.0, -inf, -inf, 0.5}, {-inf, -inf, 1.0, 2.0}};
  for (Algorithm a : softmax_algorithms())
    for (Precision p : kAllPrecisions) {
      CAPTURE(algorithm_id(a));
      CAPTURE(precision_name(p));
      const Recording rec = record(softmax_scenario(a, p, x, 2));
      check_rows(rec, x, 1.0L);
      if (a != Algorithm::logsumexp) CHECK(rec.count_nonfinite_outputs() == 0);
    }
}
