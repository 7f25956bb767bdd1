#include "core/engine.h"

#include "core/recorder.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace flashstep {

Recording record(const Resolved& r, const RecordOptions& opt) {
  Recording rec;
  rec.algorithm = r.scenario.algorithm;
  rec.backend = "cpu";
  rec.device = "CPU";
  rec.precision = r.scenario.precision;
  rec.rows = r.rows;
  rec.n = r.n;
  rec.d = r.d;
  rec.scale = r.scale;
  rec.causal = r.scenario.causal;
  rec.Br = r.Br;
  rec.Bc = r.Bc;
  rec.Tr = r.Tr;
  rec.Tc = r.Tc;
  rec.chunks = r.chunks;
  rec.notices = r.notices;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  rec.m.assign(static_cast<std::size_t>(r.rows), nan);
  rec.l.assign(static_cast<std::size_t>(r.rows), nan);

  Recorder recorder(rec, opt.keep_steps);
  recorder.watch(opt.cancel, opt.progress, estimate_steps(r));
  switch (r.scenario.algorithm) {
    case Algorithm::naive: record_naive(r, recorder); break;
    case Algorithm::safe: record_safe(r, recorder); break;
    case Algorithm::online: record_online(r, recorder); break;
    case Algorithm::chunked: record_chunked(r, recorder); break;
    case Algorithm::logsumexp: record_logsumexp(r, recorder); break;
    case Algorithm::attn_naive: record_attn_naive(r, recorder); break;
    case Algorithm::attn_online: record_attn_online(r, recorder); break;
    case Algorithm::attn_tiled: record_attn_tiled(r, recorder); break;
    case Algorithm::attn_tiled_v2: record_attn_tiled_v2(r, recorder); break;
  }
  rec.nonfinite = rec.count_nonfinite_outputs();
  if (opt.progress) opt.progress->store(1.0f);
  return rec;
}

// Tiles (i, j) that hold at least one unmasked score.
static bool tile_live(const Resolved& r, int i, int j) {
  return !r.scenario.causal || j * r.Bc <= std::min(r.n, (i + 1) * r.Br) - 1;
}

long long estimate_steps(const Resolved& r) {
  const long long rows = r.rows, n = r.n;
  switch (r.scenario.algorithm) {
    case Algorithm::naive: return rows * 2 * n;
    case Algorithm::safe: return rows * 3 * n;
    case Algorithm::online: return rows * 2 * n;
    case Algorithm::logsumexp: return rows * (2 * n + 1);
    case Algorithm::chunked: {
      const long long longest = (n + r.chunks - 1) / r.chunks;
      const long long merges = static_cast<long long>(merge_tree(r.chunks).size()) - r.chunks;
      return rows * (2 * longest + merges);
    }
    case Algorithm::attn_naive: return 3 * n;
    case Algorithm::attn_online: return r.scenario.causal ? n * (n + 1) / 2 + n : n * n + n;
    case Algorithm::attn_tiled:
    case Algorithm::attn_tiled_v2: {
      long long tiles = 0;
      for (int i = 0; i < r.Tr; ++i)
        for (int j = 0; j < r.Tc; ++j) tiles += tile_live(r, i, j) ? 1 : 0;
      return r.scenario.algorithm == Algorithm::attn_tiled ? tiles : tiles + r.Tr;
    }
  }
  return 0;
}

std::vector<MergeNode> merge_tree(int K) {
  std::vector<MergeNode> nodes;
  for (int k = 0; k < K; ++k) nodes.push_back({0, k, -1, -1});
  int level_start = 0, level_size = K, level = 0;
  while (level_size > 1) {
    const int next_start = static_cast<int>(nodes.size());
    const int next_size = (level_size + 1) / 2;
    for (int a = 0; a < next_size; ++a) {
      const int left = level_start + 2 * a;
      const int right = 2 * a + 1 < level_size ? left + 1 : -1;
      nodes.push_back({level + 1, a, left, right});
    }
    level_start = next_start;
    level_size = next_size;
    ++level;
  }
  return nodes;
}

}  // namespace flashstep
