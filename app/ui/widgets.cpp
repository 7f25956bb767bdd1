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

float draw_rich(ImDrawList* dl, ImVec2 pos, ImU32 col, std::string_view text, float size, bool measure_only) {
  if (!(size > 0)) size = ImGui::GetFontSize();
  ImFont* f = ImGui::GetFont();
  const float small = size * 0.7f;
  float x = pos.x;
  auto width = [&](float sz, const std::string& t) { return f->CalcTextSizeA(sz, 1e9f, 0.0f, t.c_str()).x; };
  for (const TextRun& r : parse_markup(text)) {
    switch (r.kind) {
      case RunKind::normal:
        if (!measure_only) dl->AddText(f, size, ImVec2(x, pos.y), col, r.text.c_str());
        x += width(size, r.text);
        break;
      case RunKind::sub:  // lowered: its baseline a third of the size below the line's
        if (!measure_only) dl->AddText(f, small, ImVec2(x + size * 0.02f, pos.y + size * 0.42f), col, r.text.c_str());
        x += width(small, r.text) + size * 0.06f;
        break;
      case RunKind::sup:  // raised: its top a little above the line's
        if (!measure_only) dl->AddText(f, small, ImVec2(x + size * 0.04f, pos.y - size * 0.08f), col, r.text.c_str());
        x += width(small, r.text) + size * 0.08f;
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

std::vector<std::string> wrap_rich(std::string_view text, float width, float size) {
  std::vector<std::string> lines;
  std::string line;
  auto w = [&](const std::string& t) { return draw_rich(nullptr, ImVec2(0, 0), 0, t, size, true); };
  // The next space that is not inside a sub- or superscript's braces.
  auto next_space = [&](std::size_t from) {
    int depth = 0;
    for (std::size_t k = from; k < text.size(); ++k) {
      if (text[k] == '{') ++depth;
      else if (text[k] == '}' && depth > 0) --depth;
      else if (text[k] == ' ' && depth == 0) return k;
    }
    return text.size();
  };
  std::size_t i = 0;
  while (i <= text.size()) {
    const std::size_t j = next_space(i);
    const std::string word(text.substr(i, j - i));
    const std::string candidate = line.empty() ? word : line + " " + word;
    if (line.empty() || w(candidate) <= width) {
      line = candidate;
    } else {
      lines.push_back(line);
      line = word;
    }
    i = j + 1;
  }
  lines.push_back(line);
  return lines;
}

void text_rich(std::string_view text, float width, float hanging) {
  const float size = ImGui::GetFontSize();
  const ImU32 col = ImGui::GetColorU32(ImGuiCol_Text);
  const float x = ImGui::GetCursorPosX();
  std::size_t start = 0;
  bool first = true;
  while (start <= text.size()) {
    const std::size_t nl = std::min(text.find('\n', start), text.size());
    for (const std::string& line : wrap_rich(text.substr(start, nl - start), width - (first ? 0 : hanging), size)) {
      if (!first) ImGui::SetCursorPosX(x + hanging);
      first = false;
      const ImVec2 p = ImGui::GetCursorScreenPos();
      const float w = draw_rich(ImGui::GetWindowDrawList(), p, col, line, size);
      ImGui::Dummy(ImVec2(std::max(w, 1.0f), ImGui::GetTextLineHeight()));
    }
    if (nl >= text.size()) break;
    start = nl + 1;
  }
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

// ---- items ----

namespace {
bool g_picture = false;
bool g_figure = false;
}  // namespace

void set_picture_mode(bool on) { g_picture = on; }
bool picture_mode() { return g_picture; }
void set_figure_mode(bool on) { g_figure = on; }
bool figure_mode() { return g_figure; }

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

void value_cell(ImDrawList* dl, const Palette& pal, ImVec2 p0, ImVec2 p1, ImU32 fill, const char* text,
                std::uint8_t marks, float scale) {
  dl->AddRectFilled(p0, p1, fill, 3.0f * scale);
  if (fill == pal.nonfinite) hatch(dl, p0, p1, IM_COL32(0, 0, 0, 70), 7.0f * scale);
  if (text && *text && p1.x - p0.x > 8) {
    const float size = std::min(ImGui::GetFontSize(), (p1.y - p0.y) * 0.6f);
    const float w = ImGui::GetFont()->CalcTextSizeA(size, 1e9f, 0.0f, text).x;
    if (w <= p1.x - p0.x - 2)
      text_centered(dl, ImVec2((p0.x + p1.x) * 0.5f, (p0.y + p1.y) * 0.5f), text_over(fill), text, size);
  }
  mark_outline(dl, pal, p0, p1, marks, scale);
}

ImVec2 register_box(ImDrawList* dl, const Palette& pal, ImVec2 p0, float width, const RegisterBox& r,
                    float scale) {
  const float fs = ImGui::GetFontSize();
  const float pad = 6.0f * scale;
  const ImVec2 size(width, fs * 2.0f + pad * 3.0f);
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

  // Line 1: name and role.
  dl->AddText(ImVec2(p0.x + pad, p0.y + pad), pal.text, r.name);
  const float nw = ImGui::CalcTextSize(r.name).x;
  text_fit(dl, ImVec2(p0.x + pad + nw + 6 * scale, p0.y + pad), pal.text_dim, {r.role, ""},
           width - nw - 2 * pad - 6 * scale);
  // Line 2: the value, as "old → new" when this step changed it.
  const std::string now = ch.new_defined ? display_number(ch.new_value) : "—";
  const ImU32 now_col = is_alarm(kind) ? text_over(bg) : pal.text;
  const float y2 = p0.y + pad * 2 + fs;
  if (changed) {
    const std::string old = (ch.old_defined ? display_number(ch.old_value) : "—") + "  →  ";
    dl->AddText(ImVec2(p0.x + pad, y2), pal.text_dim, old.c_str());
    const float ow = ImGui::CalcTextSize(old.c_str()).x;
    dl->AddText(ImVec2(p0.x + pad + ow, y2), now_col, now.c_str());
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
    if (!first) flow_next(w);
    first = false;
    const ImVec2 p = ImGui::GetCursorScreenPos();
    swatch(ImVec2(p.x, p.y + (fs - box) * 0.5f + 1), ImVec2(p.x + box, p.y + (fs - box) * 0.5f + 1 + box));
    ImGui::Dummy(ImVec2(box + 4 * scale, fs));
    ImGui::SameLine(0, 0);
    ImGui::TextUnformatted(label);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", help);
    ImGui::SameLine(0, fs);
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
  ImGui::NewLine();
}

namespace {
// Fields being edited: their text while it differs from the form's value. What each field did in
// the frame it was last drawn, by "window/id", for field_state().
std::unordered_map<ImGuiID, std::string>& edits() {
  static std::unordered_map<ImGuiID, std::string> e;
  return e;
}
std::unordered_map<std::string, FieldState>& field_states() {
  static std::unordered_map<std::string, FieldState> r;
  return r;
}
constexpr ImU32 kRefused = IM_COL32(213, 94, 0, 255);
}  // namespace

FieldEdit edit_field(const char* id, const std::string& value, float width, const std::string* running) {
  const ImGuiID gid = ImGui::GetID(id);
  auto it = edits().find(gid);
  FieldEdit e;
  e.key = std::string(ImGui::GetCurrentWindow()->Name) + "/" + id;
  const std::string name(id);
  e.label = name.find_first_not_of('#') == std::string::npos ? name : name.substr(name.find_first_not_of('#'));
  // Escape in the field: ImGui gives back the text the field had when it was clicked, which in
  // a refused field is the refused value; the value in use is what Escape promises.
  const bool escaped = ImGui::GetActiveID() == gid && key_pressed(ImGuiKey_Escape);
  e.refused = running && *running != value;
  e.in_use = e.refused ? *running : value;
  if (figure_mode()) {
    // A figure shows what the recording was made from; the window's typing stays where it is
    // (the figure's frames run in a context of their own, where no field is ever active).
    e.text = e.in_use;
    e.refused = false;
    std::string shown = e.text;
    ImGui::SetNextItemWidth(width);
    ImGui::InputText(id, &shown, ImGuiInputTextFlags_ReadOnly);
    FieldState& st = field_states()[e.key];
    st = FieldState{};
    st.rect = ImRect(ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
    st.in_use = e.in_use;
    st.shown = shown;
    return e;
  }
  e.text = it != edits().end() ? it->second : value;
  if (e.refused) {
    ImGui::PushStyleColor(ImGuiCol_FrameBg, IM_COL32(120, 35, 20, 255));
    ImGui::PushStyleColor(ImGuiCol_Border, kRefused);
    ImGui::PushStyleVar(ImGuiStyleVar_FrameBorderSize, std::max(1.5f, ImGui::GetFontSize() / 10.0f));
  }
  ImGui::SetNextItemWidth(width);
  ImGui::InputText(id, &e.text);
  if (e.refused) {
    ImGui::PopStyleVar();
    ImGui::PopStyleColor(2);
  }
  if (escaped && e.refused && !ImGui::IsItemActive()) {
    edits().erase(gid);
    e.text = *running;
    e.committed = true;
  } else if (ImGui::IsItemDeactivatedAfterEdit()) {
    edits().erase(gid);
    e.committed = e.text != value;
  } else if (ImGui::IsItemActive()) {
    edits()[gid] = e.text;
    e.pending = e.text != value;
  } else {
    edits().erase(gid);
  }
  if (e.refused && ImGui::IsItemHovered() && !e.pending)
    ImGui::SetTooltip("Not in use: %s stays in use until the form is fixed.", e.in_use.c_str());
  FieldState& st = field_states()[e.key];
  st = FieldState{};
  st.rect = ImRect(ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
  st.pending = e.pending;
  st.refused = e.refused;
  st.in_use = e.in_use;
  st.shown = e.text;
  return e;
}

namespace {
bool g_gathering_marks = false;
std::vector<FieldEdit>& gathered_marks() {
  static std::vector<FieldEdit> m;
  return m;
}
}  // namespace

void begin_field_marks() {
  gathered_marks().clear();
  g_gathering_marks = true;
}

std::vector<FieldEdit> end_field_marks() {
  g_gathering_marks = false;
  return std::exchange(gathered_marks(), {});
}

void not_applied_line(const FieldEdit& e) {
  if (!e.pending && !e.refused) return;
  if (g_gathering_marks) {
    gathered_marks().push_back(e);
    field_states()[e.key].marked = true;
    return;
  }
  ImGui::PushStyleColor(ImGuiCol_Text, e.pending ? ImVec4(0.95f, 0.62f, 0.0f, 1.0f) : ImGui::ColorConvertU32ToFloat4(kRefused));
  ImGui::TextUnformatted(e.pending ? "not applied" : "not in use");
  ImGui::PopStyleColor();
  ImGui::SameLine();
  ImGui::TextDisabled("in use: %s", e.in_use.empty() ? "(empty)" : e.in_use.c_str());
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(e.pending ? "Enter, Tab or a click elsewhere applies it; Esc puts it back."
                                : "The form was refused (its message says why): the recording on screen "
                                  "was made with the value in use.");
  field_states()[e.key].marked = true;
}

bool parse_int(const std::string& text, int* v) {
  const char* b = text.data();
  const char* e = b + text.size();
  while (b < e && *b == ' ') ++b;
  while (e > b && e[-1] == ' ') --e;
  if (b < e && *b == '+') ++b;
  int x = 0;
  const auto [end, ec] = std::from_chars(b, e, x);
  if (ec != std::errc() || end != e || b == e) return false;
  *v = x;
  return true;
}

bool commit_int(const char* id, const char* label, const char* help, int* v, float width, std::string* error,
                const int* running, bool steppers) {
  const std::string running_text = running ? std::to_string(*running) : std::string();
  const FieldEdit e = edit_field(id, std::to_string(*v), width, running ? &running_text : nullptr);
  bool changed = false;
  if (e.committed) {
    if (parse_int(e.text, v)) changed = true;
    else *error = std::string(label) + ": '" + e.text + "' is not a whole number";
  }
  // − and + apply at once: a click is a commitment.
  if (steppers) {
    ImGui::PushID(id);
    const float w = ImGui::GetFrameHeight();
    ImGui::SameLine(0, ImGui::GetStyle().ItemInnerSpacing.x);
    if (ImGui::Button("−", ImVec2(w, 0))) --*v, changed = true;
    ImGui::SameLine(0, ImGui::GetStyle().ItemInnerSpacing.x);
    if (ImGui::Button("+", ImVec2(w, 0))) ++*v, changed = true;
    ImGui::PopID();
  }
  // The label (and its "(?)") on the next line where the panel is too narrow for them.
  const ImGuiStyle& st = ImGui::GetStyle();
  ImGui::SameLine(0, st.ItemInnerSpacing.x);
  if (ImGui::GetCursorPosX() + ImGui::CalcTextSize(label).x +
          (help ? st.ItemSpacing.x + ImGui::CalcTextSize("(?)").x : 0.0f) >
      ImGui::GetWindowContentRegionMax().x)
    ImGui::NewLine();
  ImGui::TextUnformatted(label);
  if (help) help_marker(help);
  not_applied_line(e);
  return changed;
}

bool commit_double(const char* id, const char* label, double* v, float width, std::string* error,
                   const double* running) {
  const std::string running_text = running ? num(*running) : std::string();
  const FieldEdit e = edit_field(id, num(*v), width, running ? &running_text : nullptr);
  ImGui::SameLine(0, ImGui::GetStyle().ItemInnerSpacing.x);
  ImGui::TextUnformatted(label);
  not_applied_line(e);
  if (!e.committed) return false;
  char* end = nullptr;
  const double x = std::strtod(e.text.c_str(), &end);
  while (end && *end == ' ') ++end;
  if (end == e.text.c_str() || (end && *end != '\0') || !std::isfinite(x)) {
    *error = std::string(label) + ": '" + e.text + "' is not a finite number";
    return false;
  }
  *v = x;
  return true;
}

FieldState field_state(const std::string& window, const char* id) {
  const auto it = field_states().find(window + "/" + id);
  return it == field_states().end() ? FieldState{} : it->second;
}

ImRect field_rect(const std::string& window, const char* id) { return field_state(window, id).rect; }

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
