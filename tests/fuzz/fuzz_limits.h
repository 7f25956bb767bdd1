// What one fuzz input may cost. resolve() generates the random inputs a scenario leaves open
// (rows × n for a softmax, Q, K and V of N × d for attention) and accepts up to kMaxElements
// each: valid, but seconds of work under ASan and UBSan, which libFuzzer's -timeout reports as
// a finding ({"algorithm": "attn-tiled", "n": 33, "d": 888887} is 3 × 29M normal numbers).
// The harnesses are after the parsers and the checks, not big inputs: past kMaxFuzzElements
// they stop before resolve(), after everything that parses and checks the input has run.
#pragma once

#include "core/algorithms.h"
#include "core/scenario.h"

namespace flashstep::fuzz {

// Generated elements (doubles) one fuzz input may ask resolve() for.
inline constexpr long long kMaxFuzzElements = 1 << 16;

// Elements of the random input resolve() would generate for s; 0 when the input is given, a
// size is not positive or the shape is over kMaxElements (resolve() refuses those before
// generating anything).
inline long long random_elements(const Scenario& s) {
  if (s.n <= 0 || s.d <= 0 || s.rows <= 0) return 0;
  if (takes_qkv(s.algorithm)) {
    if (!s.q.empty() || !s.k.empty() || !s.v.empty() || static_cast<long long>(s.n) * s.d > kMaxElements)
      return 0;
    return 3ll * s.n * s.d;  // Q, K and V
  }
  if (!s.x.empty() || static_cast<long long>(s.rows) * s.n > kMaxElements) return 0;
  return static_cast<long long>(s.rows) * s.n;
}

// True when resolve(s) would generate more than the cap: the harness stops there.
inline bool too_costly(const Scenario& s) { return random_elements(s) > kMaxFuzzElements; }

}  // namespace flashstep::fuzz
