#include "app/ui/views/close_up.h"

#include "core/text.h"

#include <algorithm>

namespace flashstep::ui {

namespace {

// "5–8", or "5" for one.
std::string span(int a, int b) { return b - a <= 1 ? std::to_string(a + 1) : strf("%d–%d", a + 1, b); }

bool has_query_rows(const Recording& rec) {
  return std::any_of(rec.buffers.begin(), rec.buffers.end(), [](const BufferInfo& b) { return b.row_axis == Axis::query; });
}

// Where an item goes: the query × key tiles, the query rows (right of the band, then its
// statistics), the key rows.
int group_of(const BufferInfo& b) {
  if (b.row_axis == Axis::key) return 3;
  if (b.col_axis == Axis::key) return 0;
  return b.place == Place::stats ? 2 : 1;
}

// The items of the close-up: each buffer's part the step is about, titled by its rows' role.
// Without `key_rows`, none of the key-row buffers: a step outside the tiles that works on a
// query row writes no key row (the standard backward writes dV and dK a key row a step).
void add_items(const Recording& rec, CloseUp& cu, bool key_rows = true) {
  const bool sep = cu.tile_i >= 9 || cu.tile_j >= 9;
  const bool tile = cu.tile_i >= 0 && cu.tile_j >= 0;
  const std::string ij = tile ? strf("_{%d%s%d}", cu.tile_i + 1, sep ? "," : "", cu.tile_j + 1) : "";
  const std::string i = cu.tile_i < 0 ? "" : strf("_{%d}", cu.tile_i + 1);
  const std::string j = cu.tile_j < 0 ? "" : strf("_{%d}", cu.tile_j + 1);
  const bool keys = cu.k1 > cu.k0;
  for (int bi : close_up_buffers(rec)) {
    const BufferInfo& b = rec.buffers[static_cast<std::size_t>(bi)];
    const int g = group_of(b);
    if (((g == 0 || g == 3) && !keys) || (g == 3 && !key_rows)) continue;
    CloseUpItem it;
    it.buffer = bi;
    it.key_rows = g == 3;
    const std::string& index = g == 0 ? ij : g == 3 ? j : i;
    it.title = b.shown() + (b.subscripted ? index : "");
    if (!b.partial.empty()) it.title += g == 3 ? "^{(i)}" : "^{(j)}";  // summed over the other role's blocks so far
    it.r0 = it.key_rows ? cu.k0 : cu.r0;
    it.r1 = std::min(it.key_rows ? cu.k1 : cu.r1, b.rows);
    it.c0 = g == 0 ? cu.k0 : 0;
    it.c1 = g == 0 ? std::min(cu.k1, b.cols) : b.cols;
    if (it.r1 > it.r0 && it.c1 > it.c0) cu.items.push_back(std::move(it));
  }
}

// A close-up of keys [k0, k1) alone: the key rows written there (no query rows).
CloseUp& keys_only(const Recording& rec, CloseUp& c, int k0, int k1, const std::string& prefix) {
  c.k0 = k0;
  c.k1 = k1;
  add_items(rec, c);
  c.shown = c.k1 > c.k0 && !c.items.empty();
  c.heading = prefix + (c.k1 - c.k0 == 1 ? "key " : "keys ") + span(c.k0, c.k1);
  return c;
}

}  // namespace

std::vector<int> close_up_buffers(const Recording& rec) {
  std::vector<int> out;
  for (std::size_t b = 0; b < rec.buffers.size(); ++b) {
    const BufferInfo& info = rec.buffers[b];
    const bool rows = info.row_axis == Axis::query || info.row_axis == Axis::key;
    // What the steps write, and an input that stands beside what they write (dO beside O, the
    // backward's first operand, read with O for D = rowsum(dO ∘ O) and in every tile).
    const bool shown = info.written || info.place == Place::right;
    if (shown && rows && info.place != Place::hidden && info.place != Place::left) out.push_back(static_cast<int>(b));
  }
  std::stable_sort(out.begin(), out.end(), [&](int a, int b) {
    const BufferInfo &x = rec.buffers[static_cast<std::size_t>(a)], &y = rec.buffers[static_cast<std::size_t>(b)];
    const int gx = group_of(x), gy = group_of(y);
    return gx != gy ? gx < gy : x.order < y.order;
  });
  return out;
}

CloseUp close_up(const Recording& rec, const Step* step) {
  CloseUp c;
  const int N = rec.n;
  if (!step || N <= 0 || !has_query_rows(rec)) return c;
  const bool tiled = rec.Br > 0 && rec.Bc > 0;
  if (tiled && step->tile_i < 0 && step->tile_j >= 0) {
    // A K/V block's own step (the flash backward's write of dKⱼ, dVⱼ): its key rows only.
    c.tile_j = step->tile_j;
    return keys_only(rec, c, step->tile_j * rec.Bc, std::min((step->tile_j + 1) * rec.Bc, N),
                     strf("K/V block j = %d: ", step->tile_j + 1));
  }
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
    for (const Region& g : step->writes)
      if (rec.buffers[static_cast<std::size_t>(g.buffer)].row_axis == Axis::query) {
        w = &g;
        break;
      }
    if (!w) {
      // Else the first region written in a buffer with one row per key (the standard
      // backward's rows of dV and dK): those key rows.
      for (const Region& g : step->writes)
        if (rec.buffers[static_cast<std::size_t>(g.buffer)].row_axis == Axis::key) {
          const int k0 = std::clamp(g.r0, 0, N - 1);
          return keys_only(rec, c, k0, std::clamp(std::min(g.r1, k0 + kCloseUpMaxRows), k0 + 1, N), "");
        }
      return c;
    }
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
  add_items(rec, c, tiled && step->tile_i >= 0);
  return c;
}

CloseUp close_up_largest(const Recording& rec) {
  CloseUp cu;
  cu.shown = true;
  if (rec.Br > 0 && rec.Bc > 0 && rec.n > 0) {
    cu.tile_i = (rec.n + rec.Br - 1) / rec.Br - 1;
    cu.tile_j = (rec.n + rec.Bc - 1) / rec.Bc - 1;
  }
  cu.r1 = rec.Br > 0 ? std::min(rec.Br, rec.n) : 1;
  cu.k1 = rec.Bc > 0 ? std::min(rec.Bc, rec.n) : rec.n;
  add_items(rec, cu);
  // Outside tiles a step writes key rows alone, a row at a time (a step that writes more pages
  // through them): room for one, not for every key.
  if (rec.Br <= 0 || rec.Bc <= 0)
    for (CloseUpItem& it : cu.items)
      if (it.key_rows) it.r1 = std::min(it.r1, it.r0 + 1);
  return cu;
}

}  // namespace flashstep::ui
