// The overflow lab: one slider for x (up to 3000) and the precision; naive and safe softmax
// side by side on the small vector [1, 2, x], run by the core engines, with the overflow
// threshold ln(max) of every precision marked on an x axis. Naive breaks exactly where e^x
// passes the largest finite number; safe never does.
#pragma once

#include "core/precision.h"

#include <array>
#include <vector>

namespace flashstep::ui {

inline constexpr float kOverflowLabMaxX = 3000.0f;

struct OverflowRun {
  std::vector<double> x, exp_naive, y_naive;  // naive: e^{x_i}, y
  std::vector<double> exp_safe, y_safe;       // safe: e^{x_i − m}, y
  double l_naive = 0, m_safe = 0, l_safe = 0;
  bool naive_ok = true, safe_ok = true;       // every y finite
};

// Runs naive and safe (core engines) on [1, 2, x] in precision p.
OverflowRun run_overflow(double x, Precision p);

struct OverflowLab {
  float x = 12.0f;
  Precision precision = Precision::fp16;
  // The last run, kept while x and the precision stay the same.
  float cached_x = -1.0f;
  Precision cached_p = Precision::fp64;
  OverflowRun run;
  std::vector<OverflowRun> all;  // one per precision, for the summary table
  // Where the axis wrote its labels in the last frame (screen: x, y, width, height), for tests:
  // the ticks' numbers and the formats' thresholds.
  std::vector<std::array<float, 4>> drawn_labels;
};

// Draws into the current window (the Overflow lab tab); `scale` is the UI scale.
void draw_overflow_lab(OverflowLab& lab, float scale);

}  // namespace flashstep::ui
