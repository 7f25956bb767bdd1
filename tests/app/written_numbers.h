// What the tests ask of every number a view writes in a cell (WrittenNumber, view_logic.h),
// checked from the number alone, not from the rule that chose it: it fits its room; a cell left
// empty had no room even for the shortest form; two significant digits wherever two fit; and a
// fraction written one way ("0.6" or ".6") in each group (a matrix, a row of cells).
#pragma once

#include "app/ui/views/view_logic.h"

#include <doctest/doctest.h>
#include <imgui.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace flashstep::ui::written {

inline const std::string kMinus = "−";

// The significant digits of a number as written: its digits before any "×10", leading zeros
// left out ("0.07" has 1, "1.2×10⁴" 2, "≈0" none).
inline int significant(const std::string& t) {
  const std::string mantissa = t.substr(0, t.find("×"));
  int n = 0;
  bool lead = true;
  for (const char ch : mantissa) {
    if (ch < '0' || ch > '9') continue;
    if (lead && ch == '0') continue;
    lead = false;
    ++n;
  }
  return n;
}

inline std::string unsigned_part(const std::string& t) {
  return t.compare(0, kMinus.size(), kMinus) == 0 ? t.substr(kMinus.size()) : t;
}

// "0.6" as ".6", "−0.6" as "−.6".
inline std::string without_zero(std::string t) {
  const std::size_t at = t.compare(0, kMinus.size(), kMinus) == 0 ? kMinus.size() : 0;
  if (t.compare(at, 2, "0.") == 0) t.erase(at, 1);
  return t;
}

// What was checked: numbers where two digits fit, and groups whose numbers took different
// digits (so that a sweep can say it met both).
struct Tally {
  int two_fit = 0, mixed = 0, empty = 0;
};

inline void check(const std::vector<WrittenNumber>& numbers, Tally& tally) {
  std::map<int, std::pair<bool, bool>> forms;  // each group: a ".6", a "0.6"
  std::map<int, std::map<int, int>> digits;    // each group's numbers' significant digits
  for (const WrittenNumber& n : numbers) {
    CAPTURE(n.text);
    CAPTURE(n.value);
    CAPTURE(n.room);
    const auto width = [&](const std::string& t) {
      return ImGui::GetFont()->CalcTextSizeA(n.size, 1e9f, 0.0f, t.c_str()).x;
    };
    if (n.text.empty()) {
      CHECK(width(tiny_number(n.value)) > n.room);  // not even "≈0" or "−2" fits
      ++tally.empty;
      continue;
    }
    CHECK(width(n.text) <= n.room);
    const std::string two = compact_number(n.value, 2);
    if (width(two) <= n.room || width(without_zero(two)) <= n.room) {
      ++tally.two_fit;
      CHECK(significant(n.text) >= significant(two));
    }
    ++digits[n.group][significant(n.text)];
    forms[n.group].first |= unsigned_part(n.text).rfind(".", 0) == 0;
    forms[n.group].second |= unsigned_part(n.text).rfind("0.", 0) == 0;
  }
  for (const auto& [group_, f] : forms) {
    const auto& group = group_;
    CAPTURE(group);
    CHECK_FALSE((f.first && f.second));
  }
  for (const auto& [group, d] : digits) tally.mixed += d.size() > 1 ? 1 : 0;
}

}  // namespace flashstep::ui::written
