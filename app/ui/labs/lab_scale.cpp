#include "app/ui/labs/lab_scale.h"

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

// Two curves against log2(d), the current d marked.
void curve_plot(const char* title, const std::vector<double>& raw, const std::vector<double>& scaled,
                double y_max, int d, ImVec2 size, float s) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton(title, size);
  const bool hovered = ImGui::IsItemHovered();
  const float fh = ImGui::GetFontSize();
  const ImVec2 a(p0.x + 4 * s, p0.y + fh + 4 * s), b(p0.x + size.x - 4 * s, p0.y + size.y - fh - 4 * s);
  const ImU32 dim = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  dl->AddRectFilled(a, b, ImGui::GetColorU32(ImGuiCol_FrameBg));
  dl->AddText(p0, ImGui::GetColorU32(ImGuiCol_Text), title);
  const int n = static_cast<int>(raw.size());
  auto X = [&](double i) { return a.x + static_cast<float>(i / std::max(n - 1, 1)) * (b.x - a.x); };
  auto Y = [&](double v) { return b.y - static_cast<float>(std::clamp(v / y_max, 0.0, 1.0)) * (b.y - a.y); };
  const double cur = std::log2(static_cast<double>(d));
  dl->AddLine(ImVec2(X(cur), a.y), ImVec2(X(cur), b.y), IM_COL32(240, 228, 66, 200), 1.5f * s);
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
    tooltip(title, "Averaged over 48 random queries with 16 keys each. Orange: softmax(q·k); green: "
                   "softmax(q·k/√d). The x axis is d (logarithmic); the yellow line is the chosen d.");
}

void weights_plot(const char* id, const std::vector<double>& w, ImU32 col, ImVec2 size) {
  const std::vector<float> f = to_float(w);
  ImGui::PushStyleColor(ImGuiCol_PlotHistogram, col);
  char overlay[64];
  std::snprintf(overlay, sizeof overlay, "max %.2f, H %.2f", max_of(w), entropy(w));
  ImGui::PlotHistogram(id, f.data(), static_cast<int>(f.size()), 0, overlay, 0.0f, 1.0f, size);
  if (ImGui::IsItemHovered())
    tooltip("softmax weights of one query", "The largest weight and the entropy H in nats (log 16 = 2.77 "
                                            "is uniform over 16 keys, 0 is all weight on one key).");
  ImGui::PopStyleColor();
}

void worked_example() {
  const std::vector<double> x = {10, 0, -5};
  struct Row { const char* label; double scale; };
  const Row rows[] = {{"no scaling", 1.0}, {"d = 4: divide by 2", 0.5}, {"d = 64: divide by 8", 0.125}};
  if (!ImGui::BeginTable("worked", 3, ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersOuter |
                                          ImGuiTableFlags_SizingStretchProp))
    return;
  ImGui::TableSetupColumn("[10, 0, −5]", ImGuiTableColumnFlags_WidthStretch, 1.0f);
  ImGui::TableSetupColumn("scores s / √d", ImGuiTableColumnFlags_WidthStretch, 1.2f);
  ImGui::TableSetupColumn("softmax", ImGuiTableColumnFlags_WidthStretch, 1.6f);
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
    ImGui::Text("[%s, %s, %s]", num(p[0]).c_str(), num(p[1]).c_str(), num(p[2]).c_str());
  }
  ImGui::EndTable();
}

}  // namespace

void draw_scale_lab(ScaleLab& lab, float s) {
  int d = lab.d;
  ImGui::SetNextItemWidth(260 * s);
  if (ImGui::SliderInt("d", &d, 1, 1024, "%d", ImGuiSliderFlags_Logarithmic)) lab.d = std::clamp(d, 1, 1024);
  help_marker("The head dimension: the length of the query and key vectors q and k.");
  ImGui::SameLine(0, 20 * s);
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

  const float avail = ImGui::GetContentRegionAvail().x;
  const float col_w = (avail - 2 * ImGui::GetStyle().ItemSpacing.x) / 3.0f;
  const float plot_h = 78 * s;
  if (ImGui::BeginTable("plots", 3, ImGuiTableFlags_SizingStretchSame)) {
    ImGui::TableNextColumn();
    ImGui::Text("q·k from %s to %s", num(lab.hist_lo).c_str(), num(lab.hist_hi).c_str());
    help_marker("4000 dot products of standard-normal q and k. Each q_{i} k_{i} has mean 0 and "
                "variance 1, and the d terms are independent, so q·k has variance d; dividing by "
                "√d brings it back to 1.");
    ImGui::PushStyleColor(ImGuiCol_PlotHistogram, kRaw);
    ImGui::PlotHistogram("##raw", lab.hist_raw.data(), static_cast<int>(lab.hist_raw.size()), 0,
                         ("variance " + num(std::round(lab.var * 10) / 10) + " ≈ d").c_str(), 0.0f, FLT_MAX,
                         ImVec2(col_w, plot_h));
    ImGui::PopStyleColor();
    ImGui::TextUnformatted("q·k / √d, same x range");
    ImGui::PushStyleColor(ImGuiCol_PlotHistogram, kScaled);
    ImGui::PlotHistogram("##scaled", lab.hist_scaled.data(), static_cast<int>(lab.hist_scaled.size()),
                         0, ("variance " + num(std::round(lab.var / lab.d * 100) / 100) + " ≈ 1").c_str(), 0.0f, FLT_MAX,
                         ImVec2(col_w, plot_h));
    ImGui::PopStyleColor();

    ImGui::TableNextColumn();
    ImGui::Text("%d keys: softmax(q·k)", kScaleLabKeys);
    weights_plot("##wraw", lab.w_raw, kRaw, ImVec2(col_w, plot_h));
    ImGui::TextUnformatted("softmax(q·k / √d)");
    weights_plot("##wscaled", lab.w_scaled, kScaled, ImVec2(col_w, plot_h));

    ImGui::TableNextColumn();
    const double h_max = std::log(static_cast<double>(kScaleLabKeys));
    curve_plot("entropy (nats) against d", lab.curves.entropy_raw, lab.curves.entropy_scaled,
               h_max * 1.05, lab.d, ImVec2(col_w, plot_h + ImGui::GetFontSize() * 1.2f), s);
    curve_plot("max weight against d", lab.curves.max_raw, lab.curves.max_scaled, 1.05, lab.d,
               ImVec2(col_w, plot_h + ImGui::GetFontSize() * 1.2f), s);
    ImGui::EndTable();
  }
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(kRaw), "orange: without 1/√d");
  ImGui::SameLine(0, 16 * s);
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(kScaled), "green: with 1/√d");
  ImGui::Spacing();
  ImGui::TextUnformatted("Worked example: the same scores [10, 0, −5] at three head dimensions");
  help_marker("Scaling 10 by 1/√64 gives 1.25 (not 0.125 or 1.6): e^{1.25} = 3.490, e^{0} = 1, "
              "e^{−0.625} = 0.535, sum 5.026, so [0.6945, 0.1990, 0.1065].");
  worked_example();
}

}  // namespace flashstep::ui
