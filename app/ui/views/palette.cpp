// The colour map and the three themes. The map is viridis (perceptually uniform, readable
// with every common colour-vision deficiency and in greyscale); the highlight colours are from
// the Okabe–Ito set, which stays distinct for colour-blind students and on washed-out projectors.
#include "app/ui/views/view.h"
#include "app/ui/widgets.h"

#include <algorithm>
#include <cmath>

namespace flashstep::ui {

namespace {

// Viridis sampled at 9 evenly spaced points; linear interpolation between them is within a
// few units of the full 256-entry table.
constexpr unsigned char kViridis[9][3] = {
    {68, 1, 84},    {71, 44, 122}, {59, 81, 139},  {44, 113, 142}, {33, 144, 141},
    {39, 173, 129}, {92, 200, 99}, {170, 220, 50}, {253, 231, 37},
};

}  // namespace

ImU32 heat(float t) {
  if (!(t >= 0.0f)) t = 0.0f;  // also catches nan
  if (t > 1.0f) t = 1.0f;
  const float x = t * 8.0f;
  const int i = std::min(static_cast<int>(x), 7);
  const float f = x - static_cast<float>(i);
  auto ch = [&](int c) {
    return static_cast<int>(std::lround(kViridis[i][c] + f * (kViridis[i + 1][c] - kViridis[i][c])));
  };
  return IM_COL32(ch(0), ch(1), ch(2), 255);
}

ImU32 heat_signed(float t) {
  if (!(t >= 0.0f)) t = 0.0f;
  if (t > 1.0f) t = 1.0f;
  // Dark blue → pale grey → dark orange: lightness says |v|, hue says the sign.
  static const float kStops[5][3] = {
      {45, 0, 75}, {128, 115, 172}, {225, 225, 228}, {224, 130, 20}, {127, 59, 8}};
  const float x = t * 4.0f;
  const int i = std::min(static_cast<int>(x), 3);
  const float f = x - static_cast<float>(i);
  auto ch = [&](int c) { return static_cast<int>(std::lround(kStops[i][c] + f * (kStops[i + 1][c] - kStops[i][c]))); };
  return IM_COL32(ch(0), ch(1), ch(2), 255);
}

Palette dark_palette() { return Palette{}; }

Palette light_palette() {
  Palette p;
  p.text = IM_COL32(20, 20, 28, 255);
  p.text_dim = IM_COL32(95, 95, 110, 255);
  p.background = IM_COL32(250, 250, 252, 255);
  p.cell = IM_COL32(222, 222, 230, 255);
  p.grid = IM_COL32(120, 120, 135, 255);
  p.read = IM_COL32(0, 114, 178, 255);  // blue: sky blue is too pale on white
  p.write = IM_COL32(213, 120, 0, 255);
  p.current = IM_COL32(204, 121, 167, 255);  // reddish purple: yellow vanishes on white
  p.nonfinite = IM_COL32(200, 60, 0, 255);
  p.hbm = IM_COL32(0, 114, 178, 255);
  p.sram = IM_COL32(0, 140, 100, 255);
  p.bar_exp = IM_COL32(204, 121, 167, 255);
  p.bar_y = IM_COL32(0, 140, 100, 255);
  p.pointer = IM_COL32(190, 0, 150, 255);  // deeper than `current`'s reddish purple
  p.light = true;
  return p;
}

// Projectors wash out dark greys and thin lines: everything brighter and more saturated.
Palette projector_palette() {
  Palette p;
  p.text = IM_COL32(255, 255, 255, 255);
  p.text_dim = IM_COL32(200, 200, 210, 255);
  p.background = IM_COL32(0, 0, 0, 255);
  p.cell = IM_COL32(70, 70, 85, 255);
  p.grid = IM_COL32(160, 160, 175, 255);
  p.read = IM_COL32(86, 180, 233, 255);
  p.write = IM_COL32(255, 170, 0, 255);
  p.current = IM_COL32(255, 240, 60, 255);
  p.nonfinite = IM_COL32(255, 80, 30, 255);
  p.pointer = IM_COL32(255, 60, 220, 255);
  return p;
}

Palette palette_for(Theme theme) {
  switch (theme) {
    case Theme::light: return light_palette();
    case Theme::projector: return projector_palette();
    default: return dark_palette();
  }
}

const Palette& palette_of(Theme theme) {
  static const Palette dark = dark_palette(), light = light_palette(), projector = projector_palette();
  switch (theme) {
    case Theme::light: return light;
    case Theme::projector: return projector;
    default: return dark;
  }
}

}  // namespace flashstep::ui
