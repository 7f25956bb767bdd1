// The views' layouts: where the chunked view's merge tree puts its nodes and where the matrix
// view puts its matrices (view_logic.h).
#include "app/ui/views/view_logic.h"

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
  MatrixLayout L;
  const float N = static_cast<float>(in.N), d = static_cast<float>(in.d);
  const bool key_s = in.s, key_p = in.p;
  const int key_count = (key_s ? 1 : 0) + (key_p ? 1 : 0);
  // Which top-band matrices stack over which key-axis matrix.
  int over_s = 0, over_p = 0;
  const bool kt = in.kt && key_count > 0, vt = in.vt && key_count > 0;
  if (key_count == 2) {
    over_s = kt ? 1 : 0;
    over_p = vt ? 1 : 0;
  } else if (key_s) {
    over_s = (kt ? 1 : 0) + (vt ? 1 : 0);
  } else if (key_p) {
    over_p = (kt ? 1 : 0) + (vt ? 1 : 0);
  }
  const int stack = std::max(over_s, over_p);
  const float half_gap = in.gap * 0.5f;

  float col_cells = 0, gaps = 0;
  int main_count = 0;
  auto count = [&](bool shown, float cells) {
    if (!shown) return;
    col_cells += cells;
    ++main_count;
  };
  count(in.q, d);
  count(in.s, N);
  count(in.p, N);
  count(in.o_acc, d);
  count(in.o, d);
  gaps = static_cast<float>(std::max(main_count - 1, 0)) * in.gap;
  if (in.stat_cols > 0) gaps += in.gap * 0.5f + static_cast<float>(in.stat_cols - 1) * 2.0f;
  const float stats = static_cast<float>(in.stat_cols);
  const float fixed_w = in.margin_left + gaps;
  const float fixed_h =
      in.title_h + in.margin_bottom +
      (stack > 0 ? static_cast<float>(stack) * in.title_h + static_cast<float>(stack - 1) * half_gap + in.gap
                 : 0.0f);
  const float rows_cells = N + static_cast<float>(stack) * d;

  float c = in.cell;
  if (!(c > 0)) {
    float cw = 1e9f;
    if (col_cells + stats > 0) {
      cw = (in.avail_w - fixed_w - stats * in.stat_min_w) / std::max(col_cells, 1.0f);
      if (cw > in.stat_min_w) cw = (in.avail_w - fixed_w) / (col_cells + stats);
    }
    const float ch = rows_cells > 0 ? (in.avail_h - fixed_h) / rows_cells : 1e9f;
    c = std::clamp(std::min(cw, ch), 0.05f, in.max_cell);
  }
  L.cell = c;
  L.stat_w = std::max(c, in.stat_min_w);

  const float top_h = stack > 0 ? static_cast<float>(stack) * (in.title_h + d * c) +
                                      static_cast<float>(stack - 1) * half_gap + in.gap
                                : 0.0f;
  const float y_main = top_h + in.title_h;
  float x = in.margin_left;
  auto place = [&](Rect& r, bool shown, float cells) {
    if (!shown) return;
    if (x > in.margin_left) x += in.gap;
    r = {x, y_main, cells * c, N * c, true};
    x += cells * c;
  };
  place(L.q, in.q, d);
  place(L.s, in.s, N);
  place(L.p, in.p, N);
  place(L.o_acc, in.o_acc, d);
  place(L.o, in.o, d);
  for (int k = 0; k < in.stat_cols; ++k) {
    x += k == 0 ? (x > in.margin_left ? in.gap * 0.5f : 0.0f) : 2.0f;
    L.stats.push_back({x, y_main, L.stat_w, N * c, true});
    x += L.stat_w;
  }
  // Stacks are bottom-aligned, so the last piece touches the matrix it belongs to.
  auto put = [&](Rect& r, const Rect& host, float bottom) {
    r = {host.x, bottom - d * c, host.w, d * c, true};
    return bottom - d * c - in.title_h - half_gap;
  };
  const float bottom = y_main - in.title_h - in.gap;
  if (key_count == 2) {
    if (kt) put(L.kt, L.s, bottom);
    if (vt) put(L.vt, L.p, bottom);
  } else if (key_count == 1) {
    const Rect& host = key_s ? L.s : L.p;
    float b = bottom;
    if (vt) b = put(L.vt, host, b);
    if (kt) put(L.kt, host, b);
  }
  L.width = x;
  L.height = y_main + N * c + in.margin_bottom;
  return L;
}

}  // namespace flashstep::ui
