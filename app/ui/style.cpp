#include "app/ui/style.h"

#include "app/ui/model/text_lines.h"

#include <unistd.h>

#include <algorithm>

namespace flashstep::ui {

namespace {

const ImWchar* glyph_ranges() {
  static ImVector<ImWchar> ranges;
  if (ranges.empty()) {
    ImFontGlyphRangesBuilder b;
    b.AddRanges(ImGui::GetIO().Fonts->GetGlyphRangesDefault());
    // Modifier letters (ʲ) and combining marks (the tilde of P̃), Greek, sub/superscripts,
    // arrows, maths operators, box drawing and shapes (▶ ◀ ■).
    static const ImWchar kExtra[] = {0x02B0, 0x036F, 0x0370, 0x03FF, 0x1D00, 0x1DBF, 0x2000, 0x209F, 0x2190,
                                     0x21FF, 0x2200, 0x23FF, 0x2500, 0x25FF,
                                     0x2713, 0x2713, 0x2717, 0x2717,  // ✓ ✗ (a prediction scored)
                                     0x2C7C, 0x2C7C, 0};  // ⱼ, the subscript j
    b.AddRanges(kExtra);
    b.BuildRanges(&ranges);
  }
  return ranges.Data;
}

ImFont* add_font(const char* const* candidates, float size) {
  ImGuiIO& io = ImGui::GetIO();
  for (const char* const* p = candidates; *p; ++p)
    if (access(*p, R_OK) == 0)
      if (ImFont* f = io.Fonts->AddFontFromFileTTF(*p, size, nullptr, glyph_ranges())) return f;
  ImFontConfig cfg;
  cfg.SizePixels = size;
  return io.Fonts->AddFontDefault(&cfg);
}

}  // namespace

void load_fonts(float scale) {
  static const char* const kSans[] = {"/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
                                      "/usr/share/fonts/TTF/DejaVuSans.ttf", nullptr};
  static const char* const kMono[] = {"/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf",
                                      "/usr/share/fonts/TTF/DejaVuSansMono.ttf", nullptr};
  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->Clear();
  // Order matters: font(role) finds them by index.
  add_font(kSans, kBaseFontSize * scale);
  add_font(kSans, kBaseFontSize * 1.25f * scale);
  add_font(kMono, kBaseFontSize * 0.95f * scale);
  io.FontDefault = io.Fonts->Fonts[0];
}

ImFont* font(FontRole role) {
  ImGuiIO& io = ImGui::GetIO();
  const int i = static_cast<int>(role);
  return i < io.Fonts->Fonts.Size ? io.Fonts->Fonts[i] : ImGui::GetFont();
}

ImVec4 clear_colour(Theme theme) {
  switch (theme) {
    case Theme::light: return ImVec4(0.96f, 0.96f, 0.97f, 1.0f);
    case Theme::projector: return ImVec4(0.0f, 0.0f, 0.0f, 1.0f);
    default: return ImVec4(0.09f, 0.09f, 0.11f, 1.0f);
  }
}

void apply_style(float scale, Theme theme) {
  ImGuiStyle& style = ImGui::GetStyle();
  style = ImGuiStyle();
  if (theme == Theme::light) ImGui::StyleColorsLight(&style);
  else ImGui::StyleColorsDark(&style);
  style.WindowRounding = 3.0f;
  style.FrameRounding = 3.0f;
  style.GrabRounding = 3.0f;
  style.WindowPadding = ImVec2(8, 6);
  style.ItemSpacing = ImVec2(8, 5);
  style.WindowBorderSize = 1.0f;
  ImVec4* c = style.Colors;
  const ImVec4 bg = clear_colour(theme);
  c[ImGuiCol_WindowBg] = ImVec4(bg.x, bg.y, bg.z, 0.0f);
  switch (theme) {
    case Theme::dark:
      c[ImGuiCol_TitleBg] = ImVec4(0.14f, 0.15f, 0.19f, 1.0f);
      c[ImGuiCol_TitleBgActive] = ImVec4(0.17f, 0.22f, 0.33f, 1.0f);
      break;
    case Theme::light:
      c[ImGuiCol_TitleBg] = ImVec4(0.86f, 0.87f, 0.90f, 1.0f);
      c[ImGuiCol_TitleBgActive] = ImVec4(0.76f, 0.82f, 0.92f, 1.0f);
      c[ImGuiCol_Border] = ImVec4(0.0f, 0.0f, 0.0f, 0.25f);
      break;
    case Theme::projector:
      // Pure white on black, borders and frames drawn, the accent a saturated blue.
      c[ImGuiCol_Text] = ImVec4(1, 1, 1, 1);
      c[ImGuiCol_TextDisabled] = ImVec4(0.78f, 0.78f, 0.82f, 1);
      c[ImGuiCol_Border] = ImVec4(0.75f, 0.75f, 0.80f, 0.9f);
      c[ImGuiCol_TitleBg] = ImVec4(0.10f, 0.10f, 0.12f, 1.0f);
      c[ImGuiCol_TitleBgActive] = ImVec4(0.0f, 0.30f, 0.62f, 1.0f);
      c[ImGuiCol_FrameBg] = ImVec4(0.16f, 0.16f, 0.20f, 1.0f);
      // Blues dark enough that white text on them keeps 7:1 (tests/app/test_presentation.cpp).
      c[ImGuiCol_Button] = ImVec4(0.0f, 0.28f, 0.58f, 1.0f);
      c[ImGuiCol_ButtonHovered] = ImVec4(0.0f, 0.32f, 0.64f, 1.0f);
      c[ImGuiCol_ButtonActive] = ImVec4(0.05f, 0.34f, 0.66f, 1.0f);
      c[ImGuiCol_Header] = ImVec4(0.0f, 0.28f, 0.58f, 1.0f);
      c[ImGuiCol_HeaderHovered] = ImVec4(0.0f, 0.32f, 0.64f, 1.0f);
      c[ImGuiCol_HeaderActive] = ImVec4(0.05f, 0.34f, 0.66f, 1.0f);
      c[ImGuiCol_Tab] = ImVec4(0.12f, 0.12f, 0.16f, 1.0f);
      c[ImGuiCol_TabHovered] = ImVec4(0.0f, 0.32f, 0.64f, 1.0f);
      c[ImGuiCol_TabActive] = ImVec4(0.0f, 0.30f, 0.62f, 1.0f);
      c[ImGuiCol_PopupBg] = ImVec4(0.05f, 0.05f, 0.07f, 0.98f);
      style.FrameBorderSize = 1.0f;
      style.WindowBorderSize = 2.0f;
      break;
  }
  // Tooltips, menus and popups are opaque in every theme: ImGui's dark default (0.94) let the
  // heatmap's colours under a tooltip show through its numbers.
  c[ImGuiCol_PopupBg].w = 1.0f;
  style.ScaleAllSizes(scale);
}

namespace {

float width_of(std::string_view t) {
  return ImGui::CalcTextSize(t.data(), t.data() + t.size()).x;
}

// The longest prefix of `word` (cut at a UTF-8 character boundary) that fits in `width`.
std::size_t fitting_prefix(std::string_view word, float width) {
  std::size_t best = 0;
  for (std::size_t i = 1; i <= word.size(); ++i) {
    if (i < word.size() && (static_cast<unsigned char>(word[i]) & 0xC0) == 0x80) continue;
    if (width_of(word.substr(0, i)) > width) break;
    best = i;
  }
  return std::max<std::size_t>(best, 1);
}

}  // namespace

bool flow_next(float w, float spacing) {
  // Decided before moving: SameLine then NewLine left the window's content as wide as where the
  // item would have gone, past its right edge after an item that ended near it (a legend of a
  // view drawn smaller scrolled sideways by a pixel).
  const float gap = spacing < 0 ? ImGui::GetStyle().ItemSpacing.x : spacing;
  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  if (ImGui::GetItemRectMax().x + gap + w > right) return false;
  ImGui::SameLine(0, gap);
  return true;
}

std::vector<std::string> wrap_words(std::string_view text, float width) {
  std::vector<std::string> lines;
  std::string line;
  const auto place = [&](std::string_view word) {
    for (;;) {
      const std::string candidate = line.empty() ? std::string(word) : line + " " + std::string(word);
      if (width_of(candidate) <= width || (line.empty() && word.empty())) {
        line = candidate;
      } else if (!line.empty()) {
        lines.push_back(line);
        line.clear();
        continue;  // the same word again, on a fresh line
      } else {
        while (!word.empty() && width_of(word) > width) {
          const std::size_t cut = fitting_prefix(word, width);
          lines.emplace_back(word.substr(0, cut));
          word.remove_prefix(cut);
        }
        line = std::string(word);
      }
      return;
    }
  };
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t nl = std::min(text.find('\n', start), text.size());
    const std::string_view para = text.substr(start, nl - start);
    std::vector<std::string_view> words;
    for (std::size_t i = 0; i < para.size();) {
      std::size_t j = para.find(' ', i);
      if (j == std::string_view::npos) j = para.size();
      words.push_back(para.substr(i, j - i));
      i = j + 1;
    }
    // A bracket's words as one group where they fit, as greedy_lines places them (text_lines.h).
    const std::vector<std::uint8_t> glued = bracket_glue(words);
    for (std::size_t k = 0; k < words.size();) {
      std::size_t end = k + 1;
      while (end < words.size() && glued[end]) ++end;
      if (end == k + 1) {
        place(words[k++]);
        continue;
      }
      const std::string_view group = para.substr(words[k].data() - para.data(),
                                                 words[end - 1].data() + words[end - 1].size() - words[k].data());
      const float group_w = width_of(group);
      if (width_of(line.empty() ? std::string(group) : line + " " + std::string(group)) <= width) {
        line = line.empty() ? std::string(group) : line + " " + std::string(group);
      } else if (group_w <= width && (line.empty() || width_of(line) >= width / 2)) {
        if (!line.empty()) lines.push_back(line);
        line = std::string(group);
      } else {
        for (std::size_t j = k; j < end; ++j) place(words[j]);
      }
      k = end;
    }
    lines.push_back(line);
    line.clear();
    if (nl >= text.size()) break;
    start = nl + 1;
  }
  return lines;
}

void text_wrapped_words(std::string_view text, float width, float hanging) {
  const float x = ImGui::GetCursorPosX();
  const std::vector<std::string> lines = wrap_words(text, width - hanging);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (i > 0) ImGui::SetCursorPosX(x + hanging);
    ImGui::TextUnformatted(lines[i].c_str());
  }
}

}  // namespace flashstep::ui
