// MeasuredTexts: lines counted from words measured once (text_lines.h).
#include "app/ui/model/text_lines.h"

#include <algorithm>
#include <cassert>

namespace flashstep::ui {

void MeasuredTexts::add_paragraph(const std::vector<float>& widths) {
  assert(!text_end_.empty() && "begin_text() first");
  words_.insert(words_.end(), widths.begin(), widths.end());
  paragraph_end_.push_back(static_cast<std::uint32_t>(words_.size()));
  ++text_end_.back();
}

int MeasuredTexts::lines(std::size_t i, float width) const {
  const std::uint32_t p0 = i == 0 ? 0 : text_end_[i - 1], p1 = text_end_[i];
  int lines = 0;
  for (std::uint32_t p = p0; p < p1; ++p) {
    const std::uint32_t w0 = p == 0 ? 0 : paragraph_end_[p - 1];
    greedy_lines(words_.data() + w0, paragraph_end_[p] - w0, space_, width,
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
