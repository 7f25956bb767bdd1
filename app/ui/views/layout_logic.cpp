// The views' layouts: where the chunked view's merge tree puts its nodes and where the matrix
// view puts its matrices (view_logic.h).
#include "app/ui/views/view_logic.h"

#include "app/ui/views/matrix_layout.h"

#include <algorithm>
#include <cstddef>

namespace flashstep::ui {

// ---- [SECTION] chunked softmax --------------------------------------------------------------

int chunk_begin(int worker, int n, int K) {
  return static_cast<int>(static_cast<long long>(worker) * n / std::max(K, 1));
}

int chunk_of(int i, int n, int K) {
  for (int w = 0; w < K; ++w)
    if (i < chunk_begin(w + 1, n, K)) return w;
  return K - 1;
}

std::vector<float> merge_tree_x(const std::vector<MergeNode>& tree, const std::vector<float>& worker_x) {
  std::vector<float> x(tree.size(), 0.0f);
  for (std::size_t id = 0; id < tree.size(); ++id) {
    const MergeNode& nd = tree[id];
    if (nd.level == 0)
      x[id] = nd.index < static_cast<int>(worker_x.size()) ? worker_x[nd.index] : 0.0f;
    else if (nd.right < 0)
      x[id] = x[nd.left];
    else
      x[id] = 0.5f * (x[nd.left] + x[nd.right]);
  }
  return x;
}

int merge_tree_levels(const std::vector<MergeNode>& tree) {
  int levels = 0;
  for (const MergeNode& nd : tree) levels = std::max(levels, nd.level + 1);
  return levels;
}

// ---- [SECTION] matrix layout ----------------------------------------------------------------

MatrixLayout layout_matrices(const MatrixLayoutIn& in) {
  // The attention set as declared items (core/narration_attention.cpp declares the same).
  ItemsLayoutIn li;
  li.N = in.N;
  std::vector<Rect*> out;
  MatrixLayout L;
  auto item = [&](bool shown, Place place, int cells, Rect* rect, int host = -1) {
    if (!shown) return;
    li.items.push_back({place, static_cast<int>(li.items.size()), host, cells});
    out.push_back(rect);
  };
  item(in.q, Place::left, in.d, &L.q);
  item(in.kt, Place::above, in.d, &L.kt, in.s ? static_cast<int>(li.items.size()) + 1 : -1);
  item(in.s, Place::centre, in.N, &L.s);
  const int p_index = static_cast<int>(li.items.size());
  item(in.p, Place::centre, in.N, &L.p);
  item(in.vt, Place::above, in.d, &L.vt, in.p ? p_index : -1);
  item(in.o_acc, Place::right, in.d, &L.o_acc);
  item(in.o, Place::right, in.d, &L.o);
  L.stats.assign(static_cast<std::size_t>(std::max(in.stat_cols, 0)), Rect{});
  for (int k = 0; k < in.stat_cols; ++k) item(true, Place::stats, 1, &L.stats[static_cast<std::size_t>(k)]);
  li.stat_min_w = in.stat_min_w;
  li.gap = in.gap;
  li.title_h = in.title_h;
  li.margin_left = in.margin_left;
  li.margin_bottom = in.margin_bottom;
  li.avail_w = in.avail_w;
  li.avail_h = in.avail_h;
  li.cell = in.cell;
  li.max_cell = in.max_cell;
  const ItemsLayout got = layout_items(li);
  for (std::size_t k = 0; k < out.size(); ++k) *out[k] = got.rects[k];
  L.cell = got.cell;
  L.stat_w = got.stat_w;
  L.width = got.width;
  L.height = got.height;
  return L;
}

}  // namespace flashstep::ui
