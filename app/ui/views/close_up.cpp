#include "app/ui/views/close_up.h"

#include "core/text.h"

#include <algorithm>

namespace flashstep::ui {

namespace {

// "5–8", or "5" for one.
std::string span(int a, int b) { return b - a <= 1 ? std::to_string(a + 1) : strf("%d–%d", a + 1, b); }

}  // namespace

CloseUp close_up(const Recording& rec, const Step* step) {
  CloseUp c;
  const int N = rec.n;
  if (!step || N <= 0 || rec.find_buffer("Q") < 0) return c;
  const bool tiled = rec.Br > 0 && rec.Bc > 0;
  if (tiled && step->tile_i >= 0) {
    c.tile_i = step->tile_i;
    c.tile_j = step->tile_j;
    c.r0 = step->tile_i * rec.Br;
    c.r1 = std::min(c.r0 + rec.Br, N);
    if (step->tile_j >= 0) {
      c.k0 = step->tile_j * rec.Bc;
      c.k1 = std::min(c.k0 + rec.Bc, N);
    }
  } else if (step->row >= 0 && step->row < N) {
    c.r0 = step->row;
    c.r1 = step->row + 1;
    c.k0 = 0;
    c.k1 = N;
  } else {
    // The first region written in a buffer with one row per query (S, P, O, m, l).
    const Region* w = nullptr;
    for (const Region& g : step->writes) {
      const BufferInfo& b = rec.buffers[static_cast<std::size_t>(g.buffer)];
      if (b.rows == N && b.name != "K" && b.name != "V" && b.name != "Q") {
        w = &g;
        break;
      }
    }
    if (!w) return c;
    c.r0 = std::clamp(w->r0, 0, N - 1);
    c.r1 = std::clamp(std::min(w->r1, c.r0 + kCloseUpMaxRows), c.r0 + 1, N);
    c.k0 = 0;
    c.k1 = N;
  }
  c.shown = c.r1 > c.r0;
  if (!c.shown) return c;
  const std::string rows = (c.r1 - c.r0 == 1 ? "query " : "queries ") + span(c.r0, c.r1);
  const std::string keys = c.k1 > c.k0 ? (c.k1 - c.k0 == 1 ? " · key " : " · keys ") + span(c.k0, c.k1) : "";
  if (tiled && step->tile_i >= 0)
    c.heading = (step->tile_j >= 0 ? strf("tile (i = %d, j = %d): ", step->tile_i + 1, step->tile_j + 1)
                                   : strf("Q block i = %d: ", step->tile_i + 1)) +
                rows + keys;
  else
    c.heading = rows + keys;
  return c;
}

}  // namespace flashstep::ui
