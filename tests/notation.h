// What a test of the on-screen words rejects: ASCII stand-ins for the papers' notation in the
// marked-up text that the window lays out (core/markup.h).
#pragma once

#include <regex>
#include <string>

namespace notation {

// ASCII stand-ins for the notation, in the marked-up text the window lays out (core/markup):
// "K^T" for Kᵀ, "x_i" or "_(…)" for a subscript, "^(…)" or "e^x" for a power, "S11" for S₁₁,
// "16x16" for 16×16, "inf" for ∞, "1.669e-05" for 1.669×10⁻⁵, "sum exp" for Σ, a hyphen for −.
inline std::string ascii_form(const std::string& t) {
  static const std::regex kBad[] = {
      std::regex(R"([_^]\()"),                      // plain_text's fallback, written by hand
      std::regex(R"(\^T\b)"),                       // K^T
      std::regex(R"([A-Za-z]_[A-Za-z0-9])"),        // x_i, S_ij, O_acc, m_old
      std::regex(R"(\be\^[A-Za-z0-9(])"),           // e^x, e^(…)
      std::regex(R"(\b[SP]\d\d)"),                  // S11
      std::regex(R"(\d+x\d+)"),                     // 16x16
      std::regex(R"((^|[^A-Za-z])inf([^A-Za-z]|$))"),  // inf beside ∞
      std::regex(R"(\d[eE][-+]?\d)"),               // 1.669e-05, 3.8e+02
      std::regex(R"(sum exp)"),
      std::regex(R"((^|[\s(\[=,])-(\d|∞|[A-Za-z(]))"),  // -5, -inf, (-x
      std::regex(R"(\s-\s)"),                       // x - m
      std::regex(R"(\*)"),                          // 4*d
      std::regex(R"([A-Za-z]~)"),                   // P~ for P̃ (the markup is \~P)
  };
  for (const std::regex& re : kBad) {
    std::smatch m;
    if (std::regex_search(t, m, re)) return m.str();
  }
  return "";
}

}  // namespace notation
