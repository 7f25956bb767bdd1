#include "core/engine.h"

#include "core/algorithms.h"
#include "core/heads.h"
#include "core/mask.h"
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

// "attn-tiled or attn-tiled-v2": the rows of a's group that hold no N × N matrix and have a
// fast kernel, which time the same problem where a's matrices do not fit; where none of them has
// a fast kernel, those whose reference engine runs in O(N·d) memory all the same.
static std::string without_square(Algorithm a) {
  std::vector<std::string> ids;
  for (bool need_fast : {true, false}) {
    for (Algorithm b : group_of(a))
      if (info(b).square.empty() && (info(b).fast || !need_fast)) ids.emplace_back(algorithm_id(b));
    if (!ids.empty()) break;
  }
  std::string out;
  for (std::size_t k = 0; k < ids.size(); ++k) out += (k == 0 ? "" : k + 1 == ids.size() ? " or " : ", ") + ids[k];
  return out;
}

void check_s_and_p_fit(const Resolved& r, Precision p, int heads) {
  const Algorithm a = r.scenario.algorithm;
  const AlgorithmInfo& row = info(a);
  if (row.square.empty()) return;
  const double phys = static_cast<double>(physical_memory_bytes());
  const double value_bytes = static_cast<double>(with_scalar(p, [](auto x) { return sizeof x; }));
  // A layer computes its N × N matrices for every head before it uses them (the GPU's grid covers
  // all heads at once); the CPU runs the heads one after another but refuses what the GPU refuses.
  const double H = heads, count = static_cast<double>(row.square.size());
  const double need = square_bytes(a, r.n, heads, value_bytes);
  if (phys <= 0 || need <= phys) return;
  // The largest N whose matrices fit: count·H·N²·bytes ≤ physical memory.
  auto fits = [&](long long n) { return count * H * static_cast<double>(n) * static_cast<double>(n) * value_bytes <= phys; };
  auto largest = static_cast<long long>(std::sqrt(phys / (count * H * value_bytes)));
  while (fits(largest + 1)) ++largest;
  while (largest > 0 && !fits(largest)) --largest;
  const std::string prec(precision_name(p)), id(row.id), names = square_names(a), others = without_square(a);
  const int k = static_cast<int>(row.square.size());
  if (heads == 1)
    throw InputError(strf("%s at N = %d needs %s, %d·N² %s values = %s, more than this "
                          "machine's %s of memory; use %s (no N×N matrix), "
                          "or N ≤ %lld",
                          id.c_str(), r.n, names.c_str(), k, prec.c_str(), bytes_text(need).c_str(),
                          bytes_text(phys).c_str(), others.c_str(), largest));
  throw InputError(strf("%s at N = %d with H = %d heads: a layer holds %s of every head at "
                        "once, %d·H·N² %s values = %s, more than this machine's %s of memory; use %s "
                        "(no N×N matrix), fewer heads, or N ≤ %lld",
                        id.c_str(), r.n, heads, names.c_str(), k, prec.c_str(), s_and_p_text(need).c_str(), bytes_text(phys).c_str(),
                        others.c_str(), largest));
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
  rec.mask = Mask::of(r);
  rec.Br = r.Br;
  rec.Bc = r.Bc;
  rec.Tr = r.Tr;
  rec.Tc = r.Tc;
  rec.chunks = r.chunks;
  rec.params = taken_params(r.scenario);
  rec.notices = r.notices;
  rec.derived = r.derived;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // Every algorithm's results: the output, then m and l per row (more are declared by the
  // engines that compute them: lse, ...).
  rec.output();
  rec.m().assign(static_cast<std::size_t>(r.rows), nan);
  rec.l().assign(static_cast<std::size_t>(r.rows), nan);
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
  const int r0 = i * r.Br, c0 = j * r.Bc;
  return Mask::of(r).tile(r0, std::min(r.Br, r.n - r0), c0, std::min(r.Bc, r.n - c0)) != TileKind::empty;
}

long long estimate_steps(const Resolved& r) { return info(r.scenario.algorithm).size(r).steps; }

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

namespace {
using ll = long long;
RecordingSize sized(ll steps, ll cells, ll deltas) {
  RecordingSize s;
  s.steps = steps, s.cells = cells, s.deltas = deltas;
  return s;
}
}  // namespace

RecordingSize size_naive(const Resolved& r) {
  const ll rows = r.rows, n = r.n;
  return sized(rows * 2 * n, rows * (3 * n + 1), rows * 4 * n);
}

RecordingSize size_safe(const Resolved& r) {
  const ll rows = r.rows, n = r.n;
  return sized(rows * 3 * n, rows * (3 * n + 2), rows * 5 * n);
}

RecordingSize size_online(const Resolved& r) {
  const ll rows = r.rows, n = r.n;
  return sized(rows * 2 * n, rows * (3 * n + 2), rows * 5 * n);
}

RecordingSize size_logsumexp(const Resolved& r) {
  const ll rows = r.rows, n = r.n;
  return sized(rows * (2 * n + 1), rows * (3 * n + 3), rows * (4 * n + 1));
}

RecordingSize size_chunked(const Resolved& r) {
  const ll rows = r.rows, n = r.n, K = r.chunks;
  const ll longest = (n + K - 1) / K;
  const ll merges = static_cast<ll>(merge_tree(r.chunks).size()) - K;
  return sized(rows * (2 * longest + merges), rows * (3 * n + 2 + 4 * K), rows * (5 * n + 4 * K + 2));
}

RecordingSize size_attn_naive(const Resolved& r) {
  const ll n = r.n, d = r.d;
  return sized(3 * n, 4 * n * d + 2 * n * n + 2 * n, 2 * n * n + 2 * n + n * d);
}

RecordingSize size_attn_online(const Resolved& r) {
  const ll n = r.n, d = r.d;
  const Mask mask = Mask::of(r);
  ll keys = 0;  // the (query, key) pairs the mask leaves
  for (int i = 0; i < r.n; ++i) keys += mask.keys(i).size();
  return sized(keys + n, 5 * n * d + n * n + 2 * n, n * (2 + 2 * d) + keys * (3 + d));
}

namespace {
// The tiled loops (FA-1 and FA-2 record the same tiles; FA-2 adds a step per Q block).
RecordingSize size_tiled(const Resolved& r, bool v2) {
  const ll n = r.n, d = r.d;
  ll tiles = 0, deltas = 0;
  for (int i = 0; i < r.Tr; ++i) {
    const ll br = std::min(r.Br, r.n - i * r.Br);
    if (v2) deltas += 2 * br + br * d + br + br * d;  // start and end of the Q block
    for (int j = 0; j < r.Tc; ++j)
      if (tile_live(r, i, j)) {
        ++tiles;
        deltas += 2 * br * std::min(r.Bc, r.n - j * r.Bc) + br * d + 2 * br;
      }
  }
  return sized(v2 ? tiles + r.Tr : tiles, 4 * n * d + 2 * n * n + 2 * n + (v2 ? n * d + n : 0), deltas);
}
}  // namespace

RecordingSize size_attn_tiled(const Resolved& r) { return size_tiled(r, false); }
RecordingSize size_attn_tiled_v2(const Resolved& r) { return size_tiled(r, true); }

RecordingSize estimate_recording(const Resolved& r) {
  RecordingSize size = info(r.scenario.algorithm).size(r);
  const long long cells = size.cells, deltas = size.deltas;
  // State before the first step and while recording, the deltas, keyframes (at most about one
  // state per state's worth of deltas), and per step its text and regions.
  const long long cell_bytes = static_cast<long long>(sizeof(double) + 1);
  size.bytes = 2 * cells * cell_bytes + deltas * static_cast<long long>(sizeof(Delta)) + deltas * cell_bytes +
               size.steps * (static_cast<long long>(sizeof(Step)) + 400);
  return size;
}

long long estimate_recording_bytes(const Resolved& r) { return estimate_recording(r).bytes; }

}  // namespace flashstep
