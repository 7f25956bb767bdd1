// The rows of the algorithm table a test applies to, selected by trait from the whole table.
//
// A test that claims "every algorithm" enumerates the table, so a new algorithm is covered (or
// fails) rather than silently skipped. A test that truly applies to a subset selects it here by
// trait, and the selection CHECKs that it is not empty. A test with one expected value per
// algorithm checks with `covers` that its list names every row of its subset.
#pragma once

#include "core/algorithms.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace rows {

using flashstep::Algorithm;
using flashstep::AlgorithmInfo;

// The rows that satisfy `pred`, in the table's order; never empty (CHECKed).
template <class Pred>
std::vector<Algorithm> where(Pred pred) {
  std::vector<Algorithm> out;
  for (const AlgorithmInfo& a : flashstep::algorithm_table())
    if (pred(a)) out.push_back(a.algorithm);
  CHECK_MESSAGE(!out.empty(), "no row of the algorithm table has the trait this test selects");
  return out;
}

// Rows whose input is a vector x (rows × n): the softmax tests' subject.
inline std::vector<Algorithm> taking_x() {
  return where([](const AlgorithmInfo& a) { return flashstep::takes(a.algorithm, flashstep::kInputX); });
}
// Rows whose inputs are Q, K, V (N × d): the attention tests' subject.
inline std::vector<Algorithm> taking_qkv() {
  return where([](const AlgorithmInfo& a) { return flashstep::takes_qkv(a.algorithm); });
}
// Rows with a compute-shader engine.
inline std::vector<Algorithm> on_gpu(const std::vector<Algorithm>& from) {
  std::vector<Algorithm> out;
  for (Algorithm a : from)
    if (flashstep::info(a).gpu) out.push_back(a);
  CHECK_MESSAGE(!out.empty(), "no row of this selection has a GPU engine");
  return out;
}

// Every algorithm of `subset` is named by some element of `list` (`algo(element)` gives its
// algorithm): a per-algorithm table of expected values that misses a row fails here.
template <class List, class Algo>
void covers(const List& list, const std::vector<Algorithm>& subset, Algo algo) {
  for (Algorithm a : subset) {
    const bool named = std::any_of(std::begin(list), std::end(list), [&](const auto& e) { return algo(e) == a; });
    CHECK_MESSAGE(named, "the test's list has no entry for " << std::string(flashstep::algorithm_id(a)));
  }
}
inline void covers(const std::vector<Algorithm>& list, const std::vector<Algorithm>& subset) {
  covers(list, subset, [](Algorithm a) { return a; });
}

// A small run of row `a`: attention at N = n, d, with the SRAM M = 16·d (tiles of 4 × 4 at d = 4),
// a softmax on the first n of 3, 2, 5, 1, 7, 0, 4, 6.
inline flashstep::Scenario small_run(Algorithm a, int n = 6, int d = 3) {
  flashstep::Scenario s;
  s.algorithm = a;
  if (flashstep::takes_qkv(a)) {
    s.n = n;
    s.d = d;
    s.sram = 16 * d;
  } else {
    static const double kX[] = {3, 2, 5, 1, 7, 0, 4, 6};
    s.x = {std::vector<double>(kX, kX + std::clamp(n, 1, 8))};
  }
  return s;
}

}  // namespace rows
