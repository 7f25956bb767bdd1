// Texts' words measured once at one font size, so that the lines each text wraps onto at any
// width are counted with additions alone: the Steps tab and Compare count every step's sentence
// again whenever their column's width changes, and a 200000-step recording's sentences took
// half a second to measure, each frame of a window being resized. The measuring (ImGui's font)
// is rich_text.cpp's measure_rich; what is here is arithmetic, tested without a window.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace flashstep::ui {

// Lays out words of widths w[0..n) greedily into lines no wider than `width`, a space between
// two words on a line; a word wider than the line takes a line of its own. Empty words (two
// spaces in a row: "max(…) = 3;  l = …") keep their space inside a line but do not start one,
// so that no line begins with a space. Calls on_line(first, last) for each line's words
// [first, last). wrap_rich breaks text by it and MeasuredTexts counts by it, so the two cannot
// disagree.
template <class OnLine>
void greedy_lines(const float* w, std::size_t n, float space, float width, OnLine on_line) {
  std::size_t first = 0;
  float line_w = 0;
  for (std::size_t k = 0; k < n; ++k) {
    if (k != first) {
      if (line_w + space + w[k] <= width) {
        line_w += space + w[k];
        continue;
      }
      on_line(first, k);
      first = k;
    }
    if (w[k] == 0 && k + 1 < n) ++first;  // an empty word does not start a line
    else line_w = w[k];
  }
  on_line(first, n);  // the last line, or the one empty line of no words
}

class MeasuredTexts {
 public:
  // Texts at font size `size`, where a space is `space` wide.
  explicit MeasuredTexts(float size = 0, float space = 0) : size_(size), space_(space) {}
  float font_size() const { return size_; }
  // Appends a text: each of its paragraphs (split at '\n') as its words' widths.
  void begin_text() { text_end_.push_back(text_end_.empty() ? 0 : text_end_.back()); }
  void add_paragraph(const std::vector<float>& widths);
  std::size_t size() const { return text_end_.size(); }
  // The lines text i takes at `width`: every paragraph's, at least one each.
  int lines(std::size_t i, float width) const;
  // The most lines any text takes at `width` (1 when there are none).
  int most_lines(float width) const;

 private:
  float size_, space_;
  std::vector<float> words_;                  // every paragraph's words' widths, in order
  std::vector<std::uint32_t> paragraph_end_;  // past each paragraph's last word in words_
  std::vector<std::uint32_t> text_end_;       // past each text's last paragraph
};

}  // namespace flashstep::ui
