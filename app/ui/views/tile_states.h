// Where each S / P̃ tile of a tiled attention recording is at a step: the picture of "tile by
// tile on chip". Only the tile of the step is on chip; a tile computed at an earlier step has
// left SRAM (its values were folded into O, m and l and then overwritten); a tile wholly above
// the mask (no visible score) is never computed; the rest come later. The matrix view draws exactly
// these states. No ImGui: tests/app/test_tile_states.cpp checks them.
#pragma once

#include "core/mask.h"
#include "core/recording.h"

#include <cstdint>
#include <vector>

namespace flashstep::ui {

enum class TileState : std::uint8_t { not_yet, live, discarded, masked };

struct TileStates {
  int Tr = 0, Tc = 0;  // 0: the recording does not keep S and P̃ tile by tile
  std::vector<TileState> state;  // row-major Tr × Tc
  // The same for a block of Br query rows of an on-chip per-row buffer (FlashAttention-2's
  // m, l and O_acc): live while the step works on Q block i, discarded once the loop has moved
  // on to another block, not_yet before.
  std::vector<TileState> row_block;  // Tr
  TileState at(int i, int j) const { return state[static_cast<std::size_t>(i * Tc + j)]; }
};

// The tiles at `playhead` (-1: before the first step). Empty unless the recording's algorithm
// takes blocks (its table row) and the recording has its tile sizes. With `buffer`, the tiles
// of that buffer: only the steps that read or write it count, so that a backward's tile step
// leaves the forward's P̃ and m, l as they were (gone), not on chip.
TileStates tile_states(const Recording& rec, int playhead, int buffer = -1);

// Whether the step reads, writes or holds (Step::held) any cell of the buffer.
bool step_touches(const Step& step, int buffer);

// Registers (Space::reg) hold one query row at a time: attention online's scores s, its o, m
// and l, attention materialized's m and l. Live at a step: the cells the step writes, and for
// a per-row buffer (not the N×N scores) every cell of the step's row.
bool register_live(const Recording& rec, const Step* step, int buffer, int r, int c);
// Drawn as gone (the legend's "discarded"): a register cell that holds a value in `st` (the
// state after `step`) and is not live at the step. A cell nothing has written is "not computed
// yet": the standard backward's m and l before its softmax kernel belong to no earlier row.
bool register_gone(const Recording& rec, const Step* step, const State& st, int buffer, int r, int c);

// The mask the recording ran under (core/mask.h).
inline const Mask& mask_of(const Recording& rec) { return rec.mask; }
// Whether score (query, key) is masked.
inline bool masked_score(const Recording& rec, int query, int key) { return !mask_of(rec).visible(query, key); }

}  // namespace flashstep::ui
