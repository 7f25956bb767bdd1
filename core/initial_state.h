// Where every running softmax starts: the running max m = −∞ (the identity of max, "nothing
// seen yet"), the running sum l = 0 and the output accumulator O = 0. Defined once here and used
// by the CPU engines, the narration, the fast kernels and the GPU recorders, and passed to the
// shaders as the uniforms m_init, l_init, o_init (shaders/common.glsl), so that no backend starts
// from a literal of its own. The pseudocode's "m₀ ← −∞, l₀ ← 0" lines are checked against it
// (tests/core/test_mask.cpp).
#pragma once

#include "core/precision.h"

#include <limits>

namespace flashstep {

struct InitialState {
  double m, l, o;

  // Each value in the scalar type of a precision (exact: −∞ and 0 are in every format).
  template <class T>
  T m_as() const {
    return from_double<T>(m);
  }
  template <class T>
  T l_as() const {
    return from_double<T>(l);
  }
  template <class T>
  T o_as() const {
    return from_double<T>(o);
  }
};

constexpr InitialState initial_state() { return {-std::numeric_limits<double>::infinity(), 0.0, 0.0}; }

}  // namespace flashstep
