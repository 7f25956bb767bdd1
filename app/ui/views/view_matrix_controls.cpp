#include "app/ui/views/view_matrix_controls.h"

#include "app/ui/widgets.h"
#include "core/text.h"

#include <algorithm>

namespace flashstep::ui {

const std::vector<ValueRange>& matrix_ranges(const Recording& rec, MatrixViewOptions& opt) {
  auto& k = opt.cache;
  const std::uint64_t fp = recording_fingerprint(rec);
  if (k.rec != &rec || k.deltas != rec.deltas.size() || k.steps != rec.steps.size() ||
      k.buffers != rec.buffers.size() || k.fingerprint != fp) {
    k.rec = &rec;
    k.deltas = rec.deltas.size();
    k.steps = rec.steps.size();
    k.buffers = rec.buffers.size();
    k.fingerprint = fp;
    k.ranges.clear();
    for (int b = 0; b < static_cast<int>(rec.buffers.size()); ++b) k.ranges.push_back(buffer_range(rec, b));
  }
  return k.ranges;
}

std::string with_transpose_mark(std::string text) {
  static const std::string mark = "ᵀ";
  const char* shown = pick("ᵀ", 0x1D40, "^T");
  if (shown == mark) return text;
  for (std::size_t at = text.find(mark); at != std::string::npos; at = text.find(mark, at + 2))
    text.replace(at, mark.size(), shown);
  return text;
}

std::vector<int> placed_in_order(const Recording& rec) {
  std::vector<int> out;
  for (int b = 0; b < static_cast<int>(rec.buffers.size()); ++b)
    if (rec.buffers[static_cast<std::size_t>(b)].place != Place::hidden) out.push_back(b);
  std::stable_sort(out.begin(), out.end(), [&](int a, int b) {
    return rec.buffers[static_cast<std::size_t>(a)].order < rec.buffers[static_cast<std::size_t>(b)].order;
  });
  return out;
}

void draw_matrix_toolbar(const Recording& rec, MatrixViewOptions& opt, float s) {
  // The items flow onto a second line rather than run off a narrow panel.
  bool first = true;
  auto next = [&](float w) {
    if (!first) flow_next(w);
    first = false;
  };
  auto box = [&](const char* label, bool* v) {
    next(ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(label).x);
    ImGui::Checkbox(label, v);
  };
  auto toggle = [&](const std::string& label, const std::string& name) {
    bool on = opt.shows(name);
    box(label.c_str(), &on);
    opt.show(name, on);
  };
  // One box per matrix the recording places, in its order; one for the per-row columns, named
  // by those the Steps tab shows too (m, l).
  std::string stats, all_stats;
  for (int b : placed_in_order(rec)) {
    const BufferInfo& info = rec.buffers[static_cast<std::size_t>(b)];
    if (info.place == Place::stats) {
      if (info.step_column) stats += (stats.empty() ? "" : ", ") + info.name;
      all_stats += (all_stats.empty() ? "" : ", ") + info.name;
      continue;
    }
    const std::string label = !info.label.empty() ? info.label : !info.titles.empty() ? info.titles.back() : info.name;
    toggle(with_transpose_mark(label), info.name);
  }
  if (!all_stats.empty()) toggle(stats.empty() ? all_stats : stats, MatrixViewOptions::kStatsName);
  // The separator where it ends a line, not where it would start the next.
  if (flow_next(ImGui::CalcTextSize("|").x)) ImGui::TextDisabled("|");
  box("numbers", &opt.show_values);
  if (rec.Br > 0) box("tiles", &opt.show_tiles);
  box("close-up", &opt.show_close_up);
  next(130 * s + ImGui::GetFontSize() * 1.6f);
  ImGui::SetNextItemWidth(130 * s);
  ImGui::SliderFloat("##zoom", &opt.zoom, 0.0f, 64.0f, opt.zoom <= 0 ? "zoom: fit" : "%.0f px/cell");
  if (opt.zoom > 0) {
    ImGui::SameLine();
    if (ImGui::Checkbox("follow", &opt.follow)) opt.followed_step = -2;
  }
  help_marker(
      "Rows are queries, columns of Kᵀ, S, P and Vᵀ are keys. Vᵀ is V drawn on its side, so "
      "that v_{j} sits above column j of P: O = P V adds up the v_{j} weighted by P. Zoom in and "
      "scroll to read every cell, or double-click a tile to fill the view with it (again to fit "
      "everything); hover any cell for its exact value. Where the matrices are too small for "
      "numbers, the close-up under them shows the step's rows large: the tile's S and P, and "
      "the rows of O, m and l it updates.");
}

void draw_matrix_legend(const Recording& rec, const Palette& pal, const std::vector<int>& buffers,
                        const std::vector<ValueRange>& ranges, float s) {
  // Each matrix's own scale is drawn beside its title; this says how to read them.
  ImGui::TextDisabled("colour scales");
  std::string scales =
      "Each matrix has its own scale, fixed for the whole run, drawn beside its name: viridis "
      "(dark to yellow) for values of one sign, a diverging map (blue through grey to orange, "
      "grey at 0) for values of both signs. Both read with colour-blindness and in greyscale.";
  for (int b : buffers) {
    const ValueRange& r = ranges[b];
    if (!r.empty) scales += "\n" + rec.buffers[b].name + ": " + num(r.lo) + " … " + num(r.hi);
  }
  help_marker(scales.c_str());
  ImGui::SameLine(0, ImGui::GetFontSize());
  const bool registers = std::any_of(rec.buffers.begin(), rec.buffers.end(),
                                     [](const BufferInfo& b) { return b.space == Space::reg; });
  mark_legend(pal, s, rec.Br > 0, registers);
}

}  // namespace flashstep::ui
