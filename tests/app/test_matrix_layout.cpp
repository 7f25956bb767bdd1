// The matrix view draws whatever buffers a recording declares: a made-up set with the axis roles
// of the backward pass (dO and dQ of query rows, dK of key rows, dS of queries × keys, D per row)
// is laid out by its places and its cells' blocks are named by the roles of its axes, with no
// list of names in the view.
#include "app/ui/views/close_up.h"
#include "app/ui/views/matrix_layout.h"
#include "app/ui/views/view_logic.h"
#include "core/recorder.h"
#include "core/text.h"

#include <doctest/doctest.h>

using namespace flashstep;
using namespace flashstep::ui;

namespace {

// N = 6 queries and keys, d = 2, tiles of Br = 2 query rows by Bc = 3 keys.
Recording made_up() {
  Recording rec;
  rec.algorithm = Algorithm::attn_tiled_v2;
  rec.n = 6, rec.d = 2, rec.Br = 2, rec.Bc = 3, rec.Tr = 3, rec.Tc = 2;
  rec.buffers.push_back(BufferInfo{"dO", 6, 2, Space::hbm}.axes(Axis::query, Axis::feature).at(Place::left, 0));
  rec.buffers.push_back(BufferInfo{"dS", 6, 6, Space::sram}.axes(Axis::query, Axis::key).at(Place::centre, 2));
  rec.buffers.push_back(BufferInfo{"dK", 6, 2, Space::sram}.axes(Axis::key, Axis::feature).at(Place::above, 1, "dS"));
  rec.buffers.push_back(BufferInfo{"dQ", 6, 2, Space::hbm}.axes(Axis::query, Axis::feature).at(Place::right, 3));
  rec.buffers.push_back(BufferInfo{"D", 6, 1, Space::hbm}.axes(Axis::query, Axis::none).at(Place::stats, 4).in_steps());
  rec.buffers.push_back(BufferInfo{"scratch", 6, 6, Space::reg});  // not placed: not drawn
  return rec;
}

}  // namespace

TEST_CASE("a made-up buffer set is laid out by its declared places") {
  const Recording rec = made_up();
  const PlacedBuffers placed = placed_buffers(rec, [](int) { return true; });
  REQUIRE(placed.buffers == std::vector<int>{0, 1, 2, 3, 4});
  CHECK(placed.items[2].host == 1);  // dK stacks on dS, found by name
  ItemsLayoutIn in;
  in.N = rec.n;
  in.items = placed.items;
  in.avail_w = 900;
  in.avail_h = 500;
  const ItemsLayout L = layout_items(in);
  const Rect &dO = L.rects[0], &dS = L.rects[1], &dK = L.rects[2], &dQ = L.rects[3], &D = L.rects[4];
  for (const Rect* r : {&dO, &dS, &dK, &dQ, &D}) CHECK(r->shown);
  // The main band: one row per query, left to right dO, dS, dQ, D, all of N rows.
  CHECK(dO.y == dS.y);
  CHECK(dS.y == dQ.y);
  CHECK(dQ.y == D.y);
  CHECK(dO.x + dO.w < dS.x);
  CHECK(dS.x + dS.w < dQ.x);
  CHECK(dQ.x + dQ.w < D.x);
  for (const Rect* r : {&dO, &dS, &dQ}) CHECK(r->h == doctest::Approx(6 * L.cell));
  CHECK(dO.w == doctest::Approx(2 * L.cell));
  CHECK(dS.w == doctest::Approx(6 * L.cell));
  // dK on its side over dS: its key rows along dS's key columns, d cells high, above dS.
  CHECK(dK.x == dS.x);
  CHECK(dK.w == doctest::Approx(dS.w));
  CHECK(dK.h == doctest::Approx(2 * L.cell));
  CHECK(dK.y + dK.h < dS.y);
  CHECK(display_row_axis(rec.buffers[2]) == Axis::feature);
  CHECK(display_col_axis(rec.buffers[2]) == Axis::key);
  CHECK(display_row_axis(rec.buffers[3]) == Axis::query);
  CHECK(L.width <= in.avail_w + 0.5f);
  CHECK(L.height <= in.avail_h + 0.5f);
}

TEST_CASE("a made-up buffer's blocks and tiles are named by its axes' roles: dK_j, not dK_i") {
  const Recording rec = made_up();
  // Cell (4, 1): query or key row 5, in query block i = 4/2 + 1 = 3, key block j = 4/3 + 1 = 2.
  CHECK(block_name(rec, rec.buffers[2], 4, 1) == "block K/V j=2");
  CHECK(block_name(rec, rec.buffers[3], 4, 1) == "block i=3");
  CHECK(block_name(rec, rec.buffers[1], 4, 1) == "tile (i=3, j=1)");
  // A step of tile (i=3, j=2) names the regions it touches by the same roles.
  Step st;
  st.tile_i = 2, st.tile_j = 1;
  CHECK(region_name(rec, st, Region{2, 3, 0, 6, 2}) == "dK" + sub(2));
  CHECK(region_name(rec, st, Region{3, 4, 0, 6, 2}) == "dQ" + sub(3));
  CHECK(region_name(rec, st, Region{1, 4, 3, 6, 6}) == "dS" + sub(3) + sub(2));
  // A region that is no block (buffer, r0, c0, r1, c1): its 1-based ranges, one index where it spans one.
  const Step none;
  CHECK(region_name(rec, none, Region{1, 0, 4, 4, 5}) == "dS[1..4, 5]");
  CHECK(region_name(rec, none, Region{1, 2, 0, 3, 3}) == "dS[3, 1..3]");
  CHECK(region_name(rec, none, Region{1, 0, 1, 2, 5}) == "dS[1..2, 2..5]");
  // D is a step column beside m and l (empty: this recording has none).
  const std::vector<StepColumn> cols = step_columns(rec);
  REQUIRE(cols.size() == 3);
  CHECK(cols[0].name == "m");
  CHECK(cols[0].buffer == -1);
  CHECK(cols[2].name == "D");
  CHECK(cols[2].buffer == 4);
}

namespace {

// The backward pass's buffers as its tiled recording would declare them, with no Q in it: N = 6,
// d = 2, tiles of Br = 2 query rows by Bc = 3 keys. S is declared but never written; dO is
// written (read in) but sits on the inputs' side; dV sums over the query blocks on chip.
Recording made_up_backward() {
  Recording rec = made_up();  // dO 0, dS 1, dK 2, dQ 3, D 4, scratch 5
  rec.buffers.push_back(BufferInfo{"S", 6, 6, Space::sram}.axes(Axis::query, Axis::key).at(Place::centre, 0));  // 6
  rec.buffers.push_back(BufferInfo{"dP", 6, 6, Space::sram}.axes(Axis::query, Axis::key).at(Place::centre, 1));  // 7
  rec.buffers.push_back(BufferInfo{"dV", 6, 2, Space::sram}
                            .axes(Axis::key, Axis::feature)
                            .at(Place::above, 0, "dP")
                            .partial_sum("not yet written back"));  // 8
  Step d_block;  // D of Q block i = 1, and dO read in
  d_block.tile_i = 0;
  d_block.writes = {Region{4, 0, 0, 2, 1}, Region{0, 0, 0, 2, 2}};
  Step tile;  // tile (i = 3, j = 2): queries 5–6, keys 4–6
  tile.tile_i = 2, tile.tile_j = 1;
  tile.writes = {Region{7, 4, 3, 6, 6}, Region{1, 4, 3, 6, 6}, Region{3, 4, 0, 6, 2}, Region{2, 3, 0, 6, 2},
                 Region{8, 3, 0, 6, 2}, Region{5, 0, 0, 6, 6}};
  Recorder steps(rec, true);  // committing a step marks the buffers it writes
  steps.commit(d_block);
  steps.commit(tile);
  return rec;
}

}  // namespace

TEST_CASE("the close-up of a made-up backward step: the written tiles, query rows and key rows, named by role") {
  const Recording rec = made_up_backward();
  // Committed steps mark what they write: dS, dQ, D and the rest; never S (declared, not written).
  CHECK(rec.buffers[1].written);
  CHECK(rec.buffers[4].written);
  CHECK_FALSE(rec.buffers[6].written);
  const CloseUp c = close_up(rec, &rec.steps[1]);
  REQUIRE(c.shown);
  CHECK(c.r0 == 4);
  CHECK(c.r1 == 6);
  CHECK(c.k0 == 3);
  CHECK(c.k1 == 6);
  CHECK(c.heading == "tile (i = 3, j = 2): queries 5–6 · keys 4–6");
  // The query × key tiles written (dP before dS by their order; S never written: not shown),
  // then the query rows on the band's right and its statistics (dQ, D; dO is an input, on the
  // left), then the key rows (dK, dV), each named by its rows' role.
  struct Want {
    int buffer;
    std::string title;
    int r0, r1, c0, c1;
    bool key_rows;
  };
  const std::vector<Want> want = {
      {7, "dP_{32}", 4, 6, 3, 6, false}, {1, "dS_{32}", 4, 6, 3, 6, false}, {3, "dQ_{3}", 4, 6, 0, 2, false},
      {4, "D_{3}", 4, 6, 0, 1, false},   {8, "dV_{2}^{(i)}", 3, 6, 0, 2, true}, {2, "dK_{2}", 3, 6, 0, 2, true}};
  REQUIRE(c.items.size() == want.size());
  for (std::size_t k = 0; k < want.size(); ++k) {
    CAPTURE(k);
    const CloseUpItem& it = c.items[k];
    CHECK(it.buffer == want[k].buffer);
    CHECK(it.title == want[k].title);
    CHECK(it.r0 == want[k].r0);
    CHECK(it.r1 == want[k].r1);
    CHECK(it.c0 == want[k].c0);
    CHECK(it.c1 == want[k].c1);
    CHECK(it.key_rows == want[k].key_rows);
  }
  // D's step has a Q block and no key block: its query rows only.
  const CloseUp d = close_up(rec, &rec.steps[0]);
  REQUIRE(d.shown);
  CHECK(d.heading == "Q block i = 1: queries 1–2");
  REQUIRE(d.items.size() == 2);
  CHECK(d.items[0].title == "dQ_{1}");
  CHECK(d.items[1].title == "D_{1}");
  // A K/V block's own step (dKⱼ and dVⱼ written back after the inner loop): its key rows only.
  Recording kv = rec;
  Step write_back;
  write_back.tile_j = 1;
  write_back.writes = {Region{2, 3, 0, 6, 2}, Region{8, 3, 0, 6, 2}};
  kv.steps.push_back(write_back);
  const CloseUp w = close_up(kv, &kv.steps.back());
  REQUIRE(w.shown);
  CHECK(w.heading == "K/V block j = 2: keys 4–6");
  REQUIRE(w.items.size() == 2);
  CHECK(w.items[0].title == "dV_{2}^{(i)}");
  CHECK(w.items[1].title == "dK_{2}");
  CHECK(w.items[1].key_rows);
  CHECK(w.items[1].r0 == 3);
  CHECK(w.items[1].r1 == 6);
  // A step outside the tiles that writes key rows only (the standard backward's row of dK): them.
  Step dk_row;
  dk_row.writes = {Region{2, 2, 0, 3, 2}};
  kv.steps.push_back(dk_row);
  const CloseUp k = close_up(kv, &kv.steps.back());
  REQUIRE(k.shown);
  CHECK(k.heading == "key 3");
  REQUIRE(k.items.size() == 2);
  CHECK(k.items[1].title == "dK");
  CHECK(k.items[1].r0 == 2);
  CHECK(k.items[1].r1 == 3);
  // The largest close-up, whose size the view keeps at every step: the last tile's subscripts.
  const CloseUp big = close_up_largest(rec);
  REQUIRE(big.items.size() == want.size());
  CHECK(big.items[0].title == "dP_{32}");
  CHECK(big.items[5].title == "dK_{2}");
  CHECK(big.items[5].r1 - big.items[5].r0 == 3);
}

TEST_CASE("the close-up of a step outside tiles that works on a query row shows no key rows, and keeps room for one") {
  // The same buffers without tiles, as the standard backward declares them: its steps write a
  // query row (S, dP, dS, dQ, D) or a key row (dV, dK), never both.
  Recording rec = made_up_backward();
  rec.Br = rec.Bc = 0;
  rec.steps.clear();
  Step row;  // query row 3 of dS and D
  row.row = 2;
  row.writes = {Region{1, 2, 0, 3, 6}, Region{4, 2, 0, 3, 1}};
  rec.steps.push_back(row);
  const CloseUp c = close_up(rec, &rec.steps[0]);
  REQUIRE(c.shown);
  CHECK(c.heading == "query 3 · keys 1–6");
  REQUIRE_FALSE(c.items.empty());
  for (const CloseUpItem& it : c.items) {
    CAPTURE(it.title);
    CHECK_FALSE(it.key_rows);
    CHECK(it.r0 == 2);
    CHECK(it.r1 == 3);
  }
  // The largest close-up, whose height the view keeps at every step: one query row, and one key
  // row of dK and dV (not all six: that room would be taken from the matrices above).
  const CloseUp big = close_up_largest(rec);
  int key_items = 0;
  for (const CloseUpItem& it : big.items) {
    CAPTURE(it.title);
    CHECK(it.r1 - it.r0 == 1);
    key_items += it.key_rows ? 1 : 0;
  }
  CHECK(key_items == 2);
}

TEST_CASE("a made-up buffer's rows and partial sums are named by its declarations, not its name") {
  const Recording rec = made_up_backward();
  // In tile (i = 3, j = 2): dVⱼ summed over the Q blocks so far, after block i = 3.
  CHECK(region_name(rec, rec.steps[1], Region{8, 3, 0, 6, 2}) == "dV" + sub(2) + "^{(3)} (not yet written back)");
  // Outside tiles: a row of a one-letter matrix of features is a vector in lower case (qᵢ), a
  // longer name keeps its letters (dQᵢ, dKⱼ as the backward's pseudocode writes them); a row of
  // scores keeps its capital; one score is named by its two indices.
  const Step plain;
  CHECK(region_name(rec, plain, Region{3, 4, 0, 5, 2}) == "dQ" + sub(5));
  CHECK(region_name(rec, plain, Region{2, 1, 0, 2, 2}) == "dK" + sub(2));
  CHECK(region_name(rec, plain, Region{1, 4, 0, 5, 6}) == "dS" + sub(5));
  CHECK(region_name(rec, plain, Region{1, 4, 2, 5, 3}) == "dS_{5,3}");
  CHECK(region_name(rec, plain, Region{8, 1, 0, 2, 2}) == "dV" + sub(2) + "^{(i)} (accumulator)");
  // The lower case is for inputs (qᵢ, kⱼ, vⱼ as the pseudocode reads them); a row the steps
  // write keeps the capital the narration gives it (O₄ = O₄⁽⁸⁾ / l), not o₄.
  Recording one;
  one.n = 6, one.d = 2;
  one.buffers.push_back(BufferInfo{"Q", 6, 2, Space::hbm}.axes(Axis::query, Axis::feature).at(Place::left, 0));
  one.buffers.push_back(BufferInfo{"O", 6, 2, Space::hbm}.axes(Axis::query, Axis::feature).at(Place::right, 1));
  one.buffers[1].written = true;
  CHECK(region_name(one, plain, Region{0, 3, 0, 4, 2}) == "q" + sub(4));
  CHECK(region_name(one, plain, Region{1, 3, 0, 4, 2}) == "O" + sub(4));
}
