#include "app/ui/widgets.h"

#include "core/markup.h"
#include "core/text.h"

#include <imgui_stdlib.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <unordered_map>
#include <utility>

namespace flashstep::ui {

// ---- colours ----

ImU32 with_alpha(ImU32 c, float alpha) {
  const ImU32 a = static_cast<ImU32>(std::clamp(alpha, 0.0f, 1.0f) * 255.0f + 0.5f);
  return (c & ~IM_COL32_A_MASK) | (a << IM_COL32_A_SHIFT);
}

ImU32 mix(ImU32 a, ImU32 b, float t) {
  auto ch = [&](int shift) {
    const float x = static_cast<float>((a >> shift) & 0xFF), y = static_cast<float>((b >> shift) & 0xFF);
    return static_cast<ImU32>(std::lround(x + (y - x) * t)) << shift;
  };
  return ch(IM_COL32_R_SHIFT) | ch(IM_COL32_G_SHIFT) | ch(IM_COL32_B_SHIFT) | ch(IM_COL32_A_SHIFT);
}

ImU32 text_over(ImU32 fill) {
  const float r = static_cast<float>((fill >> IM_COL32_R_SHIFT) & 0xFF);
  const float g = static_cast<float>((fill >> IM_COL32_G_SHIFT) & 0xFF);
  const float b = static_cast<float>((fill >> IM_COL32_B_SHIFT) & 0xFF);
  return 0.299f * r + 0.587f * g + 0.114f * b > 140.0f ? IM_COL32(10, 10, 14, 255)
                                                       : IM_COL32(245, 245, 250, 255);
}

ImU32 value_fill(const Palette& pal, CellKind kind, const ValueRange& r, double v) {
  if (kind == CellKind::finite && r.signed_values()) return heat_signed(r.signed_t(v));
  return cell_fill(pal, kind, r.t(v));
}

ImU32 cell_fill(const Palette& pal, CellKind kind, float t) {
  switch (kind) {
    case CellKind::finite: return heat(t);
    case CellKind::pos_inf:
    case CellKind::nan: return pal.nonfinite;
    case CellKind::neg_inf: return mix(pal.cell, pal.background, 0.5f);
    case CellKind::undefined: break;
  }
  return pal.cell;
}

// ---- items ----

namespace {
bool g_picture = false;
bool g_figure = false;
}  // namespace

void set_picture_mode(bool on) { g_picture = on; }
bool picture_mode() { return g_picture; }
void set_figure_mode(bool on) { g_figure = on; }
bool figure_mode() { return g_figure; }

TextScale::TextScale()
    : spacing_(ImGui::GetStyle().ItemSpacing), base_(ImGui::GetCurrentWindow()->FontWindowScale) {}

TextScale::~TextScale() {
  if (pushed_ || f_ != 1.0f) set(1.0f);
}

void TextScale::set(float f) {
  if (pushed_) ImGui::PopStyleVar();
  pushed_ = f != 1.0f;
  f_ = f;
  ImGui::SetWindowFontScale(base_ * f);
  if (pushed_) ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(spacing_.x * f, spacing_.y * f));
}

float shrink_to_fit(TextScale& t, float room, const std::function<float()>& height, float lowest) {
  for (int k = 0;; ++k) {
    const float f = std::max(1.0f - 0.05f * static_cast<float>(k), lowest);
    t.set(f);
    if (height() <= room || f <= lowest) return f;
  }
}

void help_marker(const char* text) {
  if (g_picture) return;
  ImGui::SameLine();
  ImGui::TextDisabled("(?)");
  if (ImGui::IsItemHovered()) {
    ImGui::BeginTooltip();
    text_rich(text, ImGui::GetFontSize() * 30.0f);  // core/markup's notation, as the sentences
    ImGui::EndTooltip();
  }
}

void help_marker_at(ImVec2 pos, const char* text) {
  if (g_picture) return;
  const ImVec2 keep = ImGui::GetCursorScreenPos();
  ImGui::SetCursorScreenPos(pos);
  ImGui::TextDisabled("(?)");
  if (ImGui::IsItemHovered()) {
    ImGui::BeginTooltip();
    text_rich(text, ImGui::GetFontSize() * 30.0f);  // core/markup's notation, as the sentences
    ImGui::EndTooltip();
  }
  ImGui::SetCursorScreenPos(keep);
}

// ---- drawn shapes ----

void outline(ImDrawList* dl, ImVec2 p0, ImVec2 p1, ImU32 col, float thickness, float min_size) {
  const ImVec2 c((p0.x + p1.x) * 0.5f, (p0.y + p1.y) * 0.5f);
  const float hw = std::max((p1.x - p0.x) * 0.5f, min_size * 0.5f);
  const float hh = std::max((p1.y - p0.y) * 0.5f, min_size * 0.5f);
  dl->AddRect(ImVec2(c.x - hw, c.y - hh), ImVec2(c.x + hw, c.y + hh), col, 0.0f, 0, thickness);
}

void hatch(ImDrawList* dl, ImVec2 p0, ImVec2 p1, ImU32 col, float spacing) {
  if (p1.x - p0.x < 4 || p1.y - p0.y < 4) return;
  dl->PushClipRect(p0, p1, true);
  const float h = p1.y - p0.y;
  for (float x = p0.x - h; x < p1.x; x += spacing)
    dl->AddLine(ImVec2(x, p1.y), ImVec2(x + h, p0.y), col, 2.0f);
  dl->PopClipRect();
}

void mark_outline(ImDrawList* dl, const Palette& pal, ImVec2 p0, ImVec2 p1, std::uint8_t marks, float scale,
                  float min_size) {
  const float t = 2.5f * scale;
  if (marks & kMarkRead)
    outline(dl, ImVec2(p0.x - t * 0.5f, p0.y - t * 0.5f), ImVec2(p1.x + t * 0.5f, p1.y + t * 0.5f), pal.read,
            t, min_size);
  if (marks & kMarkWrite) {
    const float in = (marks & kMarkRead) ? t * 0.5f : -t * 0.5f;
    outline(dl, ImVec2(p0.x + in, p0.y + in), ImVec2(p1.x - in, p1.y - in), pal.write, t,
            min_size > 0 ? min_size - 2 * in : 0);
  }
}

std::vector<std::string> fitted_numbers(const std::vector<std::optional<double>>& values, float size,
                                        const std::function<float(int)>& room, int most,
                                        std::vector<WrittenNumber>* report, int group) {
  ImFont* font = ImGui::GetFont();
  const auto width = [&](const std::string& t) { return font->CalcTextSizeA(size, 1e9f, 0.0f, t.c_str()).x; };
  std::vector<double> shown;
  std::vector<int> at;
  // A cell with no room for any number (many elements a pixel each) is passed.
  for (std::size_t i = 0; i < values.size(); ++i)
    if (values[i] && room(static_cast<int>(i)) > 0) {
      shown.push_back(*values[i]);
      at.push_back(static_cast<int>(i));
    }
  const std::vector<std::string> fitted = cell_numbers(
      shown, [&](std::size_t k, const std::string& t) { return width(t) <= room(at[k]); }, most);
  std::vector<std::string> out(values.size());
  for (std::size_t k = 0; k < at.size(); ++k) {
    const float r = room(at[k]);
    std::string& t = out[static_cast<std::size_t>(at[k])];
    if (width(fitted[k]) <= r) t = fitted[k];
    if (report) report->push_back({group, shown[k], t, size, r});
  }
  return out;
}

void value_cell(ImDrawList* dl, const Palette& pal, ImVec2 p0, ImVec2 p1, ImU32 fill, const char* text,
                std::uint8_t marks, float scale) {
  dl->AddRectFilled(p0, p1, fill, 3.0f * scale);
  if (fill == pal.nonfinite) hatch(dl, p0, p1, IM_COL32(0, 0, 0, 70), 7.0f * scale);
  if (text && *text && p1.x - p0.x > 8) {
    const float size = value_cell_text_size(p1.y - p0.y);
    const float w = ImGui::GetFont()->CalcTextSizeA(size, 1e9f, 0.0f, text).x;
    if (w <= value_cell_room(p0.x, p1.x))
      text_centered(dl, ImVec2((p0.x + p1.x) * 0.5f, (p0.y + p1.y) * 0.5f), text_over(fill), text, size);
  }
  mark_outline(dl, pal, p0, p1, marks, scale);
}

float register_box_height(float scale) { return ImGui::GetFontSize() * 2.0f + 6.0f * scale * 3.0f; }

ImVec2 register_box(ImDrawList* dl, const Palette& pal, ImVec2 p0, float width, const RegisterBox& r,
                    float scale, RegisterLine* line) {
  const float fs = ImGui::GetFontSize();
  const float pad = 6.0f * scale;
  const ImVec2 size(width, register_box_height(scale));
  const ImVec2 p1(p0.x + size.x, p0.y + size.y);
  const CellChange& ch = r.change;
  const CellKind kind = cell_kind(ch.new_defined, ch.new_value);
  const bool changed = ch.changed();
  ImU32 bg = mix(pal.background, pal.cell, 0.8f);
  if (changed) bg = mix(bg, pal.write, 0.28f);
  if (is_alarm(kind)) bg = mix(bg, pal.nonfinite, 0.55f);
  dl->AddRectFilled(p0, p1, bg, 5.0f * scale);
  if (is_alarm(kind)) hatch(dl, p0, p1, IM_COL32(0, 0, 0, 50), 9.0f * scale);
  dl->AddRect(p0, p1, pal.grid, 5.0f * scale, 0, 1.0f);
  mark_outline(dl, pal, p0, p1, r.marks, scale);

  // Line 1: name and role. On the orange of ∞ or nan, the role and the old value in the ink that
  // reads on it (the theme's dim grey did not: 2:1 against the hatched orange).
  const ImU32 ink = is_alarm(kind) ? text_over(bg) : pal.text, dim_ink = is_alarm(kind) ? text_over(bg) : pal.text_dim;
  dl->AddText(ImVec2(p0.x + pad, p0.y + pad), ink, r.name);
  const float nw = ImGui::CalcTextSize(r.name).x;
  text_fit(dl, ImVec2(p0.x + pad + nw + 6 * scale, p0.y + pad), dim_ink, {r.role, r.role_short, ""},
           width - nw - 2 * pad - 6 * scale);
  // Line 2: the value, as "old → new" when this step changed it; where both do not fit, the old
  // value with 3 digits, then "→ new" alone, then the new value with 3 digits.
  const float room = width - 2 * pad;
  const auto fits = [&](const std::string& t) { return ImGui::CalcTextSize(t.c_str()).x <= room; };
  std::string now = ch.new_defined ? display_number(ch.new_value) : "—";
  const ImU32 now_col = is_alarm(kind) ? text_over(bg) : pal.text;
  const float y2 = p0.y + pad * 2 + fs;
  std::string old;
  if (changed) {
    const std::string was = ch.old_defined ? display_number(ch.old_value) : "—";
    const std::string was3 = ch.old_defined ? compact_number(ch.old_value, 3) : "—";
    old = "→ ";
    for (const std::string& o : {was + "  →  ", was3 + " → "})
      if (fits(o + now)) {
        old = o;
        break;
      }
  }
  if (!fits(old + now) && ch.new_defined) now = compact_number(ch.new_value, 3);
  if (line) {
    line->text = old + now;
    line->width = ImGui::CalcTextSize(line->text.c_str()).x;
    line->room = room;
  }
  if (changed) {
    dl->AddText(ImVec2(p0.x + pad, y2), dim_ink, old.c_str());
    const float ow = ImGui::CalcTextSize(old.c_str()).x;
    if (r.fade < 1.0f) {
      // The move into this step: the old value slides up and fades as the new one comes in.
      const float f = std::clamp(r.fade, 0.0f, 1.0f), rise = fs * 0.7f;
      const std::string was = ch.old_defined ? display_number(ch.old_value) : "—";
      dl->PushClipRect(ImVec2(p0.x, y2 - pad * 0.5f), ImVec2(p1.x, p1.y - pad * 0.5f), true);
      dl->AddText(ImVec2(p0.x + pad + ow, y2 - rise * f), with_alpha(now_col, 1.0f - f), was.c_str());
      dl->AddText(ImVec2(p0.x + pad + ow, y2 + rise * (1.0f - f)), with_alpha(now_col, f), now.c_str());
      dl->PopClipRect();
    } else {
      dl->AddText(ImVec2(p0.x + pad + ow, y2), now_col, now.c_str());
    }
  } else {
    dl->AddText(ImVec2(p0.x + pad, y2), now_col, now.c_str());
  }
  if (ImGui::IsMouseHoveringRect(p0, p1) && ImGui::IsWindowHovered()) {
    std::string body = r.role;
    if (changed)
      body += "\nThis step changed it: " +
              (ch.old_defined ? display_number(ch.old_value) : std::string("undefined")) + " → " + now;
    if (!r.reason.empty()) body += "\n" + r.reason;
    tooltip(std::string(r.name) + " = " + now, body);
  }
  return size;
}

void colour_bar(ImDrawList* dl, ImVec2 p0, ImVec2 size, bool signed_map) {
  constexpr int kSegments = 16;
  auto map = [&](float t) { return signed_map ? heat_signed(t) : heat(t); };
  const float w = size.x / kSegments;
  for (int i = 0; i < kSegments; ++i) {
    const float t0 = static_cast<float>(i) / kSegments, t1 = static_cast<float>(i + 1) / kSegments;
    const ImVec2 a(p0.x + w * static_cast<float>(i), p0.y),
        b(p0.x + w * static_cast<float>(i + 1), p0.y + size.y);
    dl->AddRectFilledMultiColor(a, b, map(t0), map(t1), map(t1), map(t0));
  }
}

void mark_legend(const Palette& pal, float scale, bool with_current, bool with_registers) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float fs = ImGui::GetFontSize();
  const float box = fs * 0.8f;
  bool first = true;
  // One entry: its swatch and label, moved to the next line when they do not fit on this one.
  auto entry = [&](const char* label, const char* help, const std::function<void(ImVec2, ImVec2)>& swatch) {
    const float w = box + 4 * scale + ImGui::CalcTextSize(label).x;
    if (!first) flow_next(w, fs);
    first = false;
    const ImVec2 p = ImGui::GetCursorScreenPos();
    swatch(ImVec2(p.x, p.y + (fs - box) * 0.5f + 1), ImVec2(p.x + box, p.y + (fs - box) * 0.5f + 1 + box));
    ImGui::Dummy(ImVec2(box + 4 * scale, fs));
    ImGui::SameLine(0, 0);
    ImGui::TextUnformatted(label);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", help);
  };
  auto outlined = [&](ImU32 col) {
    return [=](ImVec2 a, ImVec2 b) { dl->AddRect(a, b, col, 0.0f, 0, 2.5f * scale); };
  };
  auto filled = [&](ImU32 col) { return [=](ImVec2 a, ImVec2 b) { dl->AddRectFilled(a, b, col, 2.0f); }; };
  entry("read", "Cells this step reads (blue outline).", outlined(pal.read));
  entry("written", "Cells this step writes (orange outline).", outlined(pal.write));
  if (with_current) entry("current tile", "The tile (i, j) of this step: the one on chip.", outlined(pal.current));
  entry("∞ / nan", "Overflowed or undefined values. Hover a cell for the reason.", filled(pal.nonfinite));
  entry("not computed yet", "Cells nothing has written so far.", filled(pal.cell));
  if (with_current || with_registers) {
    // The tiled lessons' S and P̃: tiles that left SRAM; registers: values of an earlier row.
    entry("discarded",
          with_current ? "A tile computed at an earlier step: folded into O, m and l, then gone from SRAM."
                       : "A value of an earlier query row or key: its register has been reused since.",
          [&](ImVec2 a, ImVec2 b) {
            dl->AddRectFilled(a, b, mix(pal.cell, pal.background, 0.8f));
            dl->AddRect(a, b, pal.grid, 0.0f, 0, 1.0f * scale);
          });
  }
  if (with_current) {
    entry("masked", "Scores the causal mask removes (key after query): never computed.", [&](ImVec2 a, ImVec2 b) {
      dl->AddRectFilled(a, b, pal.cell);
      hatch(dl, a, b, with_alpha(pal.text_dim, 0.55f), 4.0f * scale);
    });
  }
}

ImVec4 error_colour() {
  const ImVec4 bg = ImGui::GetStyle().Colors[ImGuiCol_PopupBg];
  const float luma = 0.2126f * bg.x + 0.7152f * bg.y + 0.0722f * bg.z;
  return luma > 0.5f ? ImVec4(0.70f, 0.05f, 0.05f, 1.0f) : ImVec4(1.0f, 0.45f, 0.40f, 1.0f);
}

bool key_pressed(ImGuiKey key) { return ImGui::IsKeyPressed(ImGui::GetKeyIndex(key), false); }

float button_width(const char* label) {
  return ImGui::CalcTextSize(label, nullptr, true).x + ImGui::GetStyle().FramePadding.x * 2;
}

}  // namespace flashstep::ui
