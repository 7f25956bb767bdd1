#include "core/engine.h"

#include "core/algorithms.h"
#include "core/peak_memory.h"
#include "core/recorder.h"
#include "core/text.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace flashstep {

void check_memory_budget(const Resolved& r, const RecordOptions& opt) {
  if (!opt.keep_steps || opt.memory_budget <= 0) return;
  const long long need = estimate_recording(r).bytes;
  if (need > opt.memory_budget)
    throw InputError(strf("recording every step of %s at this size would need %.2f GiB (the budget is "
                          "%.2f GiB); use --steps none or a smaller N",
                          std::string(algorithm_id(r.scenario.algorithm)).c_str(), need / 1073741824.0,
                          opt.memory_budget / 1073741824.0));
}

void check_s_and_p_fit(const Resolved& r, Precision p) {
  if (r.scenario.algorithm != Algorithm::attn_naive) return;
  const double phys = static_cast<double>(physical_memory_bytes());
  const double value_bytes = static_cast<double>(with_scalar(p, [](auto x) { return sizeof x; }));
  const double N = r.n, need = 2.0 * N * N * value_bytes;
  if (phys <= 0 || need <= phys) return;
  // The largest N whose S and P fit: 2·N²·bytes ≤ physical memory.
  auto largest = static_cast<long long>(std::sqrt(phys / (2.0 * value_bytes)));
  while (2.0 * static_cast<double>(largest + 1) * static_cast<double>(largest + 1) * value_bytes <= phys) ++largest;
  while (largest > 0 && 2.0 * static_cast<double>(largest) * static_cast<double>(largest) * value_bytes > phys)
    --largest;
  throw InputError(strf("attn-naive at N = %d needs S and P, 2·N² %s values = %s, more than this "
                        "machine's %s of memory; use attn-tiled or attn-tiled-v2 (no N×N matrix), "
                        "or N ≤ %lld",
                        r.n, std::string(precision_name(p)).c_str(), bytes_text(need).c_str(),
                        bytes_text(phys).c_str(), largest));
}

Recording start_recording(const Resolved& r, std::string backend, std::string device) {
  Recording rec;
  rec.algorithm = r.scenario.algorithm;
  rec.backend = std::move(backend);
  rec.device = std::move(device);
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
  rec.derived = r.derived;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  rec.m.assign(static_cast<std::size_t>(r.rows), nan);
  rec.l.assign(static_cast<std::size_t>(r.rows), nan);
  return rec;
}

void prepare_recorder(Recorder& recorder, const Resolved& r, const RecordOptions& opt) {
  const RecordingSize size = opt.keep_steps ? estimate_recording(r) : RecordingSize{};
  recorder.watch(opt.cancel, opt.progress, size.steps);
  // Growing the delta list by doubling would copy it again and again; the estimate is close.
  recorder.reserve(size.steps, size.deltas);
}

Recording record(const Resolved& r, const RecordOptions& opt) {
  check_s_and_p_fit(r, r.scenario.precision);
  check_memory_budget(r, opt);
  Recording rec = start_recording(r, "cpu", "CPU");
  Recorder recorder(rec, opt.keep_steps);
  prepare_recorder(recorder, r, opt);
  info(r.scenario.algorithm).record(r, recorder);
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

namespace flashstep {

RecordingSize estimate_recording(const Resolved& r) {
  const long long rows = r.rows, n = r.n, d = r.d, K = r.chunks;
  long long cells = 0, deltas = 0;
  switch (r.scenario.algorithm) {
    case Algorithm::naive: cells = rows * (3 * n + 1), deltas = rows * 4 * n; break;
    case Algorithm::safe:
    case Algorithm::online: cells = rows * (3 * n + 2), deltas = rows * 5 * n; break;
    case Algorithm::logsumexp: cells = rows * (3 * n + 3), deltas = rows * (4 * n + 1); break;
    case Algorithm::chunked: cells = rows * (3 * n + 2 + 4 * K), deltas = rows * (5 * n + 4 * K + 2); break;
    case Algorithm::attn_naive: cells = 4 * n * d + 2 * n * n + 2 * n, deltas = 2 * n * n + 2 * n + n * d; break;
    case Algorithm::attn_online: {
      const long long keys = r.scenario.causal ? n * (n + 1) / 2 : n * n;
      cells = 5 * n * d + n * n + 2 * n, deltas = n * (2 + 2 * d) + keys * (3 + d);
      break;
    }
    case Algorithm::attn_tiled:
    case Algorithm::attn_tiled_v2: {
      const bool v2 = r.scenario.algorithm == Algorithm::attn_tiled_v2;
      cells = 4 * n * d + 2 * n * n + 2 * n + (v2 ? n * d + n : 0);
      for (int i = 0; i < r.Tr; ++i) {
        const long long br = std::min(r.Br, r.n - i * r.Br);
        if (v2) deltas += 2 * br + br * d + br + br * d;  // start and end of the Q block
        for (int j = 0; j < r.Tc; ++j)
          if (tile_live(r, i, j)) deltas += 2 * br * std::min(r.Bc, r.n - j * r.Bc) + br * d + 2 * br;
      }
      break;
    }
  }
  RecordingSize size;
  size.steps = estimate_steps(r);
  size.deltas = deltas;
  size.cells = cells;
  // State before the first step and while recording, the deltas, keyframes (at most about one
  // state per state's worth of deltas), and per step its text and regions.
  const long long cell_bytes = static_cast<long long>(sizeof(double) + 1);
  size.bytes = 2 * cells * cell_bytes + deltas * static_cast<long long>(sizeof(Delta)) + deltas * cell_bytes +
               size.steps * (static_cast<long long>(sizeof(Step)) + 400);
  return size;
}

long long estimate_recording_bytes(const Resolved& r) { return estimate_recording(r).bytes; }

}  // namespace flashstep
