// MeasuredTexts: lines counted from words measured once (text_lines.h).
#include "app/ui/model/text_lines.h"

#include <algorithm>
#include <cassert>

namespace flashstep::ui {

std::vector<std::uint8_t> bracket_glue(const std::vector<std::string_view>& words) {
  std::vector<std::uint8_t> glued(words.size(), 0);
  int depth = 0;
  for (std::size_t k = 0; k < words.size(); ++k) {
    if (k > 0 && depth > 0 && !words[k].empty() && !words[k - 1].empty()) glued[k] = 1;
    for (const char c : words[k]) {
      if (c == '(' || c == '[') ++depth;
      else if ((c == ')' || c == ']') && depth > 0) --depth;
    }
  }
  return glued;
}

void MeasuredTexts::add_paragraph(const std::vector<float>& widths, const std::vector<std::uint8_t>& glued) {
  assert(!text_end_.empty() && "begin_text() first");
  assert((glued.empty() || glued.size() == widths.size()) && "one glue flag a word");
  words_.insert(words_.end(), widths.begin(), widths.end());
  if (glued.empty()) glued_.resize(words_.size(), 0);
  else glued_.insert(glued_.end(), glued.begin(), glued.end());
  paragraph_end_.push_back(static_cast<std::uint32_t>(words_.size()));
  ++text_end_.back();
}

int MeasuredTexts::lines(std::size_t i, float width) const {
  const std::uint32_t p0 = i == 0 ? 0 : text_end_[i - 1], p1 = text_end_[i];
  int lines = 0;
  for (std::uint32_t p = p0; p < p1; ++p) {
    const std::uint32_t w0 = p == 0 ? 0 : paragraph_end_[p - 1];
    greedy_lines(words_.data() + w0, glued_.data() + w0, paragraph_end_[p] - w0, space_, width,
                 [&](std::size_t, std::size_t) { ++lines; });
  }
  return std::max(1, lines);
}

int MeasuredTexts::most_lines(float width) const {
  int most = 1;
  for (std::size_t i = 0; i < size(); ++i) most = std::max(most, lines(i, width));
  return most;
}

}  // namespace flashstep::ui
