// Compare mode: two algorithms on the same input, side by side, under one playhead. The shared
// playhead counts steps, so the algorithm with fewer passes finishes first, which is the point:
// online softmax is done while safe softmax is still in its third pass.
#include "app/ui/panels/panels.h"
#include "app/ui/style.h"
#include "app/ui/widgets.h"
#include "core/algorithms.h"
#include "core/text.h"

#include <algorithm>
#include <cmath>

namespace flashstep::ui {

namespace {

// The rows Compare may pair with `group`'s (its group, core/algorithms.h).
bool algorithm_combo(const char* label, Algorithm* a, Algorithm group) {
  bool changed = false;
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8.5f);
  const std::string cur(algorithm_id(*a));
  if (ImGui::BeginCombo(label, cur.c_str())) {
    for (Algorithm x : group_of(group)) {
      const std::string id(algorithm_id(x));
      if (ImGui::Selectable(id.c_str(), x == *a)) {
        *a = x;
        changed = true;
      }
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", std::string(algorithm_title(x)).c_str());
    }
    ImGui::EndCombo();
  }
  return changed;
}

std::string count(std::uint64_t v) { return num(static_cast<double>(v)); }

void side(AppState& app, Played& p, int playhead, ViewStates& views, float height) {
  const Recording& rec = *p.rec;
  const float s = app.ui_scale;
  ImGui::Text("%s%s", std::string(algorithm_title(rec.algorithm)).c_str(),
              rec.backend == "gpu" ? "  ·  GPU" : "  ·  CPU");
  const int k = p.cursor->position();
  const Step* st = p.step();
  if (rec.step_count() == 0 || !st) {
    ImGui::TextDisabled("no steps");
    return;
  }
  ImGui::Text("%d passes, %d steps", rec.pass_count(), rec.step_count());
  // One line either way, so the two views stay level.
  if (playhead > k) {
    ImGui::TextColored(ImVec4(0.0f, 0.62f, 0.45f, 1.0f), "finished at step %d", rec.step_count());
  } else {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetColorU32(ImGuiCol_TextDisabled));
    text_wrapped_words(strf("now: pass %d (%s), step %d", st->pass,
                            rec.pass_names[static_cast<std::size_t>(st->pass - 1)].c_str(), k + 1),
                       ImGui::GetContentRegionAvail().x);
    ImGui::PopStyleColor();
  }
  // HBM traffic so far against this algorithm's total.
  const IoCounters& now = st->io;
  ImGui::Text("HBM reads %s / %s   writes %s / %s", count(now.hbm_reads).c_str(),
              count(rec.io.hbm_reads).c_str(), count(now.hbm_writes).c_str(),
              count(rec.io.hbm_writes).c_str());
  help_marker("Elements moved between slow memory (HBM) and the chip so far / over the whole run, "
              "by the rules in core/io_counters.h.");
  const float frac = rec.io.hbm_accesses() ? static_cast<float>(now.hbm_accesses()) /
                                                 static_cast<float>(rec.io.hbm_accesses())
                                           : 0.0f;
  ImGui::ProgressBar(frac, ImVec2(-1, 6 * s), "");
  ImGui::BeginChild("view", ImVec2(0, height), false);
  ViewInput vi{rec,          *p.cursor, k, st, palette_of(app.theme),
               app.ui_scale, app.ui_scale / std::max(app.font_scale, 1.0f)};
  vi.side_by_side = true;
  draw_recording_view(vi, views, ViewPlace::compare);
  ImGui::EndChild();
  text_rich(st->text, ImGui::GetContentRegionAvail().x);
}

}  // namespace

void draw_compare(AppState& app) {
  CompareState& c = app.compare;
  const Algorithm group = c.a;
  const ImGuiStyle& style = ImGui::GetStyle();
  const std::vector<ComparePreset>& presets = compare_presets();
  for (const ComparePreset& p : presets) {
    const std::string name(p.name), why(p.why);
    if (&p != &presets.front()) flow_next(ImGui::CalcTextSize(name.c_str()).x + style.FramePadding.x * 2);
    if (ImGui::SmallButton(name.c_str())) {
      c.a = p.a;
      c.b = p.b;
      c.dirty = true;
    }
    if (ImGui::IsItemHovered()) tooltip(name.c_str(), why.c_str());
  }
  flow_next(ImGui::GetFontSize() * 19.0f);
  if (algorithm_combo("##a", &c.a, group)) c.dirty = true;
  ImGui::SameLine();
  ImGui::TextUnformatted("vs");
  ImGui::SameLine();
  if (!same_group(c.b, c.a)) {
    c.b = info(c.a).compare_b;
    c.dirty = true;
  }
  if (algorithm_combo("##b", &c.b, c.a)) c.dirty = true;
  help_marker("Both run on the lesson's input (the Inputs panel): the vector for the softmax "
              "algorithms, N, d and the seed for attention. One playhead moves both.");
  ImGui::SameLine(0, 16 * app.ui_scale);
  const bool gpu_ok = static_cast<bool>(gpu_backend());
  if (!gpu_ok) ImGui::BeginDisabled();
  bool right_gpu = c.backend_b == Backend::gpu && gpu_ok;
  if (ImGui::Checkbox("right on the GPU", &right_gpu)) {
    c.backend_b = right_gpu ? Backend::gpu : Backend::cpu;
    c.dirty = true;
  }
  if (!gpu_ok) ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    tooltip("right on the GPU", gpu_ok ? "Record the right-hand algorithm with the OpenGL compute "
                                         "shaders; with the same algorithm on both sides this is "
                                         "the CPU vs GPU comparison."
                                       : "not available here: no OpenGL 4.3 compute context.");
  if (!c.error.empty()) {
    ImGui::TextColored(ImVec4(0.95f, 0.45f, 0.25f, 1.0f), "%s", c.error.c_str());
    return;
  }
  if (c.dirty) return;  // recorded in AppState::tick, before the next frame
  if (c.recording()) {
    // The GPU side records on its own thread; the pair below is the previous one until then.
    ImGui::TextUnformatted("Recording on the GPU");
    ImGui::SameLine();
    const std::string label = strf("%.0f%%", c.progress() * 100.0f);
    ImGui::ProgressBar(c.progress(), ImVec2(160 * app.ui_scale, 0), label.c_str());
    ImGui::SameLine();
    if (ImGui::SmallButton("Cancel##compare")) app.cancel_compare();
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Stop recording and keep the comparison shown");
  }
  const IoCounters& ia = c.left.rec->io;
  const IoCounters& ib = c.right.rec->io;
  if (ib.hbm_accesses() > 0 && ia.hbm_accesses() > 0)
    ImGui::Text("Total HBM traffic: %s: %s elements, %s: %s elements (%.2f×)",
                std::string(algorithm_id(c.a)).c_str(), count(ia.hbm_accesses()).c_str(),
                std::string(algorithm_id(c.b)).c_str(), count(ib.hbm_accesses()).c_str(),
                static_cast<double>(ia.hbm_accesses()) / static_cast<double>(ib.hbm_accesses()));
  // The same algorithm on two backends: how far apart are their outputs?
  const MatrixRM& oa = c.left.rec->output();
  const MatrixRM& ob = c.right.rec->output();
  if (c.a == c.b && c.left.rec->backend != c.right.rec->backend && oa.rows() == ob.rows() &&
      oa.cols() == ob.cols() && oa.size() > 0) {
    double most = 0;
    for (Eigen::Index i = 0; i < oa.size(); ++i)
      most = std::max(most, std::abs(oa.data()[i] - ob.data()[i]));
    ImGui::Text("Largest |CPU − GPU| difference of the output: %s", num(most).c_str());
    help_marker("Both compute in fp32 here; they differ only by the driver's exp() and the order "
                "of the sums, a few units in the last place.");
  }
  const float line = ImGui::GetTextLineHeightWithSpacing();
  const float view_h = std::max(ImGui::GetContentRegionAvail().y - 7.5f * line, 80.0f * app.ui_scale);
  const int k = c.timeline.playhead();
  if (ImGui::BeginTable("compare", 2, ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingStretchSame)) {
    ImGui::TableNextColumn();
    ImGui::PushID("a");
    side(app, c.left, k, c.views[0], view_h);
    ImGui::PopID();
    ImGui::TableNextColumn();
    ImGui::PushID("b");
    side(app, c.right, k, c.views[1], view_h);
    ImGui::PopID();
    ImGui::EndTable();
  }
}

}  // namespace flashstep::ui
