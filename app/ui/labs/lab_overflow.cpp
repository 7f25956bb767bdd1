#include "app/ui/labs/lab_overflow.h"

#include "app/ui/model/explain.h"
#include "app/ui/widgets.h"
#include "core/engine.h"
#include "core/text.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <string>

namespace flashstep::ui {

namespace {

constexpr ImU32 kOk = IM_COL32(0, 158, 115, 255);
constexpr ImU32 kBad = IM_COL32(213, 94, 0, 255);
constexpr ImU32 kMarker = IM_COL32(240, 228, 66, 255);

// Four significant digits: the tables sit in half of a narrow panel.
std::string short_num(double v) { return num(v, 4); }

// Position on the lab's logarithmic x axis (1 … 3000 → 0 … 1).
float axis_t(double x) {
  return static_cast<float>(std::log10(std::max(x, 1.0)) / std::log10(double{kOverflowLabMaxX}));
}

void draw_axis(OverflowLab& lab, float s) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  const float w = ImGui::GetContentRegionAvail().x - 20 * s;
  const float fh = ImGui::GetFontSize();
  const float x0 = p0.x + 10 * s, gap = 8 * s;
  auto X = [&](double v) { return x0 + axis_t(v) * w; };
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  const ImU32 dim = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  lab.drawn_labels.clear();

  // The formats' thresholds, each label centred over its line where the axis allows, on as few
  // lines as keep them apart (a larger font or a narrow panel: every other one a line lower).
  struct Mark { Precision p; const char* label; float x, left, tw; };
  Mark marks[] = {{Precision::fp16, "fp16 11.09", 0, 0, 0},
                  {Precision::fp32, "fp32, bf16 88.72", 0, 0, 0},
                  {Precision::fp64, "fp64 709.78", 0, 0, 0}};
  constexpr int kMarks = 3;
  for (Mark& m : marks) {
    m.x = X(overflow_threshold(m.p));
    m.tw = ImGui::CalcTextSize(m.label).x;
    m.left = std::clamp(m.x - m.tw * 0.5f, x0, std::max(x0, x0 + w - m.tw));
  }
  int rows = 1;
  for (; rows < kMarks; ++rows) {
    bool apart = true;
    for (int i = 0; i + rows < kMarks; ++i)
      apart &= marks[i].left + marks[i].tw + gap <= marks[i + rows].left;
    if (apart) break;
  }
  const float row_h = fh + 2 * s;
  const float top = p0.y + static_cast<float>(rows - 1) * row_h;  // where the one-line layout began
  const float h = 64 * s + (top - p0.y);
  const float y_axis = p0.y + h - fh - 6 * s;

  // Right of the chosen precision's threshold, naive softmax returns nan.
  const double thr = overflow_threshold(lab.precision);
  dl->AddRectFilled(ImVec2(X(thr), top + fh + 4 * s), ImVec2(x0 + w, y_axis),
                    IM_COL32(213, 94, 0, 60));
  dl->AddRectFilled(ImVec2(x0, top + fh + 4 * s), ImVec2(X(thr), y_axis), IM_COL32(0, 158, 115, 45));
  dl->AddLine(ImVec2(x0, y_axis), ImVec2(x0 + w, y_axis), dim, 1.5f * s);
  // The ticks' numbers left to right, one that would run into the last left out (3000 beside
  // 1000 at a larger font).
  float last_right = -1e9f;
  for (double t : {1.0, 10.0, 100.0, 1000.0, 3000.0}) {
    dl->AddLine(ImVec2(X(t), y_axis), ImVec2(X(t), y_axis + 4 * s), dim, s);
    const std::string label = num(t);
    const float tw = ImGui::CalcTextSize(label.c_str()).x;
    const float left = std::min(X(t) - tw * 0.5f, x0 + w - tw);
    if (left < last_right + gap) continue;
    dl->AddText(ImVec2(left, y_axis + 4 * s), dim, label.c_str());
    lab.drawn_labels.push_back({left, y_axis + 4 * s, tw, fh});
    last_right = left + tw;
  }
  for (int i = 0; i < kMarks; ++i) {
    const Mark& m = marks[i];
    const bool chosen = overflow_threshold(m.p) == thr;
    const float y = p0.y + static_cast<float>(i % rows) * row_h;
    dl->AddLine(ImVec2(m.x, y + fh + 2 * s), ImVec2(m.x, y_axis), chosen ? kBad : dim, (chosen ? 2.5f : 1.5f) * s);
    dl->AddText(ImVec2(m.left, y), chosen ? text : dim, m.label);
    lab.drawn_labels.push_back({m.left, y, m.tw, fh});
  }
  // The slider's x, as a marker on the axis.
  const float mx = X(lab.x);
  dl->AddTriangleFilled(ImVec2(mx, y_axis - 2 * s), ImVec2(mx - 7 * s, y_axis - 14 * s),
                        ImVec2(mx + 7 * s, y_axis - 14 * s), kMarker);
  ImGui::Dummy(ImVec2(w + 20 * s, h + 4 * s));
  if (ImGui::IsItemHovered())
    tooltip("Where e^{x} overflows",
            "Each line is ln(max) of a format: above it e^{x} is larger than the largest finite "
            "number and becomes ∞. The axis is logarithmic. The yellow marker is your x.");
}

void values_table(const char* id, const OverflowRun& r, bool naive) {
  const auto& e = naive ? r.exp_naive : r.exp_safe;
  const auto& y = naive ? r.y_naive : r.y_safe;
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV;
  if (!ImGui::BeginTable(id, 4, flags)) return;
  ImGui::TableSetupColumn("i", ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize("00").x);
  ImGui::TableSetupColumn("xᵢ", ImGuiTableColumnFlags_WidthStretch, 0.8f);
  ImGui::TableSetupColumn(naive ? "exp(xᵢ)" : "exp(xᵢ − m)", ImGuiTableColumnFlags_WidthStretch, 1.2f);
  ImGui::TableSetupColumn("yᵢ", ImGuiTableColumnFlags_WidthStretch, 1.0f);
  ImGui::TableHeadersRow();
  for (std::size_t i = 0; i < r.x.size(); ++i) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::Text("%zu", i + 1);
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(num(r.x[i]).c_str());
    ImGui::TableNextColumn();
    if (i < e.size()) {
      const bool bad = !std::isfinite(e[i]);
      if (bad) ImGui::PushStyleColor(ImGuiCol_Text, kBad);
      ImGui::TextUnformatted(short_num(e[i]).c_str());
      if (bad) ImGui::PopStyleColor();
    }
    ImGui::TableNextColumn();
    if (i < y.size()) {
      const bool bad = !std::isfinite(y[i]);
      if (bad) ImGui::PushStyleColor(ImGuiCol_Text, kBad);
      ImGui::TextUnformatted(short_num(y[i]).c_str());
      if (bad) ImGui::PopStyleColor();
    }
  }
  ImGui::EndTable();
}

void verdict(bool ok, const std::string& good, const std::string& bad) {
  ImGui::PushStyleColor(ImGuiCol_Text, ok ? kOk : kBad);
  ImGui::PushTextWrapPos(0);
  ImGui::TextUnformatted(ok ? good.c_str() : bad.c_str());
  ImGui::PopTextWrapPos();
  ImGui::PopStyleColor();
}

}  // namespace

void draw_overflow_lab(OverflowLab& lab, float s) {
  ImGui::TextWrapped("Naive softmax computes eˣ directly; safe softmax computes eˣ⁻ᵐ. Slide x "
                     "past the line of your precision and watch naive softmax break.");
  ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.45f);
  ImGui::SliderFloat("x", &lab.x, 0.0f, kOverflowLabMaxX, "%.2f", ImGuiSliderFlags_Logarithmic);
  help_marker("The largest entry of the input [1, 2, x]. Ctrl+click to type a value. The slider is "
              "logarithmic so the small thresholds (11 for fp16) are easy to reach.");
  // The precision's choices flow onto the next line where the panel is narrow.
  const ImGuiStyle& st = ImGui::GetStyle();
  flow_next(24 * s + ImGui::CalcTextSize("precision").x);
  ImGui::TextUnformatted("precision");
  for (Precision p : kAllPrecisions) {
    const std::string name(precision_name(p));
    flow_next(ImGui::GetFrameHeight() + st.ItemInnerSpacing.x + ImGui::CalcTextSize(name.c_str()).x +
              (p == Precision::bf16 ? st.ItemSpacing.x + ImGui::CalcTextSize("(?)").x : 0.0f));
    if (ImGui::RadioButton(name.c_str(), lab.precision == p)) lab.precision = p;
  }
  help_marker(precision_help().c_str());

  if (lab.cached_x != lab.x || lab.cached_p != lab.precision || lab.all.empty()) {
    lab.run = run_overflow(lab.x, lab.precision);
    lab.all.clear();
    for (Precision p : kAllPrecisions) lab.all.push_back(run_overflow(lab.x, p));
    lab.cached_x = lab.x;
    lab.cached_p = lab.precision;
  }
  draw_axis(lab, s);

  const OverflowRun& r = lab.run;
  const std::string prec(precision_name(lab.precision));
  const double thr = overflow_threshold(lab.precision);
  text_wrapped_words(strf("Input [1, 2, %s] in %s;  eˣ overflows above ln(%s) = %s", num(lab.x).c_str(),
                          prec.c_str(), num(precision_max(lab.precision)).c_str(), num(thr).c_str()),
                     ImGui::GetContentRegionAvail().x);
  if (ImGui::BeginTable("sides", 2, ImGuiTableFlags_BordersInnerV)) {
    ImGui::TableNextColumn();
    ImGui::TextUnformatted("Naive:  yᵢ = exp(xᵢ) / l");
    ImGui::Text("l = Σⱼ exp(xⱼ) = %s", num(r.l_naive).c_str());
    values_table("naive", r, true);
    verdict(r.naive_ok, naive_verdict(r, lab.precision), naive_verdict(r, lab.precision));
    ImGui::TableNextColumn();
    ImGui::TextUnformatted("Safe:  yᵢ = exp(xᵢ − m) / l");
    ImGui::Text("m = %s,  l = %s", num(r.m_safe).c_str(), num(r.l_safe).c_str());
    values_table("safe", r, false);
    verdict(r.safe_ok, safe_verdict(r, lab.precision), safe_verdict(r, lab.precision));
    ImGui::EndTable();
  }

  ImGui::Spacing();
  if (ImGui::BeginTable("all", 4, ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersOuter |
                                      ImGuiTableFlags_SizingStretchSame)) {
    ImGui::TableSetupColumn("precision");
    ImGui::TableSetupColumn("ln(max)");
    ImGui::TableSetupColumn("naive at this x");
    ImGui::TableSetupColumn("safe at this x");
    ImGui::TableHeadersRow();
    for (std::size_t i = 0; i < lab.all.size(); ++i) {
      const Precision p = kAllPrecisions[i];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(std::string(precision_name(p)).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(num(overflow_threshold(p)).c_str());
      for (bool ok : {lab.all[i].naive_ok, lab.all[i].safe_ok}) {
        ImGui::TableNextColumn();
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(ok ? kOk : kBad), ok ? "finite" : "nan");
      }
    }
    ImGui::EndTable();
  }
}

}  // namespace flashstep::ui
