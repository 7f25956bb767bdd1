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

// ---- math ---------------------------------------------------------------------------------

std::vector<double> softmax(const std::vector<double>& s) {
  std::vector<double> p(s.size());
  if (s.empty()) return p;
  const double m = *std::max_element(s.begin(), s.end());
  double l = 0;
  for (std::size_t i = 0; i < s.size(); ++i) l += (p[i] = std::exp(s[i] - m));
  for (double& v : p) v /= l;
  return p;
}

double entropy(const std::vector<double>& p) {
  double h = 0;
  for (double v : p)
    if (v > 0) h -= v * std::log(v);
  return h;
}

double max_of(const std::vector<double>& v) {
  return v.empty() ? 0.0 : *std::max_element(v.begin(), v.end());
}

static double dot_normal(std::mt19937_64& gen, std::normal_distribution<double>& n, int d) {
  double acc = 0;
  for (int i = 0; i < d; ++i) acc += n(gen) * n(gen);
  return acc;
}

std::vector<double> dot_samples(int d, std::uint64_t seed, int count) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<double> out(static_cast<std::size_t>(std::max(count, 0)));
  for (double& v : out) v = dot_normal(gen, normal, d);
  return out;
}

double mean_of(const std::vector<double>& v) {
  if (v.empty()) return 0;
  double s = 0;
  for (double a : v) s += a;
  return s / static_cast<double>(v.size());
}

double variance_of(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  const double m = mean_of(v);
  double s = 0;
  for (double a : v) s += (a - m) * (a - m);
  return s / static_cast<double>(v.size() - 1);
}

std::vector<double> query_scores(int d, std::uint64_t seed, int keys) {
  std::mt19937_64 gen(seed ^ 0x9E3779B97F4A7C15ull);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<double> q(static_cast<std::size_t>(d));
  for (double& v : q) v = normal(gen);
  std::vector<double> s(static_cast<std::size_t>(keys));
  for (double& sj : s) {
    sj = 0;
    for (int i = 0; i < d; ++i) sj += q[static_cast<std::size_t>(i)] * normal(gen);
  }
  return s;
}

ScaleCurves scale_curves(std::uint64_t seed, int keys, int queries) {
  ScaleCurves c;
  for (int d = 1; d <= 1024; d *= 2) {
    double h_raw = 0, h_scaled = 0, m_raw = 0, m_scaled = 0;
    for (int q = 0; q < queries; ++q) {
      std::vector<double> s = query_scores(d, seed * 1000003ull + static_cast<std::uint64_t>(q), keys);
      const std::vector<double> p = softmax(s);
      for (double& v : s) v /= std::sqrt(static_cast<double>(d));
      const std::vector<double> ps = softmax(s);
      h_raw += entropy(p);
      h_scaled += entropy(ps);
      m_raw += max_of(p);
      m_scaled += max_of(ps);
    }
    const double n = queries;
    c.d.push_back(d);
    c.entropy_raw.push_back(h_raw / n);
    c.entropy_scaled.push_back(h_scaled / n);
    c.max_raw.push_back(m_raw / n);
    c.max_scaled.push_back(m_scaled / n);
  }
  return c;
}

void update_scale_lab(ScaleLab& lab) {
  lab.d = std::clamp(lab.d, 1, 1024);
  lab.seed = std::max(lab.seed, 0);
  const auto seed = static_cast<std::uint64_t>(lab.seed);
  if (lab.curves_seed != lab.seed) {
    lab.curves = scale_curves(seed, kScaleLabKeys, 48);
    lab.curves_seed = lab.seed;
  }
  if (lab.cached_d == lab.d && lab.cached_seed == lab.seed) return;
  lab.cached_d = lab.d;
  lab.cached_seed = lab.seed;
  lab.dots = dot_samples(lab.d, seed, kScaleLabSamples);
  lab.var = variance_of(lab.dots);
  // One x range for both histograms, so the scaled one visibly narrows as d grows.
  const double sd = std::sqrt(static_cast<double>(lab.d));
  lab.hist_hi = 4.0 * std::max(sd, 1.0);
  lab.hist_lo = -lab.hist_hi;
  constexpr int kBins = 41;
  lab.hist_raw.assign(kBins, 0.0f);
  lab.hist_scaled.assign(kBins, 0.0f);
  auto bin = [&](double v) {
    const double t = (v - lab.hist_lo) / (lab.hist_hi - lab.hist_lo);
    return std::clamp(static_cast<int>(t * kBins), 0, kBins - 1);
  };
  for (double v : lab.dots) {
    lab.hist_raw[bin(v)] += 1.0f;
    lab.hist_scaled[bin(v / sd)] += 1.0f;
  }
  lab.scores = query_scores(lab.d, seed, kScaleLabKeys);
  lab.w_raw = softmax(lab.scores);
  std::vector<double> scaled = lab.scores;
  for (double& v : scaled) v /= sd;
  lab.w_scaled = softmax(scaled);
}

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
  ImGui::SetNextItemWidth(110 * s);
  ImGui::InputInt("seed", &lab.seed);
  help_marker("Seed of the random standard-normal q and k: another seed, another sample.");
  update_scale_lab(lab);

  const float avail = ImGui::GetContentRegionAvail().x;
  const float col_w = (avail - 2 * ImGui::GetStyle().ItemSpacing.x) / 3.0f;
  const float plot_h = 78 * s;
  if (ImGui::BeginTable("plots", 3, ImGuiTableFlags_SizingStretchSame)) {
    ImGui::TableNextColumn();
    ImGui::Text("q·k from %s to %s", num(lab.hist_lo).c_str(), num(lab.hist_hi).c_str());
    help_marker("4000 dot products of standard-normal q and k. Each q_i k_i has mean 0 and "
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
  help_marker("Scaling 10 by 1/√64 gives 1.25 (not 0.125 or 1.6): e^1.25 = 3.490, e^0 = 1, "
              "e^−0.625 = 0.535, sum 5.025, so [0.6945, 0.1990, 0.1065].");
  worked_example();
}

}  // namespace flashstep::ui
