// Comparing two Recordings of the same scenario (the CPU and the GPU backend, say): how far
// apart every result they both have is (the output, m, l, lse and whatever else the algorithm
// declares), with m and l also at every step; and whether they tell the same
// story: at every step the same pass, row, tile, label, pseudocode lines and sentence, where the
// numbers in a sentence may differ (the GPU's l₃ = 1.2035 against the CPU's 1.2034) but not its
// words and symbols.
//
// Non-finite values compare by pattern: NaN against NaN and inf against inf of the same sign are
// equal (difference 0); NaN or inf against anything else is an infinite difference, so a NaN
// that appears on one backend only can never hide behind a tolerance.
#pragma once

#include "core/recording.h"

#include <string>
#include <string_view>
#include <vector>

namespace flashstep {

// The largest difference of one result: absolute for a matrix (as the output), relative
// (rel_diff) for a per-row statistic. A result that a buffer holds (one declaring it, as O and y
// hold the output, or one of its name, case aside: m, l, lse in LSE, the gradients dq in dQ) is
// compared at every step too.
struct ResultDiff {
  std::string name;
  bool matrix = false;
  double max_diff = 0;
  std::string group;  // a matrix's JSON group ("grads"), as in the Recording's results
};

struct CompareReport {
  // Every result both recordings have, in a's order. The three below are entries of it, named.
  std::vector<ResultDiff> results;
  double max_abs_output_diff = 0;  // over every output cell
  double max_rel_m_diff = 0;       // over the final m and the m of every compared step
  double max_rel_l_diff = 0;       // the same for l
  long long steps_compared = 0;    // steps whose registers were compared (0 for summary runs)
  // Empty when the step sequences line up (same count, and at every step the same pass, row,
  // tile, label, lines and sentence but for its numbers); otherwise the first difference
  // ("step 12: sentence differs: '…' vs '…'"), and steps_compared counts the steps before it.
  std::string mismatch;
};

// |a - b| with the non-finite rules above.
double abs_diff(double a, double b);
// |a - b| / max(|a|, |b|, 1), with the non-finite rules above. Below 1 in magnitude this is the
// absolute difference: the relative difference of two numbers near 0 (a running max that
// happens to be 1e-4) measures nothing but rounding.
double rel_diff(double a, double b);

// `text` with every number ("3", "-1.2e-05", "inf", "nan") replaced by '#': what two backends'
// sentences must share. Digits inside a name ("S12", the 4 of "4x4") are kept.
std::string mask_numbers(std::string_view text);

// Throws std::invalid_argument when a and b are not recordings of the same algorithm and shape
// (a matrix result of one shape in a, another in b, included).
CompareReport compare(const Recording& a, const Recording& b);

}  // namespace flashstep
