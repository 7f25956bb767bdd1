// Comparing two Recordings of the same scenario (the CPU and the GPU backend, say): how far
// apart their outputs, and their m and l at every step, are.
//
// Non-finite values compare by pattern: NaN against NaN and inf against inf of the same sign are
// equal (difference 0); NaN or inf against anything else is an infinite difference, so a NaN
// that appears on one backend only can never hide behind a tolerance.
#pragma once

#include "core/recording.h"

#include <string>

namespace flashstep {

struct CompareReport {
  double max_abs_output_diff = 0;  // over every output cell
  double max_rel_m_diff = 0;       // over the final m and the m of every compared step
  double max_rel_l_diff = 0;       // the same for l
  long long steps_compared = 0;    // steps whose m and l were compared (0 for summary runs)
  // Empty when the step sequences line up (same count, and the same pass, row and tile at every
  // step); otherwise the first difference, and steps_compared counts the steps before it.
  std::string mismatch;
};

// |a - b| with the non-finite rules above.
double abs_diff(double a, double b);
// |a - b| / max(|a|, |b|, 1), with the non-finite rules above. Below 1 in magnitude this is the
// absolute difference: the relative difference of two numbers near 0 (a running max that
// happens to be 1e-4) measures nothing but rounding.
double rel_diff(double a, double b);

// Throws std::invalid_argument when a and b are not recordings of the same algorithm and shape.
CompareReport compare(const Recording& a, const Recording& b);

}  // namespace flashstep
