// Small text helpers for the step explanations: numbers as a student reads them, subscripts.
#pragma once

#include <string>

namespace flashstep {

// The one way FlashStep prints a number, on screen, in sentences and in messages: `digits`
// significant digits, "−" for minus (never a hyphen), "∞" and "−∞", "nan", integers without a
// decimal point, and a power of ten as "1.669×10⁻⁵" where %g would write "1.669e-05".
std::string num(double x, int digits = 5);
// x printed to the place of `like`'s last digit as num() prints `like` (at least num()'s 5
// digits): the operands of a difference that cancels, so that what is shown subtracts to what
// is shown. num_to(1002.44019, −2.44019) == "1002.4402" beside num(−2.44019) == "−2.4402".
std::string num_to(double x, double like);
// The same, always with a power of ten: num_sci(12345, 2) == "1.2×10⁴".
std::string num_sci(double x, int digits);
// Unicode subscript digits of a non-negative integer: sub(12) == "₁₂".
std::string sub(long long i);
// A size in bytes as a student reads it: "512 B", "3.0 MiB", "7.3 TiB" (binary units).
std::string bytes_text(double bytes);
// printf-style formatting into a std::string.
std::string strf(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

}  // namespace flashstep
