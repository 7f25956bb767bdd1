// The Steps tab's m and l: each row shows its own step's state, right after that step, never
// the playhead's. Checked against the passes worked out here from the input in long double.
#include "app/ui/model/step_registers.h"

#include "app/ui/model/app_state.h"

#include "core/engine.h"
#include "tests/rows.h"
#include "tests/tolerance.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

using namespace flashstep;
using namespace flashstep::ui;

namespace {

struct Expected {
  std::optional<long double> m, l;  // nullopt: not yet computed
};

// m and l after step k for one row x, as the algorithm's pseudocode runs: a max pass, then a
// sum pass (a row that does not rescale), or one pass of (m, l) together (a rescaling row).
Expected after_step(Algorithm a, const std::vector<double>& x, int k) {
  const int n = static_cast<int>(x.size());
  auto prefix_max = [&](int count) {
    long double m = -INFINITY;
    for (int i = 0; i < count; ++i) m = std::max<long double>(m, x[static_cast<std::size_t>(i)]);
    return m;
  };
  auto sum_against = [&](int count, long double m) {
    long double l = 0;
    for (int i = 0; i < count; ++i) l += std::exp(static_cast<long double>(x[static_cast<std::size_t>(i)]) - m);
    return l;
  };
  Expected e;
  if (!info(a).rescales) {
    if (k < n) {  // pass 1: the running max
      e.m = prefix_max(k + 1);
    } else {
      e.m = prefix_max(n);
      e.l = sum_against(std::min(k - n + 1, n), *e.m);  // pass 2 sums, pass 3 leaves l
    }
  } else {  // pass 1 updates (m, l) together, pass 2 leaves them
    const int seen = std::min(k + 1, n);
    e.m = prefix_max(seen);
    e.l = sum_against(seen, *e.m);
  }
  return e;
}

// The relative error allowed on l: a sum of at most n terms e^{x_j − m} ≤ 1, each exp in fp32
// (tolerance.h points 1, 2, 4 and 5), for inputs spanning `range` below the max.
double l_tolerance(int n, double range) {
  const double u = tolerance::unit_roundoff(Precision::fp32);
  return tolerance::gamma(n, u) + tolerance::exp_error(tolerance::Exp::cpu, Precision::fp32, range) + u * range +
         2 * u;
}

}  // namespace

TEST_CASE("Steps tab: every row shows m and l of its own step, right after it") {
  const std::vector<std::vector<double>> inputs = {{3, 2, 5, 1}, {7, 8, 1, 2, 9}, {-1, 4, 4, 0.5, 3, 10}};
  // Every row the vector view draws that keeps a running max.
  for (Algorithm a : rows::where([](const AlgorithmInfo& row) { return row.view == ViewKind::vector && row.has_max; })) {
    for (const auto& x : inputs) {
      Scenario s;
      s.algorithm = a;
      s.x = {x};
      const Recording rec = record(s);
      const StepRegisters regs = step_registers(rec);
      REQUIRE(static_cast<int>(regs.m.size()) == rec.step_count());
      const double u = tolerance::unit_roundoff(Precision::fp32);
      for (int k = 0; k < rec.step_count(); ++k) {
        CAPTURE(algorithm_id(a));
        CAPTURE(x.size());
        CAPTURE(k);
        const Expected want = after_step(a, x, k);
        REQUIRE(regs.m[static_cast<std::size_t>(k)].has_value());
        CHECK(*regs.m[static_cast<std::size_t>(k)] == static_cast<double>(*want.m));  // a max is exact
        if (want.l) {
          REQUIRE(regs.l[static_cast<std::size_t>(k)].has_value());
          // A sum of at most n exp terms, each ≤ 1 (tolerance.h points 1, 2, 4 and 5).
          const int n = static_cast<int>(x.size());
          const double range = static_cast<double>(*want.m) - *std::min_element(x.begin(), x.end());
          const double rel = tolerance::gamma(n, u) + tolerance::exp_error(tolerance::Exp::cpu, Precision::fp32, range) +
                             u * range + 2 * u +
                             tolerance::rescale_error(Precision::fp32, tolerance::Exp::cpu, n, range, 0, 0, 2);
          CHECK(std::fabs(*regs.l[static_cast<std::size_t>(k)] - static_cast<double>(*want.l)) <=
                rel * static_cast<double>(*want.l));
        } else {
          // Not summed yet: no l, or the 0 it starts from.
          CHECK((!regs.l[static_cast<std::size_t>(k)] || *regs.l[static_cast<std::size_t>(k)] == 0.0));
        }
      }
    }
  }
}

TEST_CASE("Steps tab: the issue's case, safe softmax: the m₁ row keeps m₁ while the playhead is at step 5") {
  Scenario s;
  s.algorithm = Algorithm::safe;
  s.x = {{7, 8, 1, 2, 9}};
  const StepRegisters regs = step_registers(record(s));
  CHECK(*regs.m[0] == 7.0);  // after m₁ = max(−∞, 7)
  CHECK((!regs.l[0] || *regs.l[0] == 0.0));
  CHECK(*regs.m[1] == 8.0);
  CHECK(*regs.m[5] == 9.0);  // pass 2 works against the global max
}

TEST_CASE("Steps tab: the safe softmax lesson's rows at several playheads show their own steps, not the playhead's") {
  // The case: x = [7, 8] typed into the safe softmax lesson. At step 5 the playhead's
  // row holds m = 8, l = 1.3679; the m₁ row (step 1) must still read m = 7, l = 0.
  for (const std::string text : {"7, 8", "3, 2, 5, 1"}) {
    CAPTURE(text);
    AppState app;
    app.background_allowed = false;
    REQUIRE(app.open_lesson("safe"));
    REQUIRE(edit_vector_text(app.inputs, text));
    app.inputs_changed();
    REQUIRE(app.input_error.empty());
    const std::vector<double> x = app.inputs.x[0];
    const int n = static_cast<int>(x.size());
    const int count = app.played.rec->step_count();
    REQUIRE(count == 3 * n);  // pass 1: max, pass 2: sum of exp, pass 3: normalize
    const double range = *std::max_element(x.begin(), x.end()) - *std::min_element(x.begin(), x.end());
    const double rel = l_tolerance(n, range);
    for (const int playhead : {0, 1, n - 1, n, n + 1, 4, 2 * n, count - 1}) {
      CAPTURE(playhead);
      app.seek(playhead);
      const StepRegisters regs = step_registers(*app.played.rec);
      for (int k = 0; k < count; ++k) {
        CAPTURE(k);
        const StepRow row = step_row(regs, k, playhead);
        CHECK(row.shown == (k <= playhead));  // later steps have not happened yet
        if (!row.shown) continue;
        // m and l of the row after step k, worked out here: pass 1 takes the running max of
        // x₁…x_{k+1}; pass 2 sums e^{x_j − m} over x₁…x_{k−n+1} against the full max; pass 3
        // leaves both.
        long double m = -INFINITY, l = 0;
        for (int j = 0; j <= std::min(k, n - 1); ++j) m = std::max<long double>(m, x[static_cast<std::size_t>(j)]);
        for (int j = 0; j < std::min(k - n + 1, n); ++j)
          l += std::exp(static_cast<long double>(x[static_cast<std::size_t>(j)]) - m);
        REQUIRE(row.m.has_value());
        CHECK(*row.m == static_cast<double>(m));
        if (k < n) {
          CHECK((!row.l || *row.l == 0.0));
        } else {
          REQUIRE(row.l.has_value());
          CHECK(std::fabs(*row.l - static_cast<double>(l)) <= rel * static_cast<double>(l));
        }
      }
    }
    if (text == std::string("7, 8")) {
      const StepRegisters regs = step_registers(*app.played.rec);
      const StepRow first = step_row(regs, 0, 4);  // the m₁ row with the playhead at step 5
      CHECK(*first.m == 7.0);
      CHECK((!first.l || *first.l == 0.0));
      const StepRow fifth = step_row(regs, 4, 4);
      CHECK(*fifth.m == 8.0);
      CHECK(std::fabs(*fifth.l - (1.0 + std::exp(-1.0))) <= l_tolerance(2, 1.0) * (1.0 + std::exp(-1.0)));
    }
  }
}

TEST_CASE("Steps tab: with several rows, m and l are of the row the table names: the step's query row, its tile's first, or none") {
  // A step about no row (the standard backward's key steps, a K/V block written back) showed
  // m and l of row 1, a row it has nothing to do with.
  int rowless = 0, checked = 0;
  for (Algorithm a : rows::where([](const AlgorithmInfo& row) { return takes_qkv(row.algorithm); })) {
    CAPTURE(algorithm_id(a));
    Scenario s;
    s.algorithm = a;
    s.n = 6;
    s.d = 3;
    s.sram = 48;
    const Recording rec = record(s);
    REQUIRE(several_register_rows(rec));
    const StepRegisters regs = step_registers(rec);
    const int bm = rec.find_buffer("m");
    for (int k = 0; k < rec.step_count(); ++k) {
      CAPTURE(k);
      const Step& st = rec.steps[static_cast<std::size_t>(k)];
      const int row = regs.row[static_cast<std::size_t>(k)];
      if (st.row >= 0) {
        CHECK(row == st.row);
      } else if (st.tile_i >= 0) {
        CHECK(row == st.tile_i * rec.Br);
      } else {
        ++rowless;
        CHECK(row == -1);
        CHECK_FALSE(regs.m[static_cast<std::size_t>(k)].has_value());
        CHECK_FALSE(regs.l[static_cast<std::size_t>(k)].has_value());
        continue;
      }
      // The m shown is that row's m right after the step.
      if (bm >= 0 && regs.m[static_cast<std::size_t>(k)]) {
        const State after = replay(rec, k);
        CHECK(*regs.m[static_cast<std::size_t>(k)] == after.at(bm, row, 0, 1));
        ++checked;
      }
    }
  }
  CHECK(rowless > 0);  // the standard backward's dV and dK steps
  CHECK(checked > 0);
}
