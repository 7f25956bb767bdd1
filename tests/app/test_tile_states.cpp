// The tiled lessons' S and P̃ by step: only the step's tile is on chip, the tiles computed
// before it are discarded, tiles above the causal diagonal are masked from the start, the rest
// are still to come. The expected states come from the papers' loop orders written out here
// (FlashAttention-1: K/V blocks outside, Q blocks inside; FlashAttention-2 the other way round,
// with one closing step per Q block), not from the recording.
#include "app/ui/views/tile_states.h"
#include "tests/rows.h"

#include "core/algorithms.h"
#include "core/engine.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

using namespace flashstep;
using namespace flashstep::ui;

namespace {

struct Shape {
  int N, Br, Bc;
  bool causal;
};

// The (i, j) of every step, in the algorithm's loop order; j = −1 for FlashAttention-2's
// closing step of a Q block.
std::vector<std::pair<int, int>> loop_order(Algorithm a, const Shape& s) {
  const int Tr = (s.N + s.Br - 1) / s.Br, Tc = (s.N + s.Bc - 1) / s.Bc;
  auto masked = [&](int i, int j) { return s.causal && j * s.Bc > std::min(s.N, (i + 1) * s.Br) - 1; };
  std::vector<std::pair<int, int>> steps;
  if (a == Algorithm::attn_tiled) {
    for (int j = 0; j < Tc; ++j)
      for (int i = 0; i < Tr; ++i)
        if (!masked(i, j)) steps.push_back({i, j});
  } else {
    for (int i = 0; i < Tr; ++i) {
      for (int j = 0; j < Tc && !masked(i, j); ++j) steps.push_back({i, j});
      steps.push_back({i, -1});
    }
  }
  return steps;
}

}  // namespace

TEST_CASE("tiled lessons: one live tile, the earlier ones discarded, masked ones masked, the rest to come") {
  const Shape shapes[] = {{8, 2, 2, false}, {8, 2, 2, true}, {10, 4, 3, false}, {10, 4, 3, true}, {9, 3, 2, true}};
  for (Algorithm a : {Algorithm::attn_tiled, Algorithm::attn_tiled_v2}) {
    for (const Shape& sh : shapes) {
      Scenario s;
      s.algorithm = a;
      s.n = sh.N;
      s.d = 4;
      s.block_rows = sh.Br;
      s.block_cols = sh.Bc;
      s.causal = sh.causal;
      const Recording rec = record(s);
      const auto order = loop_order(a, sh);
      const int Tr = (sh.N + sh.Br - 1) / sh.Br, Tc = (sh.N + sh.Bc - 1) / sh.Bc;
      auto masked = [&](int i, int j) { return sh.causal && j * sh.Bc > std::min(sh.N, (i + 1) * sh.Br) - 1; };
      REQUIRE(rec.step_count() == static_cast<int>(order.size()));
      for (int k = -1; k < rec.step_count(); ++k) {
        CAPTURE(algorithm_id(a));
        CAPTURE(sh.N);
        CAPTURE(sh.Br);
        CAPTURE(sh.Bc);
        CAPTURE(sh.causal);
        CAPTURE(k);
        const TileStates t = tile_states(rec, k);
        REQUIRE(t.Tr == Tr);
        REQUIRE(t.Tc == Tc);
        std::set<std::pair<int, int>> before;
        for (int q = 0; q < k; ++q)
          if (order[static_cast<std::size_t>(q)].second >= 0) before.insert(order[static_cast<std::size_t>(q)]);
        const std::pair<int, int> now = k >= 0 ? order[static_cast<std::size_t>(k)] : std::pair<int, int>{-1, -1};
        int live = 0;
        for (int i = 0; i < Tr; ++i)
          for (int j = 0; j < Tc; ++j) {
            TileState want = TileState::not_yet;
            if (masked(i, j)) want = TileState::masked;
            else if (now == std::pair<int, int>{i, j}) want = TileState::live;
            else if (before.count({i, j})) want = TileState::discarded;
            CHECK(static_cast<int>(t.at(i, j)) == static_cast<int>(want));
            live += t.at(i, j) == TileState::live;
          }
        CHECK(live == (now.second >= 0 ? 1 : 0));
        // Row blocks (FA-2's on-chip m, l, O_acc): the step's Q block is live, the blocks
        // worked on before it are gone, the rest to come.
        REQUIRE(t.row_block.size() == static_cast<std::size_t>(Tr));
        for (int i = 0; i < Tr; ++i) {
          bool earlier = false;
          for (int q = 0; q < k; ++q) earlier |= order[static_cast<std::size_t>(q)].first == i;
          const TileState want = now.first == i ? TileState::live : earlier ? TileState::discarded : TileState::not_yet;
          CHECK(static_cast<int>(t.row_block[static_cast<std::size_t>(i)]) == static_cast<int>(want));
        }
      }
    }
  }
}

TEST_CASE("tiled lessons: the views of the other attention algorithms have no tiles to discard") {
  for (Algorithm a : {Algorithm::attn_naive, Algorithm::attn_online}) {
    Scenario s;
    s.algorithm = a;
    const Recording rec = record(s);
    CHECK(tile_states(rec, rec.step_count() - 1).Tr == 0);
  }
}

TEST_CASE("registers: attention online keeps one score and one row's o, m and l at a time") {
  Scenario s;
  s.algorithm = Algorithm::attn_online;
  s.n = 5;
  s.d = 3;
  const Recording rec = record(s);
  const int bS = rec.find_buffer("S"), bm = rec.find_buffer("m"), bacc = rec.find_buffer("O_acc");
  REQUIRE(bS >= 0);
  REQUIRE(bm >= 0);
  REQUIRE(bacc >= 0);
  int keys = 0;
  for (const Step& st : rec.steps) {
    if (st.line != 4 || st.row < 0) continue;  // the key steps (pseudocode lines 4-7), "S₂₄"
    ++keys;
    // The score of this (row, key) only: find it among the step's writes.
    int live_scores = 0, live_m = 0;
    for (int r = 0; r < rec.n; ++r) {
      for (int c = 0; c < rec.n; ++c) live_scores += register_live(rec, &st, bS, r, c);
      live_m += register_live(rec, &st, bm, r, 0);
      for (int c = 0; c < rec.d; ++c) CHECK(register_live(rec, &st, bacc, r, c) == (r == st.row));
    }
    CHECK(live_scores == 1);
    CHECK(live_m == 1);
    CHECK(register_live(rec, &st, bm, st.row, 0));
  }
  CHECK(keys == rec.n * rec.n);
  CHECK_FALSE(register_live(rec, nullptr, bm, 0, 0));  // before the first step nothing is live
}

TEST_CASE("registers: a cell drawn as discarded held a value, for every algorithm that has registers") {
  // The legend's "discarded" is a value of an earlier row whose register was reused. The
  // standard backward drew its m and l as discarded from step 1, before its softmax kernel had
  // computed any. What a cell held is read here from the steps' write regions and the initial
  // state, not from the replayed state the view asks.
  int checked = 0, gone_seen = 0;
  for (const AlgorithmInfo& row : algorithm_table()) {
    CAPTURE(row.id);
    const Recording rec = record(rows::small_run(row.algorithm));
    for (int b = 0; b < static_cast<int>(rec.buffers.size()); ++b) {
      const BufferInfo& buf = rec.buffers[static_cast<std::size_t>(b)];
      if (buf.space != Space::reg) continue;
      CAPTURE(buf.name);
      std::vector<bool> held(static_cast<std::size_t>(buf.rows * buf.cols));
      for (std::size_t i = 0; i < held.size(); ++i) held[i] = rec.initial.defined[static_cast<std::size_t>(b)][i] != 0;
      for (int k = 0; k < rec.step_count(); ++k) {
        const Step& st = rec.steps[static_cast<std::size_t>(k)];
        for (const Region& g : st.writes)
          if (g.buffer == b)
            for (int r = g.r0; r < g.r1; ++r)
              for (int c = g.c0; c < g.c1; ++c) held[static_cast<std::size_t>(r * buf.cols + c)] = true;
        const State state = replay(rec, k);
        for (int r = 0; r < buf.rows; ++r)
          for (int c = 0; c < buf.cols; ++c) {
            const bool gone = register_gone(rec, &st, state, b, r, c);
            if (gone) {
              ++gone_seen;
              CHECK(held[static_cast<std::size_t>(r * buf.cols + c)]);
            }
            // A cell of the step's own row is never drawn gone.
            if (r == st.row && buf.name != "S" && buf.name != "P") CHECK_FALSE(gone);
            ++checked;
          }
      }
    }
  }
  CHECK(checked > 0);
  CHECK(gone_seen > 0);  // the earlier rows of attention online and the standard backward

  // The standard backward: no m or l drawn discarded before its softmax kernel writes them.
  Scenario s;
  s.algorithm = Algorithm::attn_backward;
  s.n = 6;
  s.d = 3;
  const Recording rec = record(s);
  const int bm = rec.find_buffer("m");
  REQUIRE(bm >= 0);
  REQUIRE(rec.buffers[static_cast<std::size_t>(bm)].space == Space::reg);
  int first_m = -1;
  for (int k = 0; k < rec.step_count() && first_m < 0; ++k)
    for (const Region& g : rec.steps[static_cast<std::size_t>(k)].writes)
      if (g.buffer == bm) first_m = k;
  REQUIRE(first_m > 0);
  for (int k = 0; k < first_m; ++k) {
    const State state = replay(rec, k);
    for (int r = 0; r < rec.n; ++r) CHECK_FALSE(register_gone(rec, &rec.steps[static_cast<std::size_t>(k)], state, bm, r, 0));
  }
}

TEST_CASE("the views ask the mask the recording carries, not a flag beside it") {
  // N = 8 in tiles of 2 × 2, no mask: every tile is computed.
  Scenario s;
  s.algorithm = Algorithm::attn_tiled;
  s.n = 8;
  s.d = 4;
  s.block_rows = 2;
  s.block_cols = 2;
  Recording rec = record(resolve(s), RecordOptions{});
  CHECK(rec.mask.kind() == Mask::Kind::none);
  CHECK(rec.mask.n_queries() == 8);
  CHECK(rec.mask.n_keys() == 8);
  CHECK_FALSE(masked_score(rec, 0, 7));
  // The same recording told it ran under the causal mask: the views follow what it carries, so
  // query 1 no longer sees key 8, and tile (i = 1, j = 4), above the diagonal, is masked.
  rec.mask = Mask(Mask::Kind::causal, 8, 8);
  CHECK(&mask_of(rec) == &rec.mask);
  CHECK(masked_score(rec, 0, 7));
  CHECK_FALSE(masked_score(rec, 7, 0));
  CHECK(tile_states(rec, -1).at(0, 3) == TileState::masked);
  CHECK(tile_states(rec, -1).at(3, 0) == TileState::not_yet);
  // A causal run carries the causal mask of its N queries and keys.
  s.causal = true;
  const Recording causal = record(resolve(s), RecordOptions{false});
  CHECK(causal.mask.kind() == Mask::Kind::causal);
  CHECK(causal.mask.n_keys() == 8);
}

TEST_CASE("the FlashAttention-2 backward's tiles: its own matrices live tile by tile, the forward's P̃, m and l stay gone") {
  // The recording runs the forward, then the backward over the same tiles. Worked out here from
  // the loop orders: after the forward every tile of P̃ was computed and left the chip; at a
  // backward tile (i, j) only the backward's matrices (dP, dS) have the tile on chip, and the
  // forward's on-chip rows (m, l, O_acc) are all gone.
  Scenario s = rows::small_run(Algorithm::attn_flash_backward, 8, 4);
  s.block_rows = 4;
  s.block_cols = 4;
  const Recording rec = record(s);
  const int bP = rec.find_buffer("P"), bm = rec.find_buffer("m"), bdS = rec.find_buffer("dS");
  REQUIRE(bP >= 0);
  REQUIRE(bm >= 0);
  REQUIRE(bdS >= 0);
  int backward_tiles = 0;
  for (int k = 0; k < rec.step_count(); ++k) {
    const Step& st = rec.steps[static_cast<std::size_t>(k)];
    CAPTURE(st.label);
    const bool backward = std::any_of(st.writes.begin(), st.writes.end(), [&](const Region& g) { return g.buffer == bdS; });
    if (!backward) continue;
    if (st.tile_i < 0 || st.tile_j < 0) continue;
    ++backward_tiles;
    const TileStates p = tile_states(rec, k, bP), ds = tile_states(rec, k, bdS), m = tile_states(rec, k, bm);
    for (int i = 0; i < p.Tr; ++i)
      for (int j = 0; j < p.Tc; ++j) {
        CHECK(p.at(i, j) == TileState::discarded);
        CHECK((ds.at(i, j) != TileState::live || (i == st.tile_i && j == st.tile_j)));
      }
    CHECK(ds.at(st.tile_i, st.tile_j) == TileState::live);
    for (const TileState b : m.row_block) CHECK(b == TileState::discarded);
    CHECK_FALSE(step_touches(st, bP));
    CHECK(step_touches(st, bdS));
  }
  CHECK(backward_tiles == 4);
}
