// The pointer and pen of presentation mode, drawn over the presented view in its own draw
// list, so that an export of the window in presentation mode holds the strokes too. The rules
// (what a drag draws, when strokes clear) are the model's: app/ui/model/pen.h.
#include "app/ui/panels/panels.h"
#include "app/ui/style.h"
#include "app/ui/widgets.h"

#include <algorithm>

namespace flashstep::ui {

namespace {

// A red that reads on the dark, light and projector themes alike, with a soft halo.
constexpr ImU32 kLaser = IM_COL32(255, 36, 36, 255);
// The pen's ink: a strong magenta, distinct from every colour the views use for meaning.
constexpr ImU32 kInk = IM_COL32(236, 0, 140, 255);

}  // namespace

void draw_pen_layer(AppState& app) {
  Pen& pen = app.pen;
  const ImVec2 p0 = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
  if (size.x < 2 || size.y < 2) return;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float s = app.ui_scale;
  const Palette& pal = palette_of(app.theme);
  const int step = app.played.cursor->position(), part = app.played.cursor->part();

  // The mouse, in the window's own frames only.
  pen.pointer = false;
  if (pen.live && pen.mouse.valid) {
    const PenPoint q{(pen.mouse.x - p0.x) / size.x, (pen.mouse.y - p0.y) / size.y};
    const bool inside = q.x >= 0 && q.x <= 1 && q.y >= 0 && q.y <= 1;
    if (inside) {
      pen.pointer = true;
      pen.at = q;
    }
    if (!pen.mouse.down) pen.release();
    else if (pen.drawing) pen.drag({std::clamp(q.x, 0.0f, 1.0f), std::clamp(q.y, 0.0f, 1.0f)});
    else if (inside) pen.press(q);
  }

  auto at = [&](PenPoint q) { return ImVec2(p0.x + q.x * size.x, p0.y + q.y * size.y); };
  if (pen.shows_at(step, part)) {
    std::vector<ImVec2> pts;
    for (const PenStroke& stroke : pen.strokes) {
      pts.clear();
      for (const PenPoint& q : stroke) pts.push_back(at(q));
      if (pts.size() < 2) continue;
      // A halo of the background under the ink, so it reads over any cell or bar.
      dl->AddPolyline(pts.data(), static_cast<int>(pts.size()), with_alpha(pal.background, 0.8f), 0, 9.0f * s);
      dl->AddPolyline(pts.data(), static_cast<int>(pts.size()), kInk, 0, 5.0f * s);
    }
  }
  if (pen.live && pen.pointer) {
    const ImVec2 c = at(pen.at);
    dl->AddCircleFilled(c, 18.0f * s, with_alpha(kLaser, 0.12f), 32);
    dl->AddCircleFilled(c, 12.0f * s, with_alpha(kLaser, 0.28f), 32);
    dl->AddCircleFilled(c, 6.5f * s, kLaser, 24);
    dl->AddCircle(c, 6.5f * s, with_alpha(IM_COL32(255, 255, 255, 255), 0.7f), 24, 1.2f * s);
    if (pen.on) dl->AddCircle(c, 15.0f * s, kInk, 32, 2.0f * s);  // the pen is on: a ring of ink
  }
}

}  // namespace flashstep::ui
