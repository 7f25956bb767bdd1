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

std::string now_line(const Recording& rec, int pass, int step) {
  return strf("pass %d of %d (%s), step %d of %d", pass, rec.pass_count(),
              rec.pass_names[static_cast<std::size_t>(pass - 1)].c_str(), step, rec.step_count());
}

// The lines a side's wrapping text takes at most over its steps, at `width`: where it is and its
// sentence.
int most_lines(AppState& app, const std::shared_ptr<const Recording>& rec, float width) {
  std::size_t now = 1;
  for (int p = 1; p <= rec->pass_count(); ++p)
    now = std::max(now, wrap_words(now_line(*rec, p, rec->step_count()), width).size());
  return static_cast<int>(now) + step_sentences(app, rec).most_lines(width);
}

// The lines of wrapping text under and over the two views, found once per pair and column width
// so the views keep their size from step to step, and nothing goes below the region (presenting
// has no mouse to scroll it).
CompareState::SentenceRoom& room_for(CompareState& c, float width, float scale) {
  CompareState::SentenceRoom& r = c.sentence_room;
  if (!r.a.is(c.left.rec) || !r.b.is(c.right.rec) || r.width != width || r.scale != scale)
    r = {RecordingKey(c.left.rec), RecordingKey(c.right.rec), width, scale, {}, 0.0f};
  return r;
}

int wrapping_lines(AppState& app, CompareState& c, float width) {
  CompareState::SentenceRoom& r = c.sentence_room;
  const float size = ImGui::GetFontSize();
  for (const auto& [at, lines] : r.lines)
    if (at == size) return lines;
  const int lines = std::max(most_lines(app, c.left.rec, width), most_lines(app, c.right.rec, width));
  r.lines.emplace_back(size, lines);
  return lines;
}

// One side: its header, its view at `scale` (the same for both sides in a frame) and its sentence.
void side(AppState& app, CompareState::SentenceRoom& room, Played& p, int playhead, ViewStates& views, ImVec2 size,
          float scale, TextScale& text) {
  const float height = size.y;
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
  // Where it is, or that it is done while the other side goes on: one line either way (at most
  // as many as wrapping_lines counts), so the two views stay level.
  if (playhead > k) {
    ImGui::TextColored(ImVec4(0.0f, 0.62f, 0.45f, 1.0f), "finished: %d passes, %d steps", rec.pass_count(),
                       rec.step_count());
  } else {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetColorU32(ImGuiCol_TextDisabled));
    text_wrapped_words(now_line(rec, st->pass, k + 1), ImGui::GetContentRegionAvail().x);
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
  // The view at its own size: a child window's font scales with its parent's.
  const float f = text.get();
  text.set(1.0f);
  ImGui::BeginChild("view", size, false);
  ImGui::SetWindowFontScale(scale / app.ui_scale);
  ViewInput vi{rec, *p.cursor, k, st, palette_of(app.theme), scale, std::min(app.font_1x_scale(), scale)};
  vi.side_by_side = true;
  vi.shrinks = true;
  draw_recording_view(vi, views, ViewPlace::compare);
  // What did not fit, as the height it asks at the full scale: the text makes room for it from
  // the next frame, and the views get smaller for what the text cannot give. Measured on this
  // frame's layout at this frame's scale, as ImGui will work out the scroll range at its end
  // (the scroll range itself is the frame before's, maybe drawn at another scale: taken with
  // this one it asked twice the room the views needed).
  learn_need(room.view_need, height, overflow_now(), scale, app.ui_scale);
  ImGui::EndChild();
  text.set(f);
  text_rich(st->text, ImGui::GetContentRegionAvail().x);
}

// The presets, the two pickers and the GPU box.
void draw_controls(AppState& app) {
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
  if (algorithm_combo("##b", &c.b, c.a)) c.dirty = true;
  help_marker("Both run on the lesson's input (the Inputs panel): the vector for the softmax "
              "algorithms, N, d and the seed for attention. One playhead moves both.");
  // On the next line where the tab has no room for it (a larger font).
  flow_next(ImGui::GetFrameHeight() + style.ItemInnerSpacing.x + ImGui::CalcTextSize("right on the GPU").x,
            16 * app.ui_scale);
  const bool gpu_ok = static_cast<bool>(gpu_backend());
  if (!gpu_ok) ImGui::BeginDisabled();
  bool right_gpu = c.backend_b == Backend::gpu && gpu_ok;
  if (ImGui::Checkbox("right on the GPU", &right_gpu)) {
    c.backend_b = right_gpu ? Backend::gpu : Backend::cpu;
    c.dirty = true;
  }
  if (!gpu_ok) ImGui::EndDisabled();
  c.controls_right = ImGui::GetItemRectMax().x;
  c.controls_edge = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    tooltip("right on the GPU", gpu_ok ? "Record the right-hand algorithm with the OpenGL compute "
                                         "shaders; with the same algorithm on both sides this is "
                                         "the CPU vs GPU comparison."
                                       : "not available here: no OpenGL 4.3 compute context.");
}

}  // namespace

void draw_compare(AppState& app, bool controls) {
  CompareState& c = app.compare;
  const ImGuiStyle& style = ImGui::GetStyle();
  // The right-hand side is one the left may be compared with (core/algorithms.h's groups).
  if (!same_group(c.b, c.a)) {
    c.b = info(c.a).compare_b;
    c.dirty = true;
  }
  if (controls) draw_controls(app);
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
  // Each side by its algorithm, or by its backend where both run the same one.
  const bool by_backend = c.a == c.b && c.left.rec->backend != c.right.rec->backend;
  const std::string na = by_backend ? (c.left.rec->backend == "gpu" ? "GPU" : "CPU") : std::string(algorithm_id(c.a));
  const std::string nb = by_backend ? (c.right.rec->backend == "gpu" ? "GPU" : "CPU") : std::string(algorithm_id(c.b));
  // Wrapped where a slide's font makes it wider than the tab (the ratio went past the edge).
  if (ib.hbm_accesses() > 0 && ia.hbm_accesses() > 0)
    text_wrapped_words(strf("Total HBM traffic: %s: %s elements, %s: %s elements (%.2f×)", na.c_str(),
                            count(ia.hbm_accesses()).c_str(), nb.c_str(), count(ib.hbm_accesses()).c_str(),
                            static_cast<double>(ia.hbm_accesses()) / static_cast<double>(ib.hbm_accesses())),
                       ImGui::GetContentRegionAvail().x);
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
  const int k = c.timeline.playhead();
  TextScale text;
  if (ImGui::BeginTable("compare", 2, ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingStretchSame)) {
    ImGui::TableNextColumn();
    // Over each view: its title, where it is, its HBM line and the progress bar; under it, its
    // sentence. The view takes the rest; where the text would take more than 0.45 of the height
    // or leave the views less than they need (a font made larger, a short screen), the text gets
    // smaller, down to its size at font 1× (the sentence is what the slide says), and
    // then the views (side()).
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    CompareState::SentenceRoom& room = room_for(c, avail.x, app.ui_scale);
    auto text_h = [&] {
      const float line = ImGui::GetTextLineHeightWithSpacing();
      return static_cast<float>(2 + wrapping_lines(app, c, avail.x)) * line + 6 * app.ui_scale +
             ImGui::GetStyle().ItemSpacing.y * 2 + style.CellPadding.y * 2;
    };
    shrink_to_fit(text, std::min(avail.y * 0.45f, avail.y - room.view_need), text_h, app.font_1x_scale() / app.ui_scale);
    const float view_h = std::max(avail.y - text_h(), 80.0f * app.ui_scale);
    // Where even the smallest text leaves the views less than they need (a font made larger),
    // they are drawn smaller, down to their size at font 1×: both at one scale, worked out once
    // a frame from what they were seen to need before it (fitted_scale: matrix views at their
    // font-1× size, at half a lesson view's width all the more).
    const bool matrices = info(c.a).view == ViewKind::matrix || info(c.b).view == ViewKind::matrix;
    const float view_scale = fitted_scale(matrices, room.view_need, view_h, app.ui_scale, app.font_1x_scale());
    // Both views the same width, to the pixel (the table's two columns may differ by one): a
    // matrix's number format is the longest its cells hold, and the CPU and GPU sides of one
    // algorithm must not show the same value as "−.01" and "0".
    const ImVec2 view_size(std::floor(avail.x) - 1.0f, view_h);
    ImGui::PushID("a");
    side(app, room, c.left, k, c.views[0], view_size, view_scale, text);
    ImGui::PopID();
    ImGui::TableNextColumn();
    ImGui::PushID("b");
    side(app, room, c.right, k, c.views[1], view_size, view_scale, text);
    ImGui::PopID();
    ImGui::EndTable();
  }
}

}  // namespace flashstep::ui
