#include "core/precision.h"

#include <cmath>

namespace flashstep {

std::string_view precision_name(Precision p) {
  switch (p) {
    case Precision::fp64: return "fp64";
    case Precision::fp32: return "fp32";
    case Precision::fp16: return "fp16";
    case Precision::bf16: return "bf16";
  }
  return "?";
}

std::optional<Precision> parse_precision(std::string_view s) {
  for (Precision p : kAllPrecisions)
    if (precision_name(p) == s) return p;
  return std::nullopt;
}

double precision_max(Precision p) {
  switch (p) {
    case Precision::fp64: return std::numeric_limits<double>::max();
    case Precision::fp32: return std::numeric_limits<float>::max();
    case Precision::fp16: return to_double(std::numeric_limits<Eigen::half>::max());
    case Precision::bf16: return to_double(std::numeric_limits<Eigen::bfloat16>::max());
  }
  return 0;
}

double overflow_threshold(Precision p) { return std::log(precision_max(p)); }

double round_to(Precision p, double x) {
  return with_scalar(p, [x](auto zero) {
    using T = decltype(zero);
    return to_double(from_double<T>(x));
  });
}

}  // namespace flashstep
