// Number formats the engines compute in, and how each one is emulated.
//
// fp64 and fp32 are the machine's double and float. fp16 and bf16 are Eigen::half and
// Eigen::bfloat16: every arithmetic operation on them computes in float and rounds the result
// back to 16 bits, so e^12 overflows to inf in fp16 exactly where it would on hardware. The
// engines keep every intermediate in the run's format, so a 16-bit run also accumulates QKᵀ,
// PV, m, l and O in 16 bits; FlashAttention's kernels with 16-bit inputs accumulate those in
// fp32 and round only P and the final O (app/ui/model/explain.h says so on screen).
#pragma once

#include <Eigen/Core>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

namespace flashstep {

enum class Precision { fp64, fp32, fp16, bf16 };

inline constexpr Precision kAllPrecisions[] = {Precision::fp64, Precision::fp32, Precision::fp16,
                                               Precision::bf16};

std::string_view precision_name(Precision p);
std::optional<Precision> parse_precision(std::string_view s);

// Largest finite value of the format (65504 for fp16).
double precision_max(Precision p);
// ln(max): the x above which e^x overflows (≈ 11.09 fp16, 88.72 fp32/bf16, 709.78 fp64).
double overflow_threshold(Precision p);
// Round a double to the nearest value of the format (as the engines do to every input).
double round_to(Precision p, double x);

// ---- the scalar types the engines are instantiated with ---------------------------------

template <class T>
inline double to_double(T x) {
  if constexpr (std::is_same_v<T, double>)
    return x;
  else
    return static_cast<double>(static_cast<float>(x));
}

// double → float rounded to odd: truncate, and set the last bit when anything was cut off.
// Rounding that float on to 16 bits then gives the nearest 16-bit value; plain double → float
// → 16 bit can land on a 16-bit midpoint in float and break the tie the wrong way.
inline float round_to_odd_float(double x) {
  float f = static_cast<float>(x);
  if (!std::isfinite(f) || static_cast<double>(f) == x) return f;
  if (std::fabs(static_cast<double>(f)) > std::fabs(x)) f = std::nextafter(f, 0.0f);
  std::uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  bits |= 1u;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

template <class T>
inline T from_double(double x) {
  if constexpr (std::is_same_v<T, double>)
    return x;
  else if constexpr (std::is_same_v<T, float>)
    return static_cast<float>(x);
  else
    return T(round_to_odd_float(x));
}

template <class T>
inline T inf_of() {
  return std::numeric_limits<T>::infinity();
}

template <class T>
inline T nan_of() {
  return std::numeric_limits<T>::quiet_NaN();
}

template <class T>
inline bool is_nan(T x) {
  return std::isnan(to_double(x));
}

template <class T>
inline bool is_neg_inf(T x) {
  return to_double(x) == -std::numeric_limits<double>::infinity();
}

// The larger of a and b, NaN if either is NaN, as numpy's maximum. std::max(a, NaN) is a, so a
// NaN read by a running max would vanish and leave m finite while l is NaN.
template <class T>
inline T nan_max(T a, T b) {
  if (is_nan(a) || is_nan(b)) return nan_of<T>();
  return a < b ? b : a;
}

// What exp(x − m) subtracts: m, or 0 while m is −∞ (nothing finite seen yet). Then an all −∞
// row or tile gives exp(−∞ − 0) = 0 and rescale factors exp(−∞ − 0) = 0 instead of
// exp(−∞ + ∞) = NaN: FlashAttention's kernels guard their row max exactly so.
template <class T>
inline T exp_base(T m) {
  return is_neg_inf(m) ? T(0) : m;
}

// Calls f with a value of the scalar type of precision p: f(double{}), f(float{}), ...
template <class F>
decltype(auto) with_scalar(Precision p, F&& f) {
  switch (p) {
    case Precision::fp64: return f(double{});
    case Precision::fp32: return f(float{});
    case Precision::fp16: return f(Eigen::half{});
    case Precision::bf16: return f(Eigen::bfloat16{});
  }
  return f(float{});
}

}  // namespace flashstep
