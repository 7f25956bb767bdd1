// The chunked view's layout: where its merge tree puts its nodes (view_logic.h). The matrix
// view's is matrix_layout.h.
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

}  // namespace flashstep::ui
