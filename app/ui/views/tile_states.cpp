#include "app/ui/views/tile_states.h"

#include "core/algorithms.h"

#include <algorithm>
#include <string>

namespace flashstep::ui {

bool step_touches(const Step& step, int buffer) {
  for (const auto* list : {&step.reads, &step.writes, &step.held})
    for (const Region& g : *list)
      if (g.buffer == buffer) return true;
  return false;
}

TileStates tile_states(const Recording& rec, int playhead, int buffer) {
  TileStates out;
  if (!info(rec.algorithm).takes_blocks || rec.Br <= 0 || rec.Bc <= 0 || rec.n <= 0) return out;
  out.Tr = (rec.n + rec.Br - 1) / rec.Br;
  out.Tc = (rec.n + rec.Bc - 1) / rec.Bc;
  out.state.assign(static_cast<std::size_t>(out.Tr * out.Tc), TileState::not_yet);
  const Mask mask = mask_of(rec);
  for (int i = 0; i < out.Tr; ++i)
    for (int j = 0; j < out.Tc; ++j) {
      // Masked when none of its scores is visible.
      const int r0 = i * rec.Br, c0 = j * rec.Bc;
      if (mask.tile(r0, std::min(rec.Br, rec.n - r0), c0, std::min(rec.Bc, rec.n - c0)) == TileKind::empty)
        out.state[static_cast<std::size_t>(i * out.Tc + j)] = TileState::masked;
    }
  out.row_block.assign(static_cast<std::size_t>(out.Tr), TileState::not_yet);
  const int last = std::min(playhead, rec.step_count() - 1);
  for (int k = 0; k <= last; ++k) {
    const Step& st = rec.steps[static_cast<std::size_t>(k)];
    if (buffer >= 0 && !step_touches(st, buffer)) continue;
    if (st.tile_i >= 0 && st.tile_i < out.Tr) {
      for (TileState& b : out.row_block)
        if (b == TileState::live) b = TileState::discarded;
      out.row_block[static_cast<std::size_t>(st.tile_i)] = k == playhead ? TileState::live : TileState::discarded;
    }
    if (st.tile_i < 0 || st.tile_j < 0 || st.tile_i >= out.Tr || st.tile_j >= out.Tc) continue;
    TileState& t = out.state[static_cast<std::size_t>(st.tile_i * out.Tc + st.tile_j)];
    if (t != TileState::masked) t = k == playhead ? TileState::live : TileState::discarded;
  }
  return out;
}

bool register_live(const Recording& rec, const Step* step, int buffer, int r, int c) {
  if (!step) return false;
  for (const Region& g : step->writes)
    if (g.buffer == buffer && r >= g.r0 && r < g.r1 && c >= g.c0 && c < g.c1) return true;
  // S and P hold one score at a time; the names are the papers' matrices.
  const std::string& name = rec.buffers[static_cast<std::size_t>(buffer)].name;
  return name != "S" && name != "P" && step->row == r;
}

bool register_gone(const Recording& rec, const Step* step, const State& st, int buffer, int r, int c) {
  const int cols = rec.buffers[static_cast<std::size_t>(buffer)].cols;
  return st.is_defined(buffer, r, c, cols) && !register_live(rec, step, buffer, r, c);
}

}  // namespace flashstep::ui
