// The guided tour on screen: a small panel with the stop's text ("stop k of K", previous and
// next), and the stop's target outlined where the views drew it (the frame's HitMap), thick
// enough for a projector. What the tour says and where it goes is app/ui/model/tour_state.h.
#include "app/ui/panels/panels.h"
#include "app/ui/model/tour_state.h"
#include "app/ui/style.h"
#include "app/ui/views/hit_map.h"
#include "app/ui/widgets.h"

#include <imgui_internal.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

namespace flashstep::ui {

std::vector<Rect> tour_target_rects(const AppState& app, const TourStop& stop, int step) {
  const Recording& rec = *app.played.rec;
  const HitMap& hits = app.hits;
  const int row = event_row(rec, stop.at, step);
  const TourTarget& t = stop.point;
  switch (t.kind) {
    case TourTarget::Kind::buffer: {
      const TargetCells c = target_cells(rec, t, step, stop.at);
      if (!c.found) return {};
      return hits.rects_of_region(c.buffer, c.r0, c.r1, c.c0, c.c1);
    }
    case TourTarget::Kind::reg: {
      if (const auto h = hits.find(t.name, HitKind::reg); h && (h->buffer < 0 || h->row == row)) return {h->rect};
      const int b = rec.find_buffer(t.name);  // a register drawn as a column (the matrix view's m)
      return b >= 0 ? hits.rects_of_region(b, row, row + 1, 0, 1) : std::vector<Rect>{};
    }
    case TourTarget::Kind::memory:
      if (const auto h = hits.find(t.name, HitKind::memory)) return {h->rect};
      return {};
    case TourTarget::Kind::panel:
      if (const auto h = hits.find(t.name, HitKind::panel)) return {h->rect};
      return {};
    case TourTarget::Kind::line: {
      const Step& s = rec.steps[static_cast<std::size_t>(step)];
      std::optional<Rect> out;
      for (int l = s.line; l >= 1 && l <= std::max(s.line, s.line_end); ++l)
        if (const auto r = hits.code_line(l)) {
          if (!out) out = r;
          else out = Rect{std::min(out->x, r->x), std::min(out->y, r->y), std::max(out->x + out->w, r->x + r->w) - std::min(out->x, r->x),
                          std::max(out->y + out->h, r->y + r->h) - std::min(out->y, r->y), true};
        }
      return out ? std::vector<Rect>{*out} : std::vector<Rect>{};
    }
  }
  return {};
}

void draw_tour(AppState& app) {
  if (!app.tour.on || !app.played.rec || app.played.rec->step_count() == 0) return;
  const Tour& tour = shown_tour(app);
  if (tour.empty()) return;
  const TourView v = tour_view(app);
  const Palette& pal = palette_of(app.theme);
  const float s = app.ui_scale;
  ImDrawList* fg = ImGui::GetForegroundDrawList();

  // The target: a rounded outline in the pointer colour over a dark halo, so it reads on a
  // light and a dark theme and from the back of a lecture hall.
  std::vector<Rect> targets;
  if (v.at_stop) targets = tour_target_rects(app, tour.stops[static_cast<std::size_t>(v.stop)], v.step);
  for (const Rect& t : targets) {
    const float pad = 5 * s, r = 7 * s;
    const ImVec2 a(t.x - pad, t.y - pad), b(t.x + t.w + pad, t.y + t.h + pad);
    fg->AddRect(a, b, with_alpha(pal.background, 0.85f), r, 0, 9 * s);
    fg->AddRect(a, b, pal.pointer, r, 0, 4.5f * s);
  }
  // The panel keeps clear of the target as outlined and of everything the step points at
  // (its cells in the matrices and the close-up, its registers, its memory tiles and moves, its
  // pseudocode lines): all of them where the views drew them this frame.
  std::vector<Rect> avoid;
  const float halo = 9.5f * s;  // the outline's pad and half its halo's width
  for (const Rect& t : targets) avoid.push_back(Rect{t.x - halo, t.y - halo, t.w + 2 * halo, t.h + 2 * halo, true});
  if (v.step >= 0 && v.step < app.played.rec->step_count())
    for (const Rect& r : app.hits.step_rects(app.played.rec->steps[static_cast<std::size_t>(v.step)]))
      avoid.push_back(r);

  // The panel: in a corner of the view that keeps clear of them.
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  const Rect screen{vp->Pos.x, vp->Pos.y, vp->Size.x, vp->Size.y, true};
  Rect area = screen;
  if (const auto view = app.hits.find("View", HitKind::panel)) area = view->rect;
  float w = std::min(460.0f * s, area.w * 0.5f);
  const float pad_x = ImGui::GetStyle().WindowPadding.x * 2;
  const float fs = ImGui::GetFontSize();
  const float line_h = ImGui::GetTextLineHeightWithSpacing();
  // Its height at width w, to keep it clear of them: as drawn last frame at that width, at
  // least as estimated from its lines.
  const ImGuiWindow* last = ImGui::FindWindowByName("##tour");
  auto height = [&](float width) {
    float h = line_h * 3.2f + ImGui::GetFrameHeightWithSpacing();
    for (const std::string& t : v.notes) h += line_h * static_cast<float>(wrap_rich(t, width - pad_x, fs).size());
    h += line_h * static_cast<float>(wrap_rich(v.text, width - pad_x, fs).size());
    if (!v.takeaway.empty())
      h += line_h * (static_cast<float>(wrap_rich("Takeaway: " + v.takeaway, width - pad_x, fs).size()) + 0.5f);
    if (last && last->WasActive && std::fabs(last->SizeFull.x - width) < 1) h = std::max(h, last->SizeFull.y);
    return h;
  };
  const float m = 10 * s;
  // Anchored by a corner (pivot), so its real height, which the text decides, never runs past
  // the view's edge: the view's bottom right, then over the explanation panel (the step's
  // sentence, which the stop's text stands in for: the tour covers it whole), then the view's
  // other corners, then anywhere on the screen, the first that keeps all of them in sight.
  const float top = area.y + m + 28 * s, bottom = area.y + area.h - m;
  struct Corner {
    ImVec2 at, pivot;
    float width, min_h;
  };
  std::vector<Corner> corners = {{ImVec2(area.x + area.w - m, bottom), ImVec2(1, 1), w, 0}};
  if (const auto expl = app.hits.find("Explanation", HitKind::panel); expl && expl->rect.w >= 200 * s)
    corners.push_back({ImVec2(expl->rect.x + 2 * s, expl->rect.y + 2 * s), ImVec2(0, 0), expl->rect.w - 4 * s,
                       expl->rect.h - 4 * s});
  corners.push_back({ImVec2(area.x + m, bottom), ImVec2(0, 1), w, 0});
  corners.push_back({ImVec2(area.x + area.w - m, top), ImVec2(1, 0), w, 0});
  corners.push_back({ImVec2(area.x + m, top), ImVec2(0, 0), w, 0});
  const float h = height(w);
  std::vector<Rect> boxes;
  for (const Corner& c : corners) {
    const float ch = std::max(height(c.width), c.min_h);
    boxes.push_back(Rect{c.at.x - c.pivot.x * c.width, c.at.y - c.pivot.y * ch, c.width, ch, true});
  }
  // Anywhere on the screen, narrower (and taller) where the full width finds no room.
  const Rect inside{screen.x + m, screen.y + m, screen.w - 2 * m, screen.h - 2 * m, true};
  for (float f : {1.0f, 0.8f, 0.65f, 0.5f}) {
    const float ww = std::max(w * f, std::min(w, 240.0f * s));
    for (const Rect& b : grid_boxes(inside, ww, f == 1.0f ? h : height(ww), 16 * s)) {
      boxes.push_back(b);
      corners.push_back({ImVec2(b.x, b.y), ImVec2(0, 0), ww, 0});
    }
  }
  const int pick = first_clear(boxes, avoid);
  const Corner chosen = pick >= 0 ? corners[static_cast<std::size_t>(pick)] : corners[0];
  w = chosen.width;
  const float text_w = w - pad_x;
  ImGui::SetNextWindowPos(chosen.at, ImGuiCond_Always, chosen.pivot);
  ImGui::SetNextWindowSizeConstraints(ImVec2(w, chosen.min_h), ImVec2(w, FLT_MAX));
  ImGui::SetNextWindowBgAlpha(1.0f);
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoSavedSettings |
                                 ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav |
                                 ImGuiWindowFlags_AlwaysAutoResize;
  ImGui::PushStyleColor(ImGuiCol_Border, pal.pointer);
  ImGui::PushStyleVar(ImGuiStyleVar_WindowBorderSize, 2.0f * s);
  if (ImGui::Begin("##tour", nullptr, flags)) {
    ImGui::PushStyleColor(ImGuiCol_Text, pal.pointer);
    ImGui::Text("Tour · stop %d of %d", v.stop + 1, v.count);
    ImGui::PopStyleColor();
    if (!v.source.empty()) {
      ImGui::SameLine();
      ImGui::TextDisabled("(%s)", v.source.c_str());
    }
    for (const std::string& n : v.notes) {
      ImGui::PushStyleColor(ImGuiCol_Text, pal.text_dim);
      text_rich(n, text_w);
      ImGui::PopStyleColor();
    }
    text_rich(v.text, text_w);
    if (!v.takeaway.empty()) {
      ImGui::Spacing();
      ImGui::PushStyleColor(ImGuiCol_Text, pal.pointer);
      text_rich("Takeaway: " + v.takeaway, text_w);
      ImGui::PopStyleColor();
    }
    if (!v.at_stop && v.step >= 0) {
      ImGui::PushStyleColor(ImGuiCol_Text, pal.text_dim);
      text_rich("The playhead has left this stop: N goes on, B goes back.", text_w);
      ImGui::PopStyleColor();
    }
    if (!picture_mode()) {
      if (ImGui::Button("◀ Previous (B)")) tour_step(app, -1);
      ImGui::SameLine();
      if (ImGui::Button("Next (N) ▶")) tour_step(app, +1);
      ImGui::SameLine();
      if (ImGui::Button("Leave (Esc)")) set_tour(app, false);
    }
  }
  ImGui::End();
  ImGui::PopStyleVar();
  ImGui::PopStyleColor();
}

}  // namespace flashstep::ui
