#include "app/export/figure.h"

#include "app/ui/style.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace flashstep::ui {

namespace {

// The pixels within `r` (a square of side 2r + 1) of a drawn one: a separable maximum filter.
std::vector<unsigned char> dilated(const std::vector<unsigned char>& mask, int w, int h, int r) {
  std::vector<unsigned char> rows(mask.size(), 0), out(mask.size(), 0);
  for (int y = 0; y < h; ++y) {
    int last = -1 - r;  // the last drawn x seen
    for (int x = 0; x < w + r; ++x) {
      if (x < w && mask[static_cast<std::size_t>(y) * w + x]) last = x;
      const int t = x - r;  // the pixel whose window [t − r, t + r] ends at x
      if (t >= 0 && t < w && x - last <= 2 * r) rows[static_cast<std::size_t>(y) * w + t] = 1;
    }
  }
  for (int x = 0; x < w; ++x) {
    int last = -1 - r;
    for (int y = 0; y < h + r; ++y) {
      if (y < h && rows[static_cast<std::size_t>(y) * w + x]) last = y;
      const int t = y - r;
      if (t >= 0 && t < h && y - last <= 2 * r) out[static_cast<std::size_t>(t) * w + x] = 1;
    }
  }
  return out;
}

}  // namespace

Image slide_figure(const Image& img, const FigureOptions& o) {
  const int halo = std::max(o.halo_px, 1);
  Image out = cropped(img, content_rect(img, std::max(o.margin, o.transparent ? halo : 0)));
  if (!o.transparent || out.width <= 0) return out;
  const int w = out.width, h = out.height;
  std::vector<unsigned char> drawn(static_cast<std::size_t>(w) * h);
  for (std::size_t i = 0; i < drawn.size(); ++i) drawn[i] = out.rgba[i * 4 + 3] > 0;
  const std::vector<unsigned char> ring = dilated(drawn, w, h, halo);
  // Inside the ring every pixel is drawn over the halo colour, so it ends opaque; outside it the
  // slide shows through.
  for (std::size_t i = 0; i < ring.size(); ++i) {
    if (!ring[i]) continue;
    unsigned char* p = out.rgba.data() + i * 4;
    const float a = static_cast<float>(p[3]) / 255.0f;
    for (int k = 0; k < 3; ++k)
      p[k] = static_cast<unsigned char>(std::lround(static_cast<float>(p[k]) * a + static_cast<float>(o.halo[k]) * (1 - a)));
    p[3] = 255;
  }
  return out;
}

FigureOptions figure_options(Theme theme, float scale, bool transparent) {
  FigureOptions o;
  o.margin = static_cast<int>(8 * scale + 0.5f);
  o.transparent = transparent;
  o.halo_px = std::max(1, static_cast<int>(std::lround(2.0f * scale)));
  const ImVec4 bg = clear_colour(theme);
  o.halo[0] = static_cast<unsigned char>(std::lround(bg.x * 255));
  o.halo[1] = static_cast<unsigned char>(std::lround(bg.y * 255));
  o.halo[2] = static_cast<unsigned char>(std::lround(bg.z * 255));
  return o;
}

}  // namespace flashstep::ui
