// The exp bars of the vector view: at every step each bar is the term its element adds to the
// l of that moment, exp(xᵢ − m) with the m of that moment, so the drawn bars sum to l; where the
// online sweep raises m, the terms already summed are shown before and after the rescale by
// e^{m_old − m_new}. Checked against long-double values computed here from the input.
#include "app/ui/views/vector_bars.h"

#include "core/algorithms.h"
#include "core/engine.h"
#include "core/recorder.h"
#include "tests/rows.h"
#include "tests/tolerance.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

using namespace flashstep;
using namespace flashstep::ui;

namespace {

struct Case {
  std::string name;
  std::vector<double> x;
};

std::vector<Case> cases() {
  std::vector<Case> out = {{"[3, 2, 5, 1]", {3, 2, 5, 1}}, {"[1000, 2000, 3000]", {1000, 2000, 3000}}};
  std::mt19937_64 gen(7);
  std::normal_distribution<double> normal(0.0, 3.0);
  Case r{"random row of 64", {}};
  for (int i = 0; i < 64; ++i) r.x.push_back(normal(gen));
  out.push_back(r);
  return out;
}

// Which elements the l of step k has summed, and against which m, worked out from the
// algorithm's passes as its pseudocode runs them (not from the recording).
struct Expected {
  std::vector<int> summed;  // element indices
  long double m = 0;        // the max the terms are taken against (0 for naive softmax)
};

// The three kinds of sweep the vector view's rows make, told apart by their traits: one pass
// of (m, l) together (a rescaling row), a max pass then a sum pass, or a sum of exp(x) with no
// max. A row that is none of these fails the test rather than being modelled wrongly.
enum class Sweep { online, max_then_sum, no_max };
Sweep sweep_of(Algorithm a) {
  const AlgorithmInfo& row = info(a);
  if (!row.has_max) return Sweep::no_max;
  return row.rescales ? Sweep::online : Sweep::max_then_sum;
}

Expected expected_at(Algorithm a, const std::vector<double>& x, int k) {
  const int n = static_cast<int>(x.size());
  Expected e;
  const Sweep sweep = sweep_of(a);
  auto max_of = [&](int count) {
    long double m = -INFINITY;
    for (int i = 0; i < count; ++i) m = std::max<long double>(m, x[static_cast<std::size_t>(i)]);
    return m;
  };
  if (sweep == Sweep::online) {
    // Pass 1: step k reads element k; after it, elements 0..k are summed against their max.
    const int seen = std::min(k + 1, n);
    for (int i = 0; i < seen; ++i) e.summed.push_back(i);
    e.m = max_of(seen);
  } else if (sweep == Sweep::max_then_sum) {
    // Pass 1 (n steps) finds the max; pass 2 sums element k − n against the global max.
    const int seen = std::clamp(k - n + 1, 0, n);
    for (int i = 0; i < seen; ++i) e.summed.push_back(i);
    e.m = max_of(n);
  } else {  // naive: pass 1 sums exp(x) directly
    for (int i = 0; i < std::min(k + 1, n); ++i) e.summed.push_back(i);
  }
  return e;
}

}  // namespace

TEST_CASE("vector view: the exp bars are the terms of the l of the moment, and sum to l at every step") {
  for (Precision p : {Precision::fp32, Precision::fp16}) {
    for (const Case& cs : cases()) {
      // Every row the vector view draws.
      for (Algorithm a : rows::where([](const AlgorithmInfo& row) { return row.view == ViewKind::vector; })) {
        const bool max_first = sweep_of(a) == Sweep::max_then_sum;
        if (sweep_of(a) == Sweep::no_max && cs.x.back() > 80) continue;  // overflows by design: the overflow lab
        Scenario s;
        s.algorithm = a;
        s.precision = p;
        s.x = {cs.x};
        const Resolved r = resolve(s);
        const Recording rec = record(r);
        std::vector<double> xr(cs.x.size());  // the input as the engine holds it
        for (std::size_t i = 0; i < xr.size(); ++i) xr[i] = r.x(0, static_cast<Eigen::Index>(i));
        const int bl = rec.find_buffer("l");
        const int n = static_cast<int>(xr.size());
        Cursor cur(rec);
        const double u = tolerance::unit_roundoff(p);
        const int sweep_steps = max_first ? 2 * n : n;  // the steps that build l
        double worst = 0;
        for (int k = 0; k < sweep_steps; ++k) {
          CAPTURE(cs.name);
          CAPTURE(algorithm_id(a));
          CAPTURE(precision_name(p));
          CAPTURE(k);
          cur.seek(k);
          const ExpBars bars = exp_bars(rec, cur.state(), k, 0);
          const Expected want = expected_at(a, xr, k);
          REQUIRE(bars.drawn.size() == xr.size());
          // Drawn exactly where the expected terms are.
          std::vector<char> expect_drawn(xr.size(), 0);
          for (int i : want.summed) expect_drawn[static_cast<std::size_t>(i)] = 1;
          if (max_first && k < n) std::fill(expect_drawn.begin(), expect_drawn.end(), 0);
          CHECK(bars.drawn == expect_drawn);
          // Each bar against exp(xᵢ − m) in long double: the subtraction, the exp and the
          // rounding to the format (tolerance.h, points 2 and 4).
          long double exact_sum = 0;
          double eps_max = 0;
          for (int i : want.summed) {
            if (max_first && k < n) break;
            const long double arg = static_cast<long double>(xr[static_cast<std::size_t>(i)]) - want.m;
            const long double exact = std::exp(arg);
            exact_sum += exact;
            const double eps = tolerance::exp_error(tolerance::Exp::cpu, p, static_cast<double>(arg)) +
                               u * std::fabs(static_cast<double>(arg)) + 2 * u;
            eps_max = std::max(eps_max, eps);
            const double bound = eps * static_cast<double>(exact) + 2 * tolerance::subnormal_spacing(p);
            CHECK(std::fabs(bars.value[static_cast<std::size_t>(i)] - static_cast<double>(exact)) <= bound);
          }
          // The sum of the bars against the recording's l: both within their bounds of the exact
          // sum (the sum's γ_k, every term's error, and the rescales of the online sweep).
          if (!cur.state().is_defined(bl, 0, 0, 1)) continue;
          const double l = cur.state().at(bl, 0, 0, 1);
          const long long terms = static_cast<long long>(want.summed.size());
          const double range = static_cast<double>(want.m) - *std::min_element(xr.begin(), xr.end());
          const double rel = 2 * tolerance::gamma(std::max(terms, 1LL), u) + 2 * eps_max +
                             tolerance::rescale_error(p, tolerance::Exp::cpu, terms, std::max(range, 0.0), 0, 0, 2);
          const double limit = rel * static_cast<double>(exact_sum) + 4 * tolerance::subnormal_spacing(p);
          const double diff = std::fabs(bars.sum() - l);
          worst = std::max(worst, limit > 0 ? diff / limit : 0);
          CHECK(diff <= limit);
        }
        MESSAGE(cs.name << " " << algorithm_id(a) << " " << precision_name(p) << ": worst |Σ bars − l| / limit = " << worst);
      }
    }
  }
}

TEST_CASE("vector view: where the online sweep raises m, the bars summed before are shown before and after the rescale") {
  Scenario s;
  s.algorithm = Algorithm::online;
  s.x = {{3, 2, 5, 1}};
  const Recording rec = record(s);
  Cursor cur(rec);
  // Step 2 reads x₃ = 5: m goes from 3 to 5, and x₁, x₂ were summed against m = 3.
  cur.seek(2);
  const ExpBars bars = exp_bars(rec, cur.state(), 2, 0);
  REQUIRE(bars.rescale);
  CHECK(bars.m_old == 3.0);
  CHECK(bars.m_new == 5.0);
  const double u = tolerance::unit_roundoff(Precision::fp32);
  const double eta = tolerance::exp_error(tolerance::Exp::cpu, Precision::fp32, 2.0) + 4 * u;
  CHECK(std::fabs(bars.factor - static_cast<double>(std::exp(-2.0L))) <= eta * std::exp(-2.0));
  CHECK(bars.rescaled == std::vector<char>{1, 1, 0, 0});
  const long double old1 = std::exp(0.0L), old2 = std::exp(-1.0L);
  CHECK(std::fabs(bars.old_value[0] - static_cast<double>(old1)) <= eta * 1.0);
  CHECK(std::fabs(bars.old_value[1] - static_cast<double>(old2)) <= eta * 0.37);
  // New = old × factor, each against exp(xᵢ − 5).
  CHECK(std::fabs(bars.value[0] - static_cast<double>(std::exp(-2.0L))) <= eta * 0.14);
  CHECK(std::fabs(bars.value[1] - static_cast<double>(std::exp(-3.0L))) <= eta * 0.05);
  CHECK(bars.value[2] == 1.0);
  // Steps where m stays (x₂ = 2, x₄ = 1) rescale nothing.
  for (int k : {1, 3}) {
    CAPTURE(k);
    cur.seek(k);
    CHECK_FALSE(exp_bars(rec, cur.state(), k, 0).rescale);
  }
}

TEST_CASE("vector view: the current element's outline is as tall as its bar, so a tiny value never looks like a full bar") {
  // Lesson 3 on [4, 1, 7, 2, 9]: at the step that reads x₅ = 9 the bars are exp(xᵢ − 9); x₂'s
  // is e^{−8} = 3.355e−4 of the tallest, about one pixel.
  Scenario s;
  s.algorithm = Algorithm::online;
  s.x = {{4, 1, 7, 2, 9}};
  const Recording rec = record(s);
  Cursor cur(rec);
  cur.seek(4);
  const ExpBars bars = exp_bars(rec, cur.state(), 4, 0);
  REQUIRE(bars.drawn[1]);
  const float full = 120.0f, min_outline = 6.0f;
  const double tiny = static_cast<double>(std::exp(-8.0L));
  CHECK(bars.value[1] == doctest::Approx(tiny).epsilon(1e-5));
  const BarExtent e = bar_extent(bars.value[1], true, false, 1.0, full, min_outline);
  CHECK(e.bar <= 1.0f);               // 3.355e−4 × 120 px, shown as one pixel
  CHECK(e.outline == min_outline);    // a marker, far from the full height
  CHECK(e.outline < full / 4);
  // A half-height value is outlined at half height, the largest at full height.
  CHECK(bar_extent(0.5, true, false, 1.0, full, min_outline).outline == doctest::Approx(60.0f));
  CHECK(bar_extent(1.0, true, false, 1.0, full, min_outline).outline == doctest::Approx(full));
  // An alarm (+inf, nan) fills the row; a value not yet computed gets the marker only.
  CHECK(bar_extent(0, false, true, 1.0, full, min_outline).outline == doctest::Approx(full));
  CHECK(bar_extent(0, false, false, 1.0, full, min_outline).outline == min_outline);
}

TEST_CASE("vector view: an x of −∞ draws a bar of exactly 0, also while m is still −∞") {
  // Online softmax on [−∞, 1, 2]: after step 1, m = −∞ and the engines' guard makes the term
  // e^{−∞} = 0, not e^{−∞ − (−∞)} = nan.
  // Every row the vector view draws whose sweep keeps (m, l) together.
  for (Algorithm a : rows::where([](const AlgorithmInfo& row) { return row.view == ViewKind::vector && row.rescales; })) {
    CAPTURE(algorithm_id(a));
    Scenario s;
    s.algorithm = a;
    s.x = {{-INFINITY, 1, 2}};
    const Recording rec = record(s);
    Cursor cur(rec);
    for (int k = 0; k < 3; ++k) {
      cur.seek(k);
      const ExpBars bars = exp_bars(rec, cur.state(), k, 0);
      REQUIRE(bars.drawn.size() == 3);
      CHECK(bars.drawn[0]);
      CHECK(bars.value[0] == 0.0);  // exactly, as −∞ weighs exactly 0
    }
  }
}

TEST_CASE("vector view: the bars are the e the recording holds, also where an engine computed e otherwise than exp(x − m)") {
  // A recording made here, in fp64: x = [1, 3, 2] in an online sweep whose engine computes e its
  // own way (here 2^{(x − m)·1.5}, not e^{x − m}): the bars must be the recorded numbers, and an
  // e recorded against an older m is carried to the m of now by e^{m_then − m_now} alone.
  Recording rec;
  rec.algorithm = Algorithm::online;
  rec.precision = Precision::fp64;
  rec.rows = 1;
  rec.n = 3;
  Recorder r(rec, true);
  const int bx = r.add_buffer({"x", 1, 3, Space::hbm, "input"});
  const int be = r.add_buffer({"e", 1, 3, Space::reg, "e as computed"});
  const int bm = r.add_buffer({"m", 1, 1, Space::reg, "running max"});
  const int bl = r.add_buffer({"l", 1, 1, Space::reg, "running sum"});
  const std::vector<double> x = {1, 3, 2};
  for (int i = 0; i < 3; ++i) r.init(bx, 0, i, x[static_cast<std::size_t>(i)]);
  auto own_e = [](double xi, double m) { return std::exp2((xi - m) * 1.5); };
  double m = -INFINITY, l = 0;
  for (int i = 0; i < 3; ++i) {
    const double m_new = std::max(m, x[static_cast<std::size_t>(i)]);
    const double e = own_e(x[static_cast<std::size_t>(i)], m_new);
    l = (l == 0 ? 0 : l * own_e(m, m_new)) + e;
    m = m_new;
    r.write(be, 0, i, e);
    r.write(bm, 0, 0, m);
    r.write(bl, 0, 0, l);
    Step st;
    st.row = 0;
    st.writes = {Region{be, 0, i, 1, i + 1}, Region{bm, 0, 0, 1, 1}, Region{bl, 0, 0, 1, 1}};
    r.commit(std::move(st));
  }
  Cursor cur(rec);
  // Step 1: x₁ = 1 alone, against m = 1: its recorded e, 1.
  cur.seek(0);
  ExpBars bars = exp_bars(rec, cur.state(), 0, 0);
  CHECK(bars.value[0] == 1.0);
  // Step 2: m grows to 3. x₂'s bar is its recorded 2^0 = 1; x₁'s recorded e = 1 (against m = 1)
  // is rescaled by e^{1 − 3}; before the rescale it is drawn as recorded.
  cur.seek(1);
  bars = exp_bars(rec, cur.state(), 1, 0);
  REQUIRE(bars.rescale);
  CHECK(bars.value[1] == 1.0);
  CHECK(bars.old_value[0] == 1.0);
  const double e2 = static_cast<double>(std::exp(-2.0L));
  const double u = tolerance::unit_roundoff(Precision::fp64);
  CHECK(std::fabs(bars.value[0] - e2) <= 4 * u * e2);
  // Step 3: x₃ = 2 against m = 3: the recorded 2^{−1.5}, not e^{−1} = 0.368.
  cur.seek(2);
  bars = exp_bars(rec, cur.state(), 2, 0);
  CHECK(bars.value[2] == std::exp2(-1.5));
  CHECK(bars.value[1] == 1.0);
  CHECK(std::fabs(bars.value[0] - e2) <= 4 * u * e2);
}
