// The long sweeps' sample mode. The Release suite runs every sweep whole; the sanitizer suite
// (./build.sh test sets FLASHSTEP_TEST_SAMPLE=1 for it) runs a sample of each that still meets
// every case once: every row of the algorithm table a sweep covers, every precision, each mask,
// scale, font size or mode once, but not their cross product: the sanitizers look for memory
// errors and undefined behaviour in the code each case runs, and the cross product's numbers
// are the Release suite's to check. Each sweep says in a comment how its sample is chosen.
//
// FLASHSTEP_TEST_SAMPLE: unset, empty or 0, the whole sweep; 1, the sample. Any other value
// stops the test program with one line naming it.
#pragma once

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace sample {

inline bool on() {
  static const bool value = [] {
    const char* v = std::getenv("FLASHSTEP_TEST_SAMPLE");
    const std::string s = v ? v : "";
    if (s.empty() || s == "0") return false;
    if (s == "1") return true;
    std::fprintf(stderr, "FLASHSTEP_TEST_SAMPLE is \"%s\": it must be 1 (the sample), 0 or unset (every case)\n",
                 s.c_str());
    std::exit(2);
  }();
  return value;
}

// Whether variant `i` of `n` (a font size, a mask, a precision...) runs for the sweep's item
// `k` (a lesson, an algorithm...): always in the whole sweep; in the sample only the variant
// that turns with the item, i == k mod n, so that n or more items meet every variant once.
inline bool keeps(std::size_t k, std::size_t i, std::size_t n) { return !on() || i == k % n; }

}  // namespace sample
