#include "app/ui/labs/lab_measure.h"

#include "app/ui/widgets.h"
#include "core/text.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>

namespace flashstep::ui {

namespace {

struct Series {
  Algorithm algorithm;
  const char* label;
  ImU32 colour;
};


// A log-log plot of `value(point)` against n for each series, drawn with the draw list.
template <class Value>
void plot(const char* id, const std::vector<MeasurePoint>& points, std::initializer_list<Series> series,
          Value value, const char* unit, ImVec2 size, bool legend_top = false) {
  ImGui::PushID(id);
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("plot", size);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float left = 64, bottom = 26, top = 8, right = 10;
  const ImVec2 a(p0.x + left, p0.y + top), b(p0.x + size.x - right, p0.y + size.y - bottom);
  dl->AddRectFilled(a, b, IM_COL32(30, 30, 38, 255));
  dl->AddRect(a, b, IM_COL32(110, 110, 125, 255));
  auto in_plot = [&](const MeasurePoint& p) {
    for (const Series& s : series)
      if (s.algorithm == p.algorithm) return true;
    return false;
  };
  double x_lo = 1e300, x_hi = 0, y_lo = 1e300, y_hi = 0;
  for (const MeasurePoint& p : points) {
    const double v = value(p);
    if (p.skipped || !(v > 0) || !in_plot(p)) continue;
    x_lo = std::min(x_lo, double(p.n)), x_hi = std::max(x_hi, double(p.n));
    y_lo = std::min(y_lo, v), y_hi = std::max(y_hi, v);
  }
  if (x_hi <= 0) {
    dl->AddText(ImVec2(a.x + 10, a.y + 10), IM_COL32(160, 160, 170, 255), "no points yet");
    ImGui::PopID();
    return;
  }
  x_lo /= 1.2, x_hi *= 1.2, y_lo /= 1.5, y_hi *= 1.5;
  auto X = [&](double x) { return a.x + float((std::log(x) - std::log(x_lo)) / (std::log(x_hi) - std::log(x_lo))) * (b.x - a.x); };
  auto Y = [&](double y) { return b.y - float((std::log(y) - std::log(y_lo)) / (std::log(y_hi) - std::log(y_lo))) * (b.y - a.y); };
  // Axis labels: the decades of y, every size measured on x.
  for (double t = std::pow(10.0, std::floor(std::log10(y_lo))); t <= y_hi; t *= 10)
    if (t >= y_lo) {
      dl->AddLine(ImVec2(a.x, Y(t)), ImVec2(b.x, Y(t)), IM_COL32(60, 60, 72, 255));
      const std::string s = num(t) + " " + unit;
      dl->AddText(ImVec2(p0.x + 2, Y(t) - 7), IM_COL32(170, 170, 180, 255), s.c_str());
    }
  for (const MeasurePoint& p : points)
    if (!p.skipped && p.algorithm == series.begin()->algorithm) {
      const std::string s = size_text(p.n);
      const float tw = ImGui::CalcTextSize(s.c_str()).x;
      dl->AddText(ImVec2(X(double(p.n)) - tw / 2, b.y + 4), IM_COL32(170, 170, 180, 255), s.c_str());
    }
  // The legend sits in the lower right corner, where rising curves leave room, or in the upper
  // left, where a rising curve and a flat one along the bottom leave it.
  float legend_w = 0;
  for (const Series& s : series) legend_w = std::max(legend_w, ImGui::CalcTextSize(s.label).x);
  float legend_y = legend_top ? a.y + 6 : b.y - 6 - 16.0f * static_cast<float>(series.size());
  const float legend_x = legend_top ? a.x + 8 : b.x - legend_w - 30;
  for (const Series& s : series) {
    ImVec2 prev(-1, -1);
    double last_value = 0;
    for (const MeasurePoint& p : points) {
      const double v = value(p);
      if (p.algorithm != s.algorithm) continue;
      if (p.skipped) {  // marked at the top edge: it would not fit
        const ImVec2 c(X(double(p.n)), a.y + 4);
        dl->AddTriangleFilled(ImVec2(c.x - 5, c.y), ImVec2(c.x + 5, c.y), ImVec2(c.x, c.y + 8), s.colour);
        continue;
      }
      if (!(v > 0)) continue;
      const ImVec2 c(X(double(p.n)), Y(v));
      dl->AddCircleFilled(c, 4, s.colour);
      if (prev.x >= 0) dl->AddLine(prev, c, s.colour, 2);
      prev = c;
      last_value = v;
    }
    // The last point's value beside it: a flat curve below the lowest grid line still reads.
    if (prev.x >= 0) {
      const std::string t = strf("%.3g %s", last_value, unit);
      const ImVec2 ts = ImGui::CalcTextSize(t.c_str());
      dl->AddText(ImVec2(std::min(prev.x - ts.x * 0.5f, b.x - ts.x - 2), prev.y - ts.y - 4), s.colour, t.c_str());
    }
    dl->AddRectFilled(ImVec2(legend_x, legend_y + 3), ImVec2(legend_x + 10, legend_y + 13), s.colour);
    dl->AddText(ImVec2(legend_x + 14, legend_y), IM_COL32(220, 220, 228, 255), s.label);
    legend_y += 16;
  }
  ImGui::PopID();
}

}  // namespace

void draw_measure_lab(MeasureLab& lab, float scale) {
  ImGui::TextWrapped("Times the fast fp32 kernels on this machine (all cores, best of 3): attention "
                     "with S and P materialized against the tiled FlashAttention-2 loop, and safe "
                     "(3 passes) against online (2 passes) softmax. Sizes grow until you stop it.");
  const bool running = lab.running;
  ImGui::BeginDisabled(running);
  ImGui::SetNextItemWidth(160 * scale);
  int max_n = 1 << lab.max_attention_log2;
  if (ImGui::SliderInt("largest N", &lab.max_attention_log2, 9, 14, ("N = " + std::to_string(max_n)).c_str()))
    max_n = 1 << lab.max_attention_log2;
  help_marker("Attention is run for N = 512, 1024, ... up to this size. Naive attention needs 2·N²·4 "
              "bytes for S and P; where that exceeds half of the free memory it is not run.");
  ImGui::SameLine(0, 20 * scale);
  ImGui::TextUnformatted("d:");
  ImGui::SameLine();
  ImGui::RadioButton("64", &lab.d, 64);
  ImGui::SameLine();
  ImGui::RadioButton("128", &lab.d, 128);
  ImGui::EndDisabled();
  ImGui::SameLine();
  if (!running) {
    if (ImGui::Button("Run")) start_measure(lab);
  } else {
    if (ImGui::Button("Cancel")) lab.cancel = true;
    ImGui::SameLine();
    ImGui::ProgressBar(lab.progress, ImVec2(200 * scale, 0));
  }

  std::vector<MeasurePoint> points;
  {
    std::lock_guard<std::mutex> lock(lab.mutex);
    points = lab.points;
  }
  const MeasureRace& ar = kAttentionRace;
  const MeasureRace& sr = kSoftmaxRace;
  const std::string attn = speedup_text(points, ar.slow, ar.fast);
  const std::string soft = speedup_text(points, sr.slow, sr.fast);
  ImGui::Text("tiled vs naive attention: %s", attn.empty() ? "—" : attn.c_str());
  ImGui::SameLine(0, 40 * scale);
  ImGui::Text("online vs safe softmax: %s", soft.empty() ? "—" : soft.c_str());
  for (const MeasurePoint& p : points)
    if (p.skipped) ImGui::TextColored(ImVec4(1, 0.6f, 0.3f, 1), "naive attention at N = %lld: %s", static_cast<long long>(p.n), p.note.c_str());

  const float w = (ImGui::GetContentRegionAvail().x - 10 * scale) / 2;
  const ImVec2 size(w, 220 * scale);
  const ImU32 naive_c = IM_COL32(230, 159, 0, 255), tiled_c = IM_COL32(86, 180, 233, 255);
  ImGui::TextUnformatted("attention time against N");
  ImGui::SameLine(w + 10 * scale);
  ImGui::TextUnformatted("attention working memory against N");
  ImGui::SameLine();
  help_marker("The memory each kernel allocates beyond Q, K, V and O, counted where it allocates it: "
              "naive attention holds S and P, 2·N²·4 bytes; the tiled loop holds one set of tiles per "
              "thread (Q_i, O_i, S_ij, m_i, l_i), the same for every N.");
  plot("attn_time", points, {{ar.slow, ar.slow_label, naive_c}, {ar.fast, ar.fast_label, tiled_c}},
       [](const MeasurePoint& p) { return p.time_ms; }, "ms", size);
  ImGui::SameLine(0, 10 * scale);
  plot("attn_mem", points, {{ar.slow, ar.slow_label, naive_c}, {ar.fast, ar.fast_label, tiled_c}},
       [](const MeasurePoint& p) { return p.peak_bytes / 1048576.0; }, "MiB", size, true);
  ImGui::TextUnformatted("softmax time against n");
  plot("soft_time", points, {{sr.slow, sr.slow_label, naive_c}, {sr.fast, sr.fast_label, tiled_c}},
       [](const MeasurePoint& p) { return p.time_ms; }, "ms", ImVec2(w, 200 * scale));
}

}  // namespace flashstep::ui
