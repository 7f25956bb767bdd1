// The matrix view draws whatever buffers a recording declares: a made-up set with the axis roles
// of the backward pass (dO and dQ of query rows, dK of key rows, dS of queries × keys, D per row)
// is laid out by its places and its cells' blocks are named by the roles of its axes, with no
// list of names in the view.
#include "app/ui/views/matrix_layout.h"
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
  // D is a step column beside m and l (empty: this recording has none).
  const std::vector<StepColumn> cols = step_columns(rec);
  REQUIRE(cols.size() == 3);
  CHECK(cols[0].name == "m");
  CHECK(cols[0].buffer == -1);
  CHECK(cols[2].name == "D");
  CHECK(cols[2].buffer == 4);
}
