// On-chip tiles: the SRAM rule that turns a budget of M elements into block sizes, and what one
// tile step of a tiled algorithm holds on chip (its row's `tile` in core/algorithms.h).
//
// One rule for every caller (resolve(), the Inputs panel, the memory panel, comparable()): the
// FlashAttention paper's Bc = ⌈M/4d⌉, Br = min(Bc, d), the same for its forward and backward.
#pragma once

#include <string>
#include <string_view>

namespace flashstep {

// Br and Bc the paper's rule gives for M elements of SRAM and head dimension d, before they are
// capped at N. In 64 bits, so M + 4d cannot overflow; M and d below 1 count as 1, so the result
// is at least 1 and at most max(M, 1).
struct SramBlocks {
  int Br = 0, Bc = 0;
};
SramBlocks sram_blocks(long long M, long long d);

// The buffers one tile step holds on chip, by shape, with the names the memory panel gives
// them. The paper's rule budgets the B × d tiles; the score tiles and the per-row statistics
// come on top.
struct TileShape {
  int key_tiles = 0;        // Bc × d each: Kⱼ, Vⱼ (the backward adds dKⱼ, dVⱼ)
  int query_tiles = 0;      // Br × d each: Qᵢ, Oᵢ (the backward adds dOᵢ, dQᵢ)
  int score_tiles = 0;      // Br × Bc each: Sᵢⱼ (the backward adds Pᵢⱼ, dPᵢⱼ, dSᵢⱼ)
  int row_stats = 0;        // Br each: m and l (the backward reads Lᵢ and Dᵢ)
  std::string_view key_names;    // "Kⱼ, Vⱼ"
  std::string_view query_names;  // "Qᵢ, Oᵢ"
  std::string_view score_names;  // "Sᵢⱼ"
  std::string_view paper_sum;    // "Qᵢ + Kⱼ + Vⱼ + Oᵢ": what the paper's rule fits in M
  // The most rows of Q the fast CPU kernel takes in a block (fast::kernel_blocks): it repacks Kⱼ
  // once a tile, so more rows share each packing.
  int kernel_rows = 128;
  bool tiled() const { return key_tiles + query_tiles > 0; }
  int d_wide() const { return key_tiles + query_tiles; }  // the B × d tiles: one row each needs d_wide()·d
};

// The d-wide blocks the paper's rule fits in M, as a list: "Qᵢ, Kⱼ, Vⱼ, Oᵢ".
std::string tile_blocks(const TileShape& t);

// FlashAttention's forward tile step: Kⱼ, Vⱼ (Bc × d), Qᵢ, Oᵢ (Br × d), Sᵢⱼ (Br × Bc), m and l.
// The fast forward kernels take up to 256 rows of Q in a block: FlashAttention-2 at N = 4096 ran
// 5% (d = 128) and 4% (d = 64) faster than with 128 on the Intel Xeon of BENCHMARKS.md.
inline const TileShape kForwardTile{2, 2, 1, 2, "Kⱼ, Vⱼ", "Qᵢ, Oᵢ", "Sᵢⱼ", "Qᵢ + Kⱼ + Vⱼ + Oᵢ", 256};

// FlashAttention-2's backward tile step (Dao 2023, Algorithm 2): Kⱼ, Vⱼ and the sums dKⱼ, dVⱼ
// (Bc × d); Qᵢ, dOᵢ, dQᵢ (Br × d; the paper also loads Oᵢ, which D = rowsum(dO ∘ O), computed
// first, has made unnecessary); Sᵢⱼ, Pᵢⱼ, dPᵢⱼ, dSᵢⱼ (Br × Bc); Lᵢ and Dᵢ. Same block sizes as the
// forward (the one rule above), so it needs about twice the forward's SRAM.
inline const TileShape kFlashBackwardTile{4, 3, 4, 2, "Kⱼ, Vⱼ, dKⱼ, dVⱼ", "Qᵢ, dOᵢ, dQᵢ", "Sᵢⱼ, Pᵢⱼ, dPᵢⱼ, dSᵢⱼ",
                                          "Kⱼ + Vⱼ + dKⱼ + dVⱼ + Qᵢ + dOᵢ + dQᵢ"};

// One tile step's elements against M.
struct TileBudget {
  long long kv = 0, qo = 0, s = 0, ml = 0;  // the key tiles, query tiles, score tiles, row stats
  long long paper = 0, with_s = 0;          // kv + qo, and with the score tiles
  int M = 0;
  bool fits_paper() const { return M > 0 && paper <= M; }
  bool fits_with_s() const { return M > 0 && with_s <= M; }
};
TileBudget tile_budget(const TileShape& t, int Br, int Bc, int d, int M);

}  // namespace flashstep
