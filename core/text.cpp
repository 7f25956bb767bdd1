#include "core/text.h"

#include <cmath>
#include <cstdarg>
#include <cstdio>

namespace flashstep {

std::string num(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "∞" : "−∞";  // as the papers print them
  if (x == 0) return "0";  // also -0
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.5g", x);
  return buf;
}

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
