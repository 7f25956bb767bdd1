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
#include <iterator>
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
      std::vector<Rect> out = hits.rects_of_region(c.buffer, c.r0, c.r1, c.c0, c.c1, true);
      for (const Region& g : c.also)
        for (const Rect& r : hits.rects_of_region(c.buffer, g.r0, g.r1, g.c0, g.c1, true)) out.push_back(r);
      return out;
    }
    case TourTarget::Kind::reg: {
      if (const auto h = hits.find(t.name, HitKind::reg); h && (h->buffer < 0 || h->row == row)) return {h->rect};
      const int b = rec.find_buffer(t.name);  // a register drawn as a column (the matrix view's m)
      return b >= 0 ? hits.rects_of_region(b, row, row + 1, 0, 1, true) : std::vector<Rect>{};
    }
    case TourTarget::Kind::memory:  // the box with its label and size, as much of it as the panel shows
      for (const HitMap::Labelled& b : hits.memory_boxes())
        if (b.name == t.name) {
          Rect r = b.labelled.shown ? b.labelled : b.rect;
          // A box taller than the panel (the chip's tiles of a backward, at 1280×800) runs on
          // below it, under the panel there: the outline stops inside the panel's edge.
          if (const auto p = hits.find("Memory", HitKind::panel)) {
            const float in = kTourOutline.reach() * app.ui_scale;
            const float y1 = std::min(r.y + r.h, p->rect.y + p->rect.h - in);
            if (y1 > r.y) r.h = y1 - r.y;
          }
          return {r};
        }
      return {};
    case TourTarget::Kind::panel:  // inside its edge, clear of the panels beside it
      if (const auto h = hits.find(t.name, HitKind::panel)) {
        const float in = kTourOutline.reach() * app.ui_scale;
        return {Rect{h->rect.x + in, h->rect.y + in, h->rect.w - 2 * in, h->rect.h - 2 * in, true}};
      }
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

namespace {

Rect grown(const Rect& r, float by) { return Rect{r.x - by, r.y - by, r.w + 2 * by, r.h + 2 * by, true}; }

bool meet(const Rect& a, float x0, float y0, float x1, float y1) {
  return a.x < x1 && x0 < a.x + a.w && a.y < y1 && y0 < a.y + a.h;
}

// The letters of this frame's panels (the font's quads in their draw lists, told from the white
// pixel and the baked lines by their UVs) that lie in any of `boxes`, drawn again into `dl`,
// each within the clip it was drawn in. Popups and tooltips are left, and what they cover: they
// lie over the panels.
void letters_over(ImDrawList* dl, const std::vector<Rect>& boxes) {
  if (boxes.empty()) return;
  const ImGuiIO& io = ImGui::GetIO();
  const ImVec2 white = io.Fonts->TexUvWhitePixel;
  ImVec4 lines(1, 1, 0, 0);
  for (const ImVec4& l : io.Fonts->TexUvLines)
    lines = ImVec4(std::min({lines.x, l.x, l.z}), std::min({lines.y, l.y, l.w}), std::max({lines.z, l.x, l.z}),
                   std::max({lines.w, l.y, l.w}));
  // What lies over the panels (a tooltip, a menu, a popup): their letters stay under it.
  std::vector<Rect> above;
  for (const ImGuiWindow* w : ImGui::GetCurrentContext()->Windows)
    if (w->Active && !w->Hidden && (w->Flags & (ImGuiWindowFlags_Popup | ImGuiWindowFlags_Tooltip | ImGuiWindowFlags_ChildMenu)))
      above.push_back(Rect{w->Pos.x, w->Pos.y, w->Size.x, w->Size.y, true});
  auto letter = [&](const ImDrawVert& v) {
    const bool on_line = v.uv.x >= lines.x && v.uv.x <= lines.z && v.uv.y >= lines.y && v.uv.y <= lines.w;
    return !(v.uv.x == white.x && v.uv.y == white.y) && !on_line;
  };
  for (const ImGuiWindow* w : ImGui::GetCurrentContext()->Windows) {
    // Not the implicit "Debug" window, begun every frame but shown only when written to.
    if (!w->Active || w->Hidden || w->IsFallbackWindow || w->DrawList == dl ||
        (w->Flags & (ImGuiWindowFlags_Popup | ImGuiWindowFlags_Tooltip | ImGuiWindowFlags_ChildMenu)))
      continue;
    const ImDrawList* src = w->DrawList;
    for (const ImDrawCmd& cmd : src->CmdBuffer) {
      if (cmd.UserCallback || cmd.TextureId != io.Fonts->TexID || cmd.ElemCount == 0) continue;
      const ImVec4& c = cmd.ClipRect;
      bool near = false;
      for (const Rect& b : boxes) near = near || meet(b, c.x, c.y, c.z, c.w);
      if (!near) continue;
      // A command's vertices are the ones its indices reach.
      unsigned lo = ~0u, hi = 0;
      for (unsigned k = 0; k < cmd.ElemCount; ++k) {
        const unsigned v = cmd.VtxOffset + src->IdxBuffer[static_cast<int>(cmd.IdxOffset + k)];
        lo = std::min(lo, v), hi = std::max(hi, v);
      }
      bool pushed = false;
      for (unsigned v = lo; v + 3 <= hi; ++v) {
        const ImDrawVert* q = &src->VtxBuffer[static_cast<int>(v)];
        if (!letter(q[0]) || !letter(q[1]) || !letter(q[2]) || !letter(q[3])) continue;
        // A glyph: (x0, y0), (x1, y0), (x1, y1), (x0, y1).
        if (q[0].pos.y != q[1].pos.y || q[1].pos.x != q[2].pos.x || q[2].pos.y != q[3].pos.y) continue;
        v += 3;
        bool in = false;
        for (const Rect& b : boxes) in = in || meet(b, q[0].pos.x, q[0].pos.y, q[2].pos.x, q[2].pos.y);
        if (!in) continue;
        bool hidden = false;
        for (const Rect& a : above) hidden = hidden || meet(a, q[0].pos.x, q[0].pos.y, q[2].pos.x, q[2].pos.y);
        if (hidden) continue;
        if (!pushed) dl->PushClipRect(ImVec2(c.x, c.y), ImVec2(c.z, c.w), true);
        pushed = true;
        dl->PrimReserve(6, 4);
        dl->PrimRectUV(q[0].pos, q[2].pos, q[0].uv, q[2].uv, q[0].col);
      }
      if (pushed) dl->PopClipRect();
    }
  }
}

// The tour panel's buttons, in the window (not in pictures).
struct TourButton {
  const char* label;
  void (*press)(AppState&);
};
const TourButton kTourButtons[] = {{"◀ Previous (B)", [](AppState& a) { tour_step(a, -1); }},
                                   {"Next (N) ▶", [](AppState& a) { tour_step(a, +1); }},
                                   {"Leave (Esc)", [](AppState& a) { set_tour(a, false); }}};

// Whether each button starts a new row at text width `width` (a large font in a narrow box),
// the first on the first.
std::vector<bool> tour_button_breaks(float width) {
  std::vector<bool> breaks;
  float x = -1;
  for (const TourButton& b : kTourButtons) {
    const float bw = button_width(b.label);
    const bool beside = x >= 0 && x + ImGui::GetStyle().ItemSpacing.x + bw <= width;
    breaks.push_back(!beside);
    x = beside ? x + ImGui::GetStyle().ItemSpacing.x + bw : bw;
  }
  return breaks;
}

}  // namespace

void draw_tour(AppState& app) {
  if (!app.tour.on || !app.played.rec || app.played.rec->step_count() == 0) return;
  const Tour& tour = shown_tour(app);
  if (tour.empty()) return;
  const TourView v = tour_view(app);
  const Palette& pal = palette_of(app.theme);
  const float s = app.ui_scale;
  // The target: a rounded outline in the pointer colour over a dark halo, so it reads on a
  // light and a dark theme and from the back of a lecture hall; the letters it lies over (a
  // name, a number or a line beside the target, where they stand closer than its width) are
  // drawn again over it. In a window of its own brought to the front each frame: over every
  // panel, under the tooltips (ImGui draws them in a layer above every window).
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(vp->Pos);
  ImGui::SetNextWindowSize(vp->Size);
  ImGui::Begin("##tour-outline", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoInputs | ImGuiWindowFlags_NoBackground |
                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav |
                   ImGuiWindowFlags_NoBringToFrontOnFocus);
  ImGui::BringWindowToDisplayFront(ImGui::GetCurrentWindow());
  ImDrawList* fg = ImGui::GetWindowDrawList();
  fg->PushClipRectFullScreen();
  std::vector<Rect> targets;
  if (v.at_stop) targets = tour_target_rects(app, tour.stops[static_cast<std::size_t>(v.stop)], v.step);
  const TourOutline o = kTourOutline;
  for (const Rect& t : targets) {
    const ImVec2 a(t.x - o.pad * s, t.y - o.pad * s), b(t.x + t.w + o.pad * s, t.y + t.h + o.pad * s);
    fg->AddRect(a, b, with_alpha(pal.background, 0.85f), o.radius * s, 0, o.halo * s);
    fg->AddRect(a, b, pal.pointer, o.radius * s, 0, o.line * s);
  }
  std::vector<Rect> bands;
  for (const Rect& t : targets) bands.push_back(grown(t, o.reach() * s));
  letters_over(fg, bands);
  fg->PopClipRect();
  ImGui::End();
  // The panel keeps clear of the target as outlined and of everything the step points at
  // (its cells in the matrices and the close-up, its registers, its memory tiles and moves, its
  // pseudocode lines): all of them where the views drew them this frame.
  std::vector<Rect> avoid = bands;
  if (v.step >= 0 && v.step < app.played.rec->step_count())
    for (const Rect& r : app.hits.step_rects(app.played.rec->steps[static_cast<std::size_t>(v.step)]))
      avoid.push_back(r);

  // The panel: in a corner of the view that keeps clear of them.
  const Rect screen{vp->Pos.x, vp->Pos.y, vp->Size.x, vp->Size.y, true};
  Rect area = screen;
  if (const auto view = app.hits.find("View", HitKind::panel)) area = view->rect;
  const float pad_x = ImGui::GetStyle().WindowPadding.x * 2;
  // At least as wide as its first line, "Tour · stop 3 of 7", which does not wrap.
  const std::string heading = "Tour · stop " + std::to_string(v.stop + 1) + " of " + std::to_string(v.count);
  float least_w = ImGui::CalcTextSize(heading.c_str()).x;
  // And as its longest word ("FlashAttention-2's" at font 2×), which cannot wrap either.
  for (const std::string* t : {&v.text, &v.takeaway})
    for (const std::string& word : wrap_rich(*t, 1.0f, ImGui::GetFontSize()))
      least_w = std::max(least_w, draw_rich(nullptr, ImVec2(0, 0), 0, word, 0, true));
  least_w += pad_x + 2 * s;
  float w = std::max(std::min(460.0f * s, area.w * 0.5f), least_w);
  const float fs = ImGui::GetFontSize();
  const float line_h = ImGui::GetTextLineHeightWithSpacing();
  // Its height at width w, to keep it clear of them: as drawn last frame at that width, at
  // least as estimated from its lines.
  const ImGuiWindow* last = ImGui::FindWindowByName("##tour");
  auto height = [&](float width) {
    const std::vector<bool> breaks = tour_button_breaks(width - pad_x);
    float h = line_h * 3.2f +
              ImGui::GetFrameHeightWithSpacing() * static_cast<float>(std::count(breaks.begin(), breaks.end(), true));
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
  if (const auto expl = app.hits.find("Explanation", HitKind::panel);
      expl && expl->rect.w >= std::max(200 * s, least_w + 4 * s))
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
  // First the corner that covers nothing the views drew, so the whole of what they show stays
  // in sight (the merge tree's root, a legend's neighbour); where none does, the first place
  // anywhere that keeps the target and what the step points at in sight.
  int pick = -1;
  {
    std::vector<Rect> drawn = avoid;
    for (const Rect& r : app.hits.drawn_rects()) drawn.push_back(r);
    for (std::size_t k = 0; k < boxes.size() && pick < 0; ++k)
      if (std::none_of(drawn.begin(), drawn.end(), [&](const Rect& r) { return overlaps(boxes[k], r); }))
        pick = static_cast<int>(k);
  }
  // Anywhere on the screen, narrower (and taller) where the full width finds no room.
  const Rect inside{screen.x + m, screen.y + m, screen.w - 2 * m, screen.h - 2 * m, true};
  for (float f : {1.0f, 0.8f, 0.65f, 0.5f}) {
    const float ww = std::max({w * f, std::min(w, 240.0f * s), least_w});
    for (const Rect& b : grid_boxes(inside, ww, f == 1.0f ? h : height(ww), 16 * s)) {
      boxes.push_back(b);
      corners.push_back({ImVec2(b.x, b.y), ImVec2(0, 0), ww, 0});
    }
  }
  if (pick < 0) pick = first_clear(boxes, avoid);
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
    ImGui::TextUnformatted(heading.c_str());
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
      const std::vector<bool> breaks = tour_button_breaks(text_w);
      for (std::size_t k = 0; k < std::size(kTourButtons); ++k) {
        if (!breaks[k]) ImGui::SameLine();
        if (ImGui::Button(kTourButtons[k].label)) kTourButtons[k].press(app);
      }
    }
  }
  ImGui::End();
  ImGui::PopStyleVar();
  ImGui::PopStyleColor();
}

}  // namespace flashstep::ui
