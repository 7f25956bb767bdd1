#include "core/tiles.h"

#include <algorithm>

namespace flashstep {

SramBlocks sram_blocks(long long M, long long d) {
  const long long dd = std::max(d, 1LL), mm = std::max(M, 1LL);
  // The paper's Bc = ⌈M/4d⌉ fits Qᵢ, Kⱼ, Vⱼ and Oᵢ, B × d each, in M; Br ≤ d keeps Sᵢⱼ no larger.
  const long long bc = std::max(1LL, (mm + 4 * dd - 1) / (4 * dd));
  SramBlocks b;
  b.Bc = static_cast<int>(bc);
  b.Br = static_cast<int>(std::min(bc, dd));
  return b;
}

std::string tile_blocks(const TileShape& t) {
  std::string out(t.paper_sum);
  for (std::size_t at = out.find(" + "); at != std::string::npos; at = out.find(" + ", at + 2)) out.replace(at, 3, ", ");
  return out;
}

TileBudget tile_budget(const TileShape& t, int Br, int Bc, int d, int M) {
  TileBudget b;
  b.kv = static_cast<long long>(t.key_tiles) * Bc * d;
  b.qo = static_cast<long long>(t.query_tiles) * Br * d;
  b.s = static_cast<long long>(t.score_tiles) * Br * Bc;
  b.ml = static_cast<long long>(t.row_stats) * Br;
  b.paper = b.kv + b.qo;
  b.with_s = b.paper + b.s;
  b.M = M;
  return b;
}

}  // namespace flashstep
