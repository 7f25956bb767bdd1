// Texts' words measured once at one font size, so that the lines each text wraps onto at any
// width are counted with additions alone: the Steps tab and Compare count every step's sentence
// again whenever their column's width changes, and a 200000-step recording's sentences took
// half a second to measure, each frame of a window being resized. The measuring (ImGui's font)
// is rich_text.cpp's measure_rich; what is here is arithmetic, tested without a window.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace flashstep::ui {

// Which spaces of a paragraph lie inside a bracket: glued[k] is 1 where the space before word k
// is inside "(" … ")" or "[" … "]" opened in an earlier word and not yet closed, and neither word
// is empty. A bracket's group of words is kept on one line where it can (greedy_lines), so that
// "exp(xᵢ − mᵢ)" and "max(1000, 2000)" do not break inside. A ")" with no "(" is ignored; an
// unclosed "(" glues the rest of its paragraph, which then breaks inside as any group too wide.
std::vector<std::uint8_t> bracket_glue(const std::vector<std::string_view>& words);

// Lays out words of widths w[0..n) greedily into lines no wider than `width`, a space between
// two words on a line; a word wider than the line takes a line of its own. Empty words (two
// spaces in a row: "max(…) = 3;  l = …") keep their space inside a line but do not start one,
// so that no line begins with a space. Words joined by glued spaces (bracket_glue; none when
// `glued` is null) are placed as one group: on the line where they fit, else on a line of their
// own where the group fits one and the line left behind is at least half full, else word by word
// (a group wider than a line, or one that would leave a line mostly empty, breaks inside as
// plain words do). Calls on_line(first, last) for each line's words [first, last). wrap_rich
// breaks text by it and MeasuredTexts counts by it, so the two cannot disagree.
template <class OnLine>
void greedy_lines(const float* w, const std::uint8_t* glued, std::size_t n, float space, float width,
                  OnLine on_line) {
  std::size_t first = 0;
  float line_w = 0;
  const auto place = [&](std::size_t k) {
    if (k != first) {
      if (line_w + space + w[k] <= width) {
        line_w += space + w[k];
        return;
      }
      on_line(first, k);
      first = k;
    }
    if (w[k] == 0 && k + 1 < n) ++first;  // an empty word does not start a line
    else line_w = w[k];
  };
  for (std::size_t k = 0; k < n;) {
    std::size_t end = k + 1;
    float group_w = w[k];
    while (glued && end < n && glued[end]) group_w += space + w[end++];
    if (end == k + 1) {
      place(k++);
      continue;
    }
    if (k != first && line_w + space + group_w <= width) {
      line_w += space + group_w;
    } else if (group_w <= width && (k == first || line_w >= width / 2)) {
      if (k != first) on_line(first, k);
      first = k;
      line_w = group_w;
    } else {
      for (std::size_t j = k; j < end; ++j) place(j);
    }
    k = end;
  }
  on_line(first, n);  // the last line, or the one empty line of no words
}

template <class OnLine>
void greedy_lines(const float* w, std::size_t n, float space, float width, OnLine on_line) {
  greedy_lines(w, nullptr, n, space, width, on_line);
}

class MeasuredTexts {
 public:
  // Texts at font size `size`, where a space is `space` wide.
  explicit MeasuredTexts(float size = 0, float space = 0) : size_(size), space_(space) {}
  float font_size() const { return size_; }
  // Appends a text: each of its paragraphs (split at '\n') as its words' widths, and which of
  // their spaces are glued (bracket_glue; none when `glued` is empty).
  void begin_text() { text_end_.push_back(text_end_.empty() ? 0 : text_end_.back()); }
  void add_paragraph(const std::vector<float>& widths, const std::vector<std::uint8_t>& glued = {});
  std::size_t size() const { return text_end_.size(); }
  // The lines text i takes at `width`: every paragraph's, at least one each.
  int lines(std::size_t i, float width) const;
  // The most lines any text takes at `width` (1 when there are none).
  int most_lines(float width) const;

 private:
  float size_, space_;
  std::vector<float> words_;                  // every paragraph's words' widths, in order
  std::vector<std::uint8_t> glued_;           // the same words' bracket_glue
  std::vector<std::uint32_t> paragraph_end_;  // past each paragraph's last word in words_
  std::vector<std::uint32_t> text_end_;       // past each text's last paragraph
};

}  // namespace flashstep::ui
