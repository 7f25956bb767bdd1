// Small text helpers for the step explanations: numbers as a student reads them, subscripts.
#pragma once

#include <string>

namespace flashstep {

// 5 significant digits, "inf", "-inf", "nan"; integers without a decimal point.
std::string num(double x);
// Unicode subscript digits of a non-negative integer: sub(12) == "₁₂".
std::string sub(long long i);
// A size in bytes as a student reads it: "512 B", "3.0 MiB", "7.3 TiB" (binary units).
std::string bytes_text(double bytes);
// printf-style formatting into a std::string.
std::string strf(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

}  // namespace flashstep
