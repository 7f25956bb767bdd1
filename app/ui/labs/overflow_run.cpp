// The overflow lab's numbers: naive and safe softmax of [1, 2, x] in one precision. No ImGui
// (the model library, tested without a window); lab_overflow.cpp draws them.
#include "app/ui/labs/lab_overflow.h"

#include "core/engine.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace flashstep::ui {

namespace {

// Final contents of buffer `name`, row 0, from a recording with steps.
std::vector<double> final_row(const Recording& rec, const char* name) {
  const int b = rec.find_buffer(name);
  std::vector<double> out;
  if (b < 0 || rec.step_count() == 0) return out;
  const State st = replay(rec, rec.step_count() - 1);
  for (int c = 0; c < rec.buffers[b].cols; ++c) out.push_back(st.values[b][c]);
  return out;
}

bool all_finite(const std::vector<double>& v) {
  return std::all_of(v.begin(), v.end(), [](double a) { return std::isfinite(a); });
}

}  // namespace

OverflowRun run_overflow(double x, Precision p) {
  OverflowRun out;
  Scenario s;
  s.precision = p;
  s.x = {{1.0, 2.0, x}};
  s.algorithm = Algorithm::naive;
  const Recording naive = record(s);
  s.algorithm = Algorithm::safe;
  const Recording safe = record(s);
  out.x = final_row(naive, "x");
  out.exp_naive = final_row(naive, "e");
  out.y_naive = final_row(naive, "y");
  out.exp_safe = final_row(safe, "e");
  out.y_safe = final_row(safe, "y");
  out.l_naive = naive.l().empty() ? 0 : naive.l()[0];
  out.m_safe = safe.m().empty() ? 0 : safe.m()[0];
  out.l_safe = safe.l().empty() ? 0 : safe.l()[0];
  // The engines keep e as "last computed"; recompute the full column so the table is complete.
  if (out.exp_naive.size() == out.x.size())
    for (std::size_t i = 0; i < out.x.size(); ++i) out.exp_naive[i] = round_to(p, std::exp(out.x[i]));
  if (out.exp_safe.size() == out.x.size())
    for (std::size_t i = 0; i < out.x.size(); ++i)
      out.exp_safe[i] = round_to(p, std::exp(out.x[i] - out.m_safe));
  out.naive_ok = !out.y_naive.empty() && all_finite(out.y_naive);
  out.safe_ok = !out.y_safe.empty() && all_finite(out.y_safe);
  return out;
}

}  // namespace flashstep::ui
