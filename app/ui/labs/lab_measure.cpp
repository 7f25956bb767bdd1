#include "app/ui/labs/lab_measure.h"

#include "app/ui/model/record_job.h"
#include "app/ui/widgets.h"
#include "core/algorithms.h"
#include "core/fast.h"
#include "core/text.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace flashstep::ui {

namespace {

struct Series {
  Algorithm algorithm;
  const char* label;
  ImU32 colour;
  bool gpu = false;
  bool has(const MeasurePoint& p) const { return p.algorithm == algorithm && p.gpu == gpu; }
};


// Whether the legend under a plot `width` wide puts each series' last value on a line of its
// own: where one label and the longest value a plot can show do not fit on one line, every entry
// of the legend does, so that its entries read alike.
bool legend_wraps(const std::vector<Series>& series, const char* unit, float width) {
  const std::string longest = ": 1000 " + std::string(unit) + " at N = 16384";
  const float swatch = ImGui::GetTextLineHeight() * 0.6f + 4;
  for (const Series& s : series)
    if (swatch + ImGui::CalcTextSize((s.label + longest).c_str()).x > width - 8) return true;
  return false;
}

// The height a plot's legend needs under it, for a plot `width` wide.
float legend_height(const std::vector<Series>& series, const char* unit, float width) {
  const float rows = static_cast<float>(series.size()) * (legend_wraps(series, unit, width) ? 2.0f : 1.0f);
  return rows * (ImGui::GetTextLineHeight() + 2) + 4;
}

// A log-log plot of `value(point)` against n for each series, drawn with the draw list. The
// legend goes under the plot, each series' last value in its entry, so that it hides no curve
// and no value sits on another curve, however the curves run and however narrow the plot. It
// takes `legend_h` of `size` (at least its own legend_height; the tallest of a row's, so that
// the plots of a row keep one height).
template <class Value>
void plot(const char* id, const std::vector<MeasurePoint>& points, const std::vector<Series>& series,
          Value value, const char* unit, ImVec2 size, float legend_h) {
  ImGui::PushID(id);
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("plot", size);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float line = ImGui::GetTextLineHeight();
  // Room on the left for the widest value label, at whatever font size.
  const float left = ImGui::CalcTextSize("1000 MiB").x + 8,
              bottom = line + 12 + legend_h;
  const float top = 8, right = 10;
  const ImVec2 a(p0.x + left, p0.y + top), b(p0.x + size.x - right, p0.y + size.y - bottom);
  dl->AddRectFilled(a, b, IM_COL32(30, 30, 38, 255));
  dl->AddRect(a, b, IM_COL32(110, 110, 125, 255));
  auto in_plot = [&](const MeasurePoint& p) {
    for (const Series& s : series)
      if (s.has(p)) return true;
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
      dl->AddText(ImVec2(p0.x + 2, Y(t) - line * 0.5f), IM_COL32(170, 170, 180, 255), s.c_str());
    }
  for (const MeasurePoint& p : points)
    if (!p.skipped && series.begin()->has(p)) {
      const std::string s = size_text(p.n);
      const float tw = ImGui::CalcTextSize(s.c_str()).x;
      dl->AddText(ImVec2(X(double(p.n)) - tw / 2, b.y + 4), IM_COL32(170, 170, 180, 255), s.c_str());
    }
  const float swatch = line * 0.6f;
  const bool wraps = legend_wraps(series, unit, size.x);
  const float legend_x = p0.x + 8;
  float legend_y = b.y + line + 8;
  for (const Series& s : series) {
    ImVec2 prev(-1, -1);
    double last_value = 0;
    for (const MeasurePoint& p : points) {
      const double v = value(p);
      if (!s.has(p)) continue;
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
    // The last point's value, with its size: two series end at different N where one of them
    // was refused or stopped.
    std::int64_t last_n = 0;
    for (const MeasurePoint& p : points)
      if (s.has(p) && !p.skipped && value(p) > 0) last_n = p.n;
    dl->AddRectFilled(ImVec2(legend_x, legend_y + line * 0.2f), ImVec2(legend_x + swatch, legend_y + line * 0.2f + swatch), s.colour);
    const ImU32 text = IM_COL32(220, 220, 228, 255);
    const float text_x = legend_x + swatch + 4;
    if (prev.x < 0) {  // no point of this series (its race not run yet, or all refused)
      dl->AddText(ImVec2(text_x, legend_y), text, s.label);
      legend_y += (line + 2) * (wraps ? 2.0f : 1.0f);
      continue;
    }
    const std::string value_text = figure_text(last_value, unit, last_n, takes_qkv(s.algorithm));
    if (!wraps) {
      dl->AddText(ImVec2(text_x, legend_y), text, (std::string(s.label) + ": " + value_text).c_str());
    } else {
      dl->AddText(ImVec2(text_x, legend_y), text, (std::string(s.label) + ":").c_str());
      legend_y += line + 2;
      dl->AddText(ImVec2(text_x, legend_y), text, value_text.c_str());
    }
    legend_y += line + 2;
  }
  ImGui::PopID();
}

}  // namespace

void draw_measure_lab(MeasureLab& lab, float scale, bool slide) {
  ImGui::TextWrapped("Times the fast fp32 kernels on this machine (all cores, best of 3): attention "
                     "with S and P materialized against the tiled FlashAttention-2 loop, and safe "
                     "(3 passes) against online (2 passes) softmax. Sizes grow until you stop it.");
  const fast::KernelBlocks blocks = fast::kernel_blocks(1 << lab.max_attention_log2, lab.d);
  {  // wrapped where the panel is narrower than the line (a larger font)
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + ImGui::GetContentRegionAvail().x - ImGui::CalcTextSize("(?)").x -
                           ImGui::GetStyle().ItemSpacing.x);
    ImGui::TextUnformatted(strf("tiles on the CPU: Br = %d, Bc = %d, the kernel's own", blocks.Br, blocks.Bc).c_str());
    ImGui::PopTextWrapPos();
    ImGui::PopStyleColor();
  }
  help_marker(strf("On the CPU the tiled kernel runs with blocks of its own, Br = %d and Bc = %d: a thread's "
                   "Q_{i}, O_{i}, K_{j}, V_{j} and S_{ij} (%s) fit in half of this CPU's %s L2 cache. The lessons' "
                   "blocks come from M, a GPU's shared memory, and are smaller; on a CPU each tile is two "
                   "small matrix products, and small ones are slower. `flashstep run --steps none` "
                   "takes the same blocks. The GPU shaders take M's.",
                   blocks.Br, blocks.Bc, bytes_text(static_cast<double>(blocks.tile_bytes)).c_str(),
                   bytes_text(static_cast<double>(blocks.l2_bytes)).c_str())
                  .c_str());
  const bool gpu_here = measure_gpu_available();
  const bool running = lab.running;
  ImGui::BeginDisabled(running);
  // No wider than the panel leaves beside its label and "(?)" (a larger font).
  ImGui::SetNextItemWidth(std::min(160 * scale, ImGui::GetContentRegionAvail().x - ImGui::CalcTextSize("largest N").x -
                                                    ImGui::CalcTextSize("(?)").x - ImGui::GetStyle().ItemInnerSpacing.x -
                                                    2 * ImGui::GetStyle().ItemSpacing.x));
  int max_n = 1 << lab.max_attention_log2;
  if (ImGui::SliderInt("largest N", &lab.max_attention_log2, kMeasureMinLog2, kMeasureMaxLog2, ("N = " + std::to_string(max_n)).c_str()))
    max_n = 1 << lab.max_attention_log2;
  help_marker("Attention is run for N = 512, 1024, ... up to this size. Naive attention needs 2·N²·4 "
              "bytes for S and P; where that exceeds half of the free memory it is not run.");
  // The groups of the row flow onto the next line where the panel is too narrow for them.
  const ImGuiStyle& st = ImGui::GetStyle();
  auto box_w = [&](const char* label) {
    return ImGui::GetFrameHeight() + st.ItemInnerSpacing.x + ImGui::CalcTextSize(label).x;
  };
  flow_next(ImGui::CalcTextSize("d:").x + box_w("64") + box_w("128") + 2 * st.ItemSpacing.x, 20 * scale);
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("d:");
  ImGui::SameLine();
  ImGui::RadioButton("64", &lab.d, 64);
  ImGui::SameLine();
  ImGui::RadioButton("128", &lab.d, 128);
  flow_next(box_w("GPU too") + st.ItemSpacing.x + ImGui::CalcTextSize("(?)").x, 20 * scale);
  ImGui::BeginDisabled(!gpu_here);
  bool gpu = measure_gpu_wanted(lab);
  if (ImGui::Checkbox("GPU too", &gpu)) lab.gpu = gpu;
  ImGui::EndDisabled();
  const bool software = gpu_here && software_renderer(gpu_backend().device);
  std::string gpu_tip = gpu_here ? "Also times attention on the GPU backend's compute shaders (" + gpu_backend().device +
                             "): the naive shaders, which write S and P to GPU memory and read them back, "
                             "against the FlashAttention-2 shader, with the tiles the default SRAM size "
                             "gives. The time is that of the dispatches alone, best of 3. The GPU race "
                             "runs after the CPU's, so the two never share the CPU."
                       : std::string("No GPU backend here (no OpenGL 4.3 compute shaders, or no context "
                                     "of its own to record on): the CPU alone is timed.");
  if (software)
    gpu_tip += " Off unless you tick it: this is a software renderer, whose shaders run on this CPU's "
               "cores, so its race takes minutes at the larger N and times the CPU a second time, "
               "not a GPU.";
  help_marker(gpu_tip.c_str());
  ImGui::EndDisabled();
  flow_next(ImGui::CalcTextSize(running ? "Cancel" : "Run").x + 2 * st.FramePadding.x);
  if (!running) {
    if (ImGui::Button("Run")) start_measure(lab);
    if (ImGui::IsItemHovered()) tooltip("Run (R)", "Times the kernels for growing sizes. R starts it in presentation mode too.");
  } else {
    if (ImGui::Button("Cancel")) lab.cancel = true;
    if (ImGui::IsItemHovered()) tooltip("Cancel (R)", "Stops after the size being timed; the points so far stay.");
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
  const std::string attn_gpu = speedup_text(points, ar.slow, ar.fast, true);
  const std::string soft = speedup_text(points, sr.slow, sr.fast);
  ImGui::Text("tiled vs naive attention: %s", attn.empty() ? "—" : attn.c_str());
  if (!attn_gpu.empty()) ImGui::Text("tiled vs naive attention on the GPU: %s", attn_gpu.c_str());
  ImGui::Text("online vs safe softmax: %s", soft.empty() ? "—" : soft.c_str());
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 0.6f, 0.3f, 1));
  for (const MeasurePoint& p : points)
    if (p.skipped)
      ImGui::TextWrapped("%s attention at N = %lld%s: %s", p.algorithm == ar.slow ? "naive" : "tiled",
                         static_cast<long long>(p.n), p.gpu ? " on the GPU" : "", p.note.c_str());
  ImGui::PopStyleColor();

  // Three plots: in a row where each gets 260 px at this scale, else two above the third. In
  // the window at a set height (it scrolls); on a slide, which does not, they take the height
  // left, down to 100 px at this scale.
  const float gap = 10 * scale;
  const float avail_w = ImGui::GetContentRegionAvail().x;
  // Two columns only where each title fits over its plot (a larger font: one column).
  const char* mem_title = "attention working memory against N";
  const float mem_title_w =
      ImGui::CalcTextSize(mem_title).x + ImGui::GetStyle().ItemSpacing.x + ImGui::CalcTextSize("(?)").x;
  const int columns = avail_w >= 3 * 260 * scale + 2 * gap ? 3 : (avail_w - gap) / 2 >= mem_title_w ? 2 : 1;
  const float w = (avail_w - static_cast<float>(columns - 1) * gap) / static_cast<float>(columns);
  const bool gpu_points = std::any_of(points.begin(), points.end(), [](const MeasurePoint& p) { return p.gpu; });
  const float line = ImGui::GetTextLineHeightWithSpacing();
  // Okabe–Ito colours, told apart also with colour-blindness: CPU orange and sky blue, GPU
  // vermillion and bluish green.
  const ImU32 naive_c = IM_COL32(230, 159, 0, 255), tiled_c = IM_COL32(86, 180, 233, 255);
  const ImU32 naive_gpu_c = IM_COL32(213, 94, 0, 255), tiled_gpu_c = IM_COL32(0, 158, 115, 255);
  const std::vector<Series> time_series =
      gpu_points ? std::vector<Series>{{ar.slow, "naive, CPU", naive_c},
                                       {ar.fast, "tiled (FA-2), CPU", tiled_c},
                                       {ar.slow, "naive, GPU", naive_gpu_c, true},
                                       {ar.fast, "tiled (FA-2), GPU", tiled_gpu_c, true}}
                 : std::vector<Series>{{ar.slow, ar.slow_label, naive_c}, {ar.fast, ar.fast_label, tiled_c}};
  const std::vector<Series> mem_series = {{ar.slow, ar.slow_label, naive_c}, {ar.fast, ar.fast_label, tiled_c}};
  const std::vector<Series> soft_series = {{sr.slow, sr.slow_label, naive_c}, {sr.fast, sr.fast_label, tiled_c}};
  // Each plot's legend under it, as tall as the tallest of a row's, so that the plots of a row
  // keep one height.
  const float legend = std::max({legend_height(time_series, "ms", w), legend_height(mem_series, "MiB", w),
                                 legend_height(soft_series, "ms", w)});
  // In the window a plot and its legend take 220 px at this scale, as the plots alone did before
  // their legends went under them, so that at the window's default size the values show unscrolled.
  float plot_h = std::max(220 * scale - legend, 120 * scale);
  if (slide) {
    const float rows = columns == 3 ? 1.0f : columns == 2 ? 2.0f : 3.0f;
    const float left = ImGui::GetContentRegionAvail().y - rows * line - rows * legend - ImGui::GetStyle().ItemSpacing.y * rows;
    plot_h = std::clamp(std::floor(left / rows), 100 * scale, 320 * scale);
  }
  const ImVec2 size(w, plot_h + legend);
  const char* mem_help =
      "The memory each kernel allocates beyond Q, K, V and O, counted where it allocates it: naive "
      "attention holds S and P, 2·N²·4 bytes; the tiled loop holds one set of tiles per thread (Q_{i}, "
      "O_{i}, S_{ij}, m_{i}, l_{i}), the same for every N. The CPU's alone: the GPU's memory is not counted.";
  auto time_plot = [&] {
    plot("attn_time", points, time_series, [](const MeasurePoint& p) { return p.time_ms; }, "ms", size, legend);
  };
  auto mem_plot = [&] {
    plot("attn_mem", points, mem_series, [](const MeasurePoint& p) { return p.peak_bytes / 1048576.0; }, "MiB", size,
         legend);
  };
  auto soft_plot = [&] {
    plot("soft_time", points, soft_series, [](const MeasurePoint& p) { return p.time_ms; }, "ms",
         ImVec2(w, (columns == 3 ? plot_h : std::min(plot_h, 200 * scale)) + legend), legend);
  };
  if (columns == 1) {  // each title over its plot, wrapped where the panel is narrower
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + avail_w - ImGui::CalcTextSize("(?)").x -
                           ImGui::GetStyle().ItemSpacing.x);
    ImGui::TextUnformatted("attention time against N");
    time_plot();
    ImGui::TextUnformatted(mem_title);
    help_marker(mem_help);
    mem_plot();
    ImGui::TextUnformatted("softmax time against n");
    soft_plot();
    ImGui::PopTextWrapPos();
    return;
  }
  const float x0 = ImGui::GetCursorPosX();
  ImGui::TextUnformatted("attention time against N");
  ImGui::SameLine(x0 + w + gap);
  ImGui::TextUnformatted(mem_title);
  help_marker(mem_help);
  if (columns == 3) {
    ImGui::SameLine(x0 + 2 * (w + gap));
    ImGui::TextUnformatted("softmax time against n");
  }
  time_plot();
  ImGui::SameLine(0, gap);
  mem_plot();
  if (columns == 3) {
    ImGui::SameLine(0, gap);
  } else {
    ImGui::TextUnformatted("softmax time against n");
  }
  soft_plot();
}

}  // namespace flashstep::ui
