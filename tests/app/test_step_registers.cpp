// The Steps tab's m and l: each row shows its own step's state, right after that step, never
// the playhead's. Checked against the passes worked out here from the input in long double.
#include "app/ui/model/step_registers.h"

#include "core/engine.h"
#include "tests/tolerance.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

using namespace flashstep;
using namespace flashstep::ui;

namespace {

struct Expected {
  std::optional<long double> m, l;  // nullopt: not yet computed
};

// m and l after step k for one row x, as the algorithm's pseudocode runs.
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
  if (a == Algorithm::safe) {
    if (k < n) {  // pass 1: the running max
      e.m = prefix_max(k + 1);
    } else {
      e.m = prefix_max(n);
      e.l = sum_against(std::min(k - n + 1, n), *e.m);  // pass 2 sums, pass 3 leaves l
    }
  } else {  // online: pass 1 updates (m, l) together, pass 2 leaves them
    const int seen = std::min(k + 1, n);
    e.m = prefix_max(seen);
    e.l = sum_against(seen, *e.m);
  }
  return e;
}

}  // namespace

TEST_CASE("Steps tab: every row shows m and l of its own step, right after it") {
  const std::vector<std::vector<double>> inputs = {{3, 2, 5, 1}, {7, 8, 1, 2, 9}, {-1, 4, 4, 0.5, 3, 10}};
  for (Algorithm a : {Algorithm::safe, Algorithm::online}) {
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
