// The text section of widgets.h: text in the markup of core/markup.h laid out as a paper prints
// it, wrapped, fitted and in tooltips.
#include "app/ui/widgets.h"

#include "core/markup.h"
#include "core/text.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace flashstep::ui {

// ---- text ----

const char* pick(const char* unicode, ImWchar probe, const char* ascii) {
  const ImFont* f = ImGui::GetFont();
  return f && f->FindGlyphNoFallback(probe) ? unicode : ascii;
}

void text_centered(ImDrawList* dl, ImVec2 center, ImU32 col, const char* text, float size) {
  if (!(size > 0)) size = ImGui::GetFontSize();
  const ImVec2 ts = ImGui::GetFont()->CalcTextSizeA(size, 1e9f, 0.0f, text);
  dl->AddText(ImGui::GetFont(), size,
              ImVec2(std::floor(center.x - ts.x * 0.5f), std::floor(center.y - ts.y * 0.5f)), col, text);
}

namespace {

// Runs laid out from pos at `size`, as draw_rich says; a script's runs at 0.7× its size, on its
// own lowered or raised line, and so on down for a script inside a script, at 0.85× the script
// it is in (the i of e^{x_i}): 0.7 × 0.7 left it half the line's size, too small to read.
float draw_runs(ImDrawList* dl, ImVec2 pos, ImU32 col, const std::vector<TextRun>& runs, float size,
                bool measure_only, bool in_script = false) {
  ImFont* f = ImGui::GetFont();
  const float small = size * (in_script ? 0.85f : 0.7f);
  float x = pos.x;
  auto width = [&](float sz, const std::string& t) { return f->CalcTextSizeA(sz, 1e9f, 0.0f, t.c_str()).x; };
  // A script's contents at `at`: one piece of text, or runs of their own (nested markup).
  auto script = [&](const TextRun& r, ImVec2 at) {
    if (r.children.size() == 1 && r.children[0].kind == RunKind::normal) {
      if (!measure_only) dl->AddText(f, small, at, col, r.text.c_str());
      return width(small, r.text);
    }
    return draw_runs(dl, at, col, r.children, small, measure_only, true);
  };
  for (const TextRun& r : runs) {
    switch (r.kind) {
      case RunKind::normal:
        if (!measure_only) dl->AddText(f, size, ImVec2(x, pos.y), col, r.text.c_str());
        x += width(size, r.text);
        break;
      case RunKind::sub:  // lowered: its baseline a third of the size below the line's
        x += script(r, ImVec2(x + size * 0.02f, pos.y + size * 0.42f)) + size * 0.06f;
        break;
      case RunKind::sup:  // raised: its top a little above the line's
        x += script(r, ImVec2(x + size * 0.04f, pos.y - size * 0.08f)) + size * 0.08f;
        break;
      case RunKind::tilde: {  // the letter, with a tilde drawn over it
        const float w = width(size, r.text);
        if (!measure_only) {
          dl->AddText(f, size, ImVec2(x, pos.y), col, r.text.c_str());
          const float tw = width(size * 0.8f, "~");
          // Over a letter without an ascender (m̃) the tilde sits lower, clear of the line above.
          const bool short_letter = r.text.size() == 1 && std::strchr("acemnorsuvwxz", r.text[0]) != nullptr;
          dl->AddText(f, size * 0.8f, ImVec2(x + (w - tw) * 0.5f, pos.y - size * (short_letter ? 0.3f : 0.5f)), col,
                      "~");
        }
        x += w;
        break;
      }
    }
  }
  return x - pos.x;
}

}  // namespace

float draw_rich(ImDrawList* dl, ImVec2 pos, ImU32 col, std::string_view text, float size, bool measure_only) {
  if (!(size > 0)) size = ImGui::GetFontSize();
  return draw_runs(dl, pos, col, parse_markup(text), size, measure_only);
}

namespace {

// A paragraph's words: split at the spaces that are not inside a sub- or superscript's braces
// (markup never spans such a space), so that a line's width is its words' and the spaces'
// between them, each word measured once: a long text wraps in time linear in its length.
std::vector<std::string_view> rich_words(std::string_view text) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i <= text.size()) {
    int depth = 0;
    std::size_t j = i;
    for (; j < text.size(); ++j) {
      if (text[j] == '{') ++depth;
      else if (text[j] == '}' && depth > 0) --depth;
      else if (text[j] == ' ' && depth == 0) break;
    }
    words.push_back(text.substr(i, j - i));
    i = j + 1;
  }
  return words;
}

float rich_width(std::string_view word, float size) {
  return draw_rich(nullptr, ImVec2(0, 0), 0, word, size, true);
}

}  // namespace

std::vector<std::string> wrap_rich(std::string_view text, float width, float size) {
  const std::vector<std::string_view> words = rich_words(text);
  std::vector<float> w(words.size());
  for (std::size_t k = 0; k < words.size(); ++k) w[k] = rich_width(words[k], size);
  const std::vector<std::uint8_t> glued = bracket_glue(words);
  std::vector<std::string> lines;
  greedy_lines(w.data(), glued.data(), w.size(), rich_width(" ", size), width, [&](std::size_t first, std::size_t last) {
    std::string line;
    for (std::size_t k = first; k < last; ++k) {
      if (k > first) line += ' ';
      line += words[k];
    }
    lines.push_back(std::move(line));
  });
  return lines;
}

MeasuredTexts measured_texts(float size) {
  if (!(size > 0)) size = ImGui::GetFontSize();
  return MeasuredTexts(size, rich_width(" ", size));
}

void measure_rich(MeasuredTexts& texts, std::string_view text) {
  texts.begin_text();
  std::vector<float> w;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t nl = std::min(text.find('\n', start), text.size());
    w.clear();
    const std::vector<std::string_view> words = rich_words(text.substr(start, nl - start));
    for (const std::string_view word : words) w.push_back(rich_width(word, texts.font_size()));
    texts.add_paragraph(w, bracket_glue(words));
    if (nl >= text.size()) break;
    start = nl + 1;
  }
}

void text_rich(std::string_view text, float width) {
  const float size = ImGui::GetFontSize();
  const ImU32 col = ImGui::GetColorU32(ImGuiCol_Text);
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t nl = std::min(text.find('\n', start), text.size());
    for (const std::string& line : wrap_rich(text.substr(start, nl - start), width, size)) {
      const ImVec2 p = ImGui::GetCursorScreenPos();
      const float w = draw_rich(ImGui::GetWindowDrawList(), p, col, line, size);
      ImGui::Dummy(ImVec2(std::max(w, 1.0f), ImGui::GetTextLineHeight()));
    }
    if (nl >= text.size()) break;
    start = nl + 1;
  }
}

int text_rich_lines(std::string_view text, float width) {
  MeasuredTexts texts = measured_texts(ImGui::GetFontSize());
  measure_rich(texts, text);
  return texts.lines(0, width);
}

float text_fit(ImDrawList* dl, ImVec2 pos, ImU32 col, std::initializer_list<const char*> candidates,
               float max_w, float size) {
  if (!(size > 0)) size = ImGui::GetFontSize();
  for (const char* c : candidates) {
    const float w = ImGui::GetFont()->CalcTextSizeA(size, 1e9f, 0.0f, c).x;
    if (w <= max_w) {
      dl->AddText(ImGui::GetFont(), size, pos, col, c);
      return w;
    }
  }
  return 0;
}

void tooltip(const std::string& title, const std::string& body) {
  // In core/markup's notation, as the sentences are: e^{x − m}, S_{ij}, \~P.
  ImGui::BeginTooltip();
  text_rich(title, ImGui::GetFontSize() * 28.0f);
  if (!body.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    text_rich(body, ImGui::GetFontSize() * 28.0f);
    ImGui::PopStyleColor();
  }
  ImGui::EndTooltip();
}

}  // namespace flashstep::ui
