#include "app/ui/labs/lab_scale.h"

#include "app/ui/style.h"
#include "app/ui/widgets.h"
#include "core/text.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>

namespace flashstep::ui {

// ---- drawing ------------------------------------------------------------------------------

namespace {

constexpr ImU32 kRaw = IM_COL32(230, 159, 0, 255);     // without 1/√d (orange)
constexpr ImU32 kScaled = IM_COL32(0, 158, 115, 255);  // with 1/√d (green)

std::vector<float> to_float(const std::vector<double>& v) {
  return std::vector<float>(v.begin(), v.end());
}

// Two curves against log2(d), the current d marked; on the y axis, left of the plot, `mark`
// (named by `mark_label`, with a dim line across) and 0, so that the curves read as numbers.
void curve_plot(const char* title, const std::vector<double>& raw, const std::vector<double>& scaled,
                double y_max, double mark, const std::string& mark_label, int d, ImVec2 size, float s,
                const char* help) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton(title, size);
  const bool hovered = ImGui::IsItemHovered();
  const float fh = ImGui::GetFontSize();
  // As wide for every plot (their x axes line up): room for "2.77".
  const float axis_w = std::max(ImGui::CalcTextSize(mark_label.c_str()).x, ImGui::CalcTextSize("0.00").x) + 4 * s;
  const ImVec2 a(p0.x + axis_w, p0.y + fh + 4 * s), b(p0.x + size.x - 4 * s, p0.y + size.y - fh - 4 * s);
  const ImU32 dim = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  dl->AddRectFilled(a, b, ImGui::GetColorU32(ImGuiCol_FrameBg));
  dl->AddText(p0, ImGui::GetColorU32(ImGuiCol_Text), title);
  const int n = static_cast<int>(raw.size());
  auto X = [&](double i) { return a.x + static_cast<float>(i / std::max(n - 1, 1)) * (b.x - a.x); };
  auto Y = [&](double v) { return b.y - static_cast<float>(std::clamp(v / y_max, 0.0, 1.0)) * (b.y - a.y); };
  const ImU32 rule = ImGui::GetColorU32(ImGuiCol_TextDisabled, 0.75f);
  // The chosen d's line: yellow on a dark plot, a dark amber on a light one (yellow on white
  // does not show).
  const ImVec4 bg = ImGui::GetStyle().Colors[ImGuiCol_FrameBg];
  const bool light = 0.299f * bg.x + 0.587f * bg.y + 0.114f * bg.z > 0.5f;
  const ImU32 chosen = light ? IM_COL32(150, 110, 0, 255) : IM_COL32(240, 228, 66, 200);
  dl->AddLine(ImVec2(a.x, Y(mark)), ImVec2(b.x, Y(mark)), rule, 1.0f * s);
  auto y_label = [&](double v, const char* t) {
    const float y = std::clamp(Y(v) - fh * 0.5f, p0.y + fh, b.y - fh * 0.5f);
    dl->AddText(ImVec2(a.x - ImGui::CalcTextSize(t).x - 3 * s, y), dim, t);
  };
  y_label(mark, mark_label.c_str());
  y_label(0.0, "0");
  const double cur = std::log2(static_cast<double>(d));
  dl->AddLine(ImVec2(X(cur), a.y), ImVec2(X(cur), b.y), chosen, 1.5f * s);
  for (const auto* line : {&raw, &scaled}) {
    std::vector<ImVec2> pts;
    for (int i = 0; i < n; ++i) pts.emplace_back(X(i), Y((*line)[static_cast<std::size_t>(i)]));
    dl->AddPolyline(pts.data(), n, line == &raw ? kRaw : kScaled, 0, 2.0f * s);
  }
  // d = 1, 4, 16, … under the axis, each only where it does not run into the previous one.
  float free_x = a.x - 1e9f;
  for (int i = 0; i < n; i += 2) {
    const std::string label = std::to_string(1 << i);
    const float tw = ImGui::CalcTextSize(label.c_str()).x;
    const float x = std::clamp(X(i) - tw * 0.5f, a.x, b.x - tw);
    if (x < free_x) continue;
    dl->AddText(ImVec2(x, b.y + 2 * s), dim, label.c_str());
    free_x = x + tw + 6 * s;
  }
  if (hovered)
    tooltip(title, std::string("Averaged over 48 random queries with 16 keys each. Orange: softmax(q·k); green: "
                               "softmax(q·k/√d). The x axis is d (logarithmic); the vertical line is the chosen d. ") +
                       help);
}

// Bars of `v` in a frame of `size`, from 0 to `top` (0: the largest bar), under a line that
// says `statistic`: a bar reaches that line's foot at most, so the number is never drawn over
// a bar (ImGui's overlay text was: "variance 66.3" under the middle bars).
void bar_plot(const char* id, const std::vector<float>& v, float top, ImU32 col, ImVec2 size,
              const std::string& statistic, float s, ScaleLab::Drawn& drawn) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton(id, size);
  const float fh = ImGui::GetFontSize(), pad = 3 * s;
  dl->AddRectFilled(p0, ImVec2(p0.x + size.x, p0.y + size.y), ImGui::GetColorU32(ImGuiCol_FrameBg),
                    ImGui::GetStyle().FrameRounding);
  // The number at the font's size, smaller where the plot is narrower than it.
  const ImVec2 full = ImGui::CalcTextSize(statistic.c_str());
  const float t = full.x > size.x - 2 * pad ? fh * (size.x - 2 * pad) / full.x : fh;
  const ImVec2 text_size(full.x * t / fh, t);
  const ImVec2 text_at(p0.x + (size.x - text_size.x) * 0.5f, p0.y + pad);
  dl->AddText(ImGui::GetFont(), t, text_at, ImGui::GetColorU32(ImGuiCol_Text), statistic.c_str());
  const ImVec2 a(p0.x + pad, p0.y + pad + t + pad), b(p0.x + size.x - pad, p0.y + size.y - pad);
  if (top <= 0)
    for (float x : v) top = std::max(top, x);
  const float n = static_cast<float>(std::max<std::size_t>(v.size(), 1));
  const float w = (b.x - a.x) / n;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const float t = top > 0 ? std::clamp(v[i] / top, 0.0f, 1.0f) : 0.0f;
    const float x0 = a.x + static_cast<float>(i) * w;
    if (t > 0) dl->AddRectFilled(ImVec2(x0 + (w > 3 * s ? 1.0f : 0.0f), b.y - t * (b.y - a.y)), ImVec2(x0 + w, b.y), col);
  }
  drawn.bars.push_back({a.x, a.y, b.x - a.x, b.y - a.y});
  drawn.statistic.push_back({text_at.x, text_at.y, text_size.x, text_size.y});
}

void weights_plot(const char* id, const std::vector<double>& w, ImU32 col, ImVec2 size, float s,
                  ScaleLab::Drawn& drawn) {
  char statistic[64];
  std::snprintf(statistic, sizeof statistic, "max %.2f, H %.2f", max_of(w), entropy(w));
  bar_plot(id, to_float(w), 1.0f, col, size, statistic, s, drawn);
  if (ImGui::IsItemHovered())
    tooltip("softmax weights of one query", "The largest weight and the entropy H in nats (log 16 = 2.77 "
                                            "is uniform over 16 keys, 0 is all weight on one key). "
                                            "A bar the plot's height is a weight of 1.");
}

void worked_example() {
  const std::vector<double> x = {10, 0, -5};
  struct Row { const char* label; double scale; };
  const Row rows[] = {{"no scaling", 1.0}, {"d = 4: divide by 2", 0.5}, {"d = 64: divide by 8", 0.125}};
  if (!ImGui::BeginTable("worked", 3, ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersOuter |
                                          ImGuiTableFlags_SizingStretchProp))
    return;
  ImGui::TableSetupColumn("[10, 0, −5]", ImGuiTableColumnFlags_WidthStretch, 1.0f);
  ImGui::TableSetupColumn("x / √d", ImGuiTableColumnFlags_WidthStretch, 1.0f);
  ImGui::TableSetupColumn("softmax", ImGuiTableColumnFlags_WidthStretch, 1.8f);
  ImGui::TableHeadersRow();
  for (const Row& r : rows) {
    std::vector<double> s = x;
    for (double& v : s) v *= r.scale;
    const std::vector<double> p = softmax(s);
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(r.label);
    ImGui::TableNextColumn();
    ImGui::Text("[%s, %s, %s]", num(s[0]).c_str(), num(s[1]).c_str(), num(s[2]).c_str());
    ImGui::TableNextColumn();
    // Wrapped after a comma where the column is narrower than the numbers (1280 × 800: the
    // last one was cut at its "×10").
    text_wrapped_words("[" + num(p[0]) + ", " + num(p[1]) + ", " + num(p[2]) + "]", ImGui::GetContentRegionAvail().x);
  }
  ImGui::EndTable();
}

}  // namespace

void draw_scale_lab(ScaleLab& lab, float s, float slide_floor) {
  // On a slide, where it needs more room than it has with plots 60 px high at this scale (a
  // font made larger), the whole lab is drawn smaller (what it took besides its plots scales
  // with it), down to 3/4 of its size at font 1×: the larger title, explanation and
  // pseudocode leave it less room than at font 1× (lesson 6's slide at 2×).
  const bool slide = slide_floor > 0;
  const float outer = ImGui::GetCurrentWindow()->FontWindowScale;
  const float top = ImGui::GetCursorPosY(), room = ImGui::GetContentRegionAvail().y;
  if (slide && lab.fixed_h >= 0 && lab.fixed_scale > 0) {
    // 2% over: what it takes besides the plots is not quite in proportion to the scale.
    const float need = (lab.fixed_h * s / lab.fixed_scale + static_cast<float>(lab.stacked) * 60 * s) * 1.02f;
    if (need > room) {
      const float fitted = std::max(s * room / need, 0.75f * std::min(slide_floor, s));
      ImGui::SetWindowFontScale(outer * fitted / s);
      s = fitted;
    }
  }
  int d = lab.d;
  // No wider than the panel leaves beside its label and "(?)" (a larger font).
  const ImGuiStyle& st = ImGui::GetStyle();
  ImGui::SetNextItemWidth(std::min(260 * s, ImGui::GetContentRegionAvail().x - ImGui::CalcTextSize("d").x -
                                                 ImGui::CalcTextSize("(?)").x - st.ItemInnerSpacing.x -
                                                 2 * st.ItemSpacing.x));
  if (ImGui::SliderInt("d", &d, 1, 1024, "%d", ImGuiSliderFlags_Logarithmic)) lab.d = std::clamp(d, 1, 1024);
  help_marker("The head dimension: the length of the query and key vectors q and k.");
  // The seed beside d where the field, its − and +, its label and its "(?)" fit there (a larger
  // font: under it).
  flow_next(60 * s + 2 * (st.ItemInnerSpacing.x + ImGui::GetFrameHeight()) + st.ItemInnerSpacing.x +
                ImGui::CalcTextSize("seed").x + st.ItemSpacing.x + ImGui::CalcTextSize("(?)").x,
            20 * s);
  std::string error;
  if (commit_int("##seed", "seed", "Seed of the random standard-normal q and k: another seed, another sample.",
                 &lab.seed, 60 * s, &error))
    lab.seed_error.clear();
  if (!error.empty()) lab.seed_error = error + " (the seed in use stays)";
  if (!lab.seed_error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(213, 94, 0, 255));
    ImGui::TextUnformatted(lab.seed_error.c_str());
    ImGui::PopStyleColor();
  }
  update_scale_lab(lab);

  // Three columns of two plots each where each column gets 190 px at this scale; else two
  // (the curves under the histograms) or one (a font made larger in a narrow window), the
  // tab then scrolling.
  const float avail = ImGui::GetContentRegionAvail().x;
  const float spacing = ImGui::GetStyle().ItemSpacing.x;
  // On a slide, counted at the font-1× scale: the columns stay while the lab is fitted.
  const float col_least = 190 * (slide ? std::min(s, slide_floor) : s);
  const int columns = std::clamp(static_cast<int>((avail + spacing) / (col_least + spacing)), 1, 3);
  const int stacked = columns == 3 ? 2 : columns == 2 ? 4 : 6;  // plots above each other
  const float col_w = (avail - static_cast<float>(columns - 1) * spacing) / static_cast<float>(columns);
  // The plots take the height the rest leaves (a slide at font 1× has room to spare), at least
  // 78 px at this scale in the window (which scrolls below that); on a slide, which does not,
  // down to 30 (a font made larger).
  const float least = (slide ? 30.0f : 78.0f) * s;
  const float fixed = lab.fixed_h < 0 ? -1.0f : lab.fixed_h * s / lab.fixed_scale;  // at this scale
  const float plot_h =
      fixed < 0 ? least : std::floor(std::clamp((room - fixed) / static_cast<float>(stacked), least, 320 * s));
  const float curve_extra = ImGui::GetFontSize() * 1.2f;
  lab.drawn = ScaleLab::Drawn{};
  lab.drawn.plot_h = plot_h, lab.drawn.least = least, lab.drawn.most = 320 * s, lab.drawn.room = room;
  if (ImGui::BeginTable("plots", columns, ImGuiTableFlags_SizingStretchSame)) {
    ImGui::TableNextColumn();
    ImGui::Text("q·k from %s to %s", num(lab.hist_lo).c_str(), num(lab.hist_hi).c_str());
    help_marker("4000 dot products of standard-normal q and k. Each q_{i} k_{i} has mean 0 and "
                "variance 1, and the d terms are independent, so q·k has variance d; dividing by "
                "√d brings it back to 1.");
    bar_plot("##raw", lab.hist_raw, 0.0f, kRaw, ImVec2(col_w, plot_h),
             "variance " + num(std::round(lab.var * 10) / 10) + " ≈ d", s, lab.drawn);
    ImGui::TextUnformatted("q·k / √d, same x range");
    bar_plot("##scaled", lab.hist_scaled, 0.0f, kScaled, ImVec2(col_w, plot_h),
             "variance " + num(std::round(lab.var / lab.d * 100) / 100) + " ≈ 1", s, lab.drawn);

    ImGui::TableNextColumn();
    ImGui::Text("%d keys: softmax(q·k)", kScaleLabKeys);
    weights_plot("##wraw", lab.w_raw, kRaw, ImVec2(col_w, plot_h), s, lab.drawn);
    ImGui::TextUnformatted("softmax(q·k / √d)");
    weights_plot("##wscaled", lab.w_scaled, kScaled, ImVec2(col_w, plot_h), s, lab.drawn);

    ImGui::TableNextColumn();
    const double h_max = std::log(static_cast<double>(kScaleLabKeys));
    curve_plot("mean entropy (nats) against d", lab.curves.entropy_raw, lab.curves.entropy_scaled,
               h_max * 1.05, h_max, num(std::round(h_max * 100) / 100), lab.d, ImVec2(col_w, plot_h + curve_extra), s,
               "The line at 2.77 = log 16 is the most there is: every key the same weight.");
    curve_plot("mean max weight against d", lab.curves.max_raw, lab.curves.max_scaled, 1.05, 1.0, "1", lab.d,
               ImVec2(col_w, plot_h + curve_extra), s, "The line at 1 is all the weight on one key.");
    ImGui::EndTable();
  }
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(kRaw), "orange: without 1/√d");
  flow_next(ImGui::CalcTextSize("green: with 1/√d").x, 16 * s);
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(kScaled), "green: with 1/√d");
  ImGui::Spacing();
  // Wrapped where the panel is narrower than the line (a larger font).
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + ImGui::GetContentRegionAvail().x - ImGui::CalcTextSize("(?)").x -
                         ImGui::GetStyle().ItemSpacing.x);
  ImGui::TextUnformatted("Worked example: the same scores [10, 0, −5] at three head dimensions");
  ImGui::PopTextWrapPos();
  help_marker("Scaling 10 by 1/√64 gives 1.25 (not 0.125 or 1.6): e^{1.25} = 3.490, e^{0} = 1, "
              "e^{−0.625} = 0.535, sum 5.026, so [0.6945, 0.1990, 0.1065].");
  worked_example();
  // What the tab took besides the plots: the plots get the rest from the next frame.
  lab.fixed_h = ImGui::GetCursorPosY() - top - static_cast<float>(stacked) * plot_h;
  lab.fixed_scale = s;
  lab.drawn.used = ImGui::GetCursorPosY() - top;
  lab.stacked = stacked;
  ImGui::SetWindowFontScale(outer);
}

}  // namespace flashstep::ui
