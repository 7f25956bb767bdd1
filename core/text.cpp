#include "core/text.h"

#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <algorithm>

namespace flashstep {

namespace {

// printf's "%g"/"%e" output of |x| in FlashStep's notation: "1.669e-05" → "1.669×10⁻⁵".
std::string with_power_of_ten(const std::string& s) {
  const std::size_t e = s.find('e');
  if (e == std::string::npos) return s;
  static const char* const kSup[] = {"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
  std::string ex = s.substr(e + 1), out = s.substr(0, e) + "×10";
  if (ex[0] == '-') out += "⁻";
  ex.erase(0, ex.find_first_not_of("+-0"));
  if (ex.empty()) ex = "0";
  for (char c : ex) out += kSup[c - '0'];
  return out;
}

std::string formatted(double x, int digits, char conversion) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "∞" : "−∞";  // as the papers print them
  if (x == 0) return "0";  // also -0
  char buf[40];
  if (conversion == 'e') std::snprintf(buf, sizeof buf, "%.*e", std::max(digits - 1, 0), std::fabs(x));
  else std::snprintf(buf, sizeof buf, "%.*g", std::max(digits, 1), std::fabs(x));
  return (x < 0 ? "−" : "") + with_power_of_ten(buf);  // the minus sign, not a hyphen
}

}  // namespace

std::string num(double x, int digits) { return formatted(x, digits, 'g'); }

std::string num_to(double x, double like) {
  if (!std::isfinite(x) || !std::isfinite(like) || x == 0 || like == 0) return num(x);
  const int more = static_cast<int>(std::floor(std::log10(std::fabs(x)))) -
                   static_cast<int>(std::floor(std::log10(std::fabs(like))));
  return num(x, std::clamp(5 + more, 5, 17));
}
std::string num_sci(double x, int digits) { return formatted(x, digits, 'e'); }

std::string sub(long long i) {
  static const char* const kDigits[] = {"₀", "₁", "₂", "₃", "₄", "₅", "₆", "₇", "₈", "₉"};
  if (i < 0) return "₋" + sub(-i);
  std::string digits = std::to_string(i), out;
  for (char c : digits) out += kDigits[c - '0'];
  return out;
}

std::string bytes_text(double bytes) {
  static const char* const kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (!(bytes >= 1024)) return strf("%.0f B", bytes);
  int u = -1;
  while (bytes >= 1024 && u + 1 < 6) bytes /= 1024, ++u;
  return strf("%.1f %s", bytes, kUnits[u]);
}

std::string strf(const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  va_list copy;
  va_copy(copy, args);
  const int len = std::vsnprintf(nullptr, 0, fmt, copy);
  va_end(copy);
  std::string out(len > 0 ? static_cast<std::size_t>(len) : 0, '\0');
  if (len > 0) std::vsnprintf(out.data(), out.size() + 1, fmt, args);
  va_end(args);
  return out;
}

}  // namespace flashstep
