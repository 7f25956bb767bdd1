#include "core/timed_run.h"

#include "core/algorithms.h"
#include "core/engine.h"
#include "core/fast.h"
#include "core/fast_backward.h"
#include "core/heads.h"
#include "core/io_model.h"
#include "core/text.h"
#include "core/workspace.h"

#include <chrono>
#include <cmath>
#include <limits>
#include <optional>

namespace flashstep {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// Runs `body` `repeat` times into run: every time, the best, and the largest workspace it held
// (core/workspace.h).
template <class Body>
void time_best(int repeat, TimedRun& run, Body body) {
  run.time_ms = std::numeric_limits<double>::infinity();
  run.peak_bytes = 0;
  run.times_ms.clear();
  for (int k = 0; k < repeat; ++k) {
    const std::int64_t base = Workspace::current();
    Workspace::reset_peak();
    const auto t0 = Clock::now();
    body();
    run.times_ms.push_back(ms_since(t0));
    run.time_ms = std::min(run.time_ms, run.times_ms.back());
    run.peak_bytes = std::max(run.peak_bytes, Workspace::peak() - base);
  }
}

long long count_nonfinite(const float* v, std::size_t n) {
  long long c = 0;
  for (std::size_t i = 0; i < n; ++i) c += std::isfinite(v[i]) ? 0 : 1;
  return c;
}

void fill_summary(Recording& rec, const Resolved& r, const MatRM<float>& out, const std::vector<float>& m,
                  const std::vector<float>& l, bool keep_output) {
  rec = start_recording(r, "cpu", "CPU");
  rec.keep_steps = false;
  rec.m().assign(m.begin(), m.end());
  rec.l().assign(l.begin(), l.end());
  rec.io = expected_io(r);
  rec.nonfinite = count_nonfinite(out.data(), static_cast<std::size_t>(out.size()));
  if (keep_output) rec.output() = out.cast<double>();
}

}  // namespace

// ---- the rows' fast kernels: inputs prepared once, then the body timed ----------------------

namespace {

// The scale is applied to the input once, outside the timed kernel, as a framework would fold
// it into the producer of the scores.
MatRM<float> scaled_x(const Resolved& r, FastRun& run) {
  MatRM<float> x = (r.x * r.scale).cast<float>();
  run.out.setZero(r.rows, r.n);  // touched now, so page faults stay out of the timing
  return x;
}

struct Qkv {
  MatRM<float> Q, K, V;
  float s;
  Mask mask;
};
Qkv qkv_of(const Resolved& r, FastRun& run) {
  Qkv in{r.q.cast<float>(), r.k.cast<float>(), r.v.cast<float>(), static_cast<float>(r.scale), Mask::of(r)};
  run.out.setZero(r.n, r.d);
  return in;
}

}  // namespace

void fast_safe(const Resolved& r, FastRun& run) {
  const MatRM<float> x = scaled_x(r, run);
  run.time([&] { fast::softmax_safe(x.data(), run.out.data(), r.rows, r.n, run.m.data(), run.l.data()); });
}

void fast_online(const Resolved& r, FastRun& run) {
  const MatRM<float> x = scaled_x(r, run);
  run.time([&] { fast::softmax_online(x.data(), run.out.data(), r.rows, r.n, run.m.data(), run.l.data()); });
}

void fast_chunked(const Resolved& r, FastRun& run) {
  const MatRM<float> x = scaled_x(r, run);
  run.time([&] {
    fast::softmax_chunked(x.data(), run.out.data(), r.rows, r.n, r.chunks, run.m.data(), run.l.data());
  });
}

void fast_attn_naive(const Resolved& r, FastRun& run) {
  const Qkv in = qkv_of(r, run);
  run.time([&] { fast::attention_naive(in.Q, in.K, in.V, in.s, in.mask, run.out, run.m.data(), run.l.data()); });
}

void fast_attn_tiled(const Resolved& r, FastRun& run) {
  const Qkv in = qkv_of(r, run);
  run.time([&] {
    fast::attention_tiled(in.Q, in.K, in.V, in.s, in.mask, r.Br, r.Bc, run.out, run.m.data(), run.l.data());
  });
}

void fast_attn_tiled_v2(const Resolved& r, FastRun& run) {
  const Qkv in = qkv_of(r, run);
  run.time([&] {
    fast::attention_tiled_v2(in.Q, in.K, in.V, in.s, in.mask, r.Br, r.Bc, run.out, &run.lse, run.m.data(),
                             run.l.data());
  });
}

// The backward rows time the backward alone: the forward it starts from (O, m, l, and P or L)
// is computed first, outside the timing, by the fast forward kernels, as a training step has it
// at hand when its backward begins.
namespace {
void keep_gradients(const fast::Gradients& g, FastRun& run) {
  run.extra.matrix("dq", "grads") = g.dQ.cast<double>();
  run.extra.matrix("dk", "grads") = g.dK.cast<double>();
  run.extra.matrix("dv", "grads") = g.dV.cast<double>();
  run.extra.row("D").assign(g.D.begin(), g.D.end());
}
}  // namespace

void fast_attn_backward(const Resolved& r, FastRun& run) {
  const Qkv in = qkv_of(r, run);
  const MatRM<float> dO = r.d_o.cast<float>();
  fast::attention_naive(in.Q, in.K, in.V, in.s, in.mask, run.out, run.m.data(), run.l.data());
  // P as attn-naive's forward leaves it in HBM: e^{S − m} / l where visible, 0 elsewhere and in a
  // row with no finite score.
  const int N = r.n;
  MatRM<float> P(N, N);
  P.noalias() = in.s * in.Q * in.K.transpose();
  for (int i = 0; i < N; ++i) {
    const Mask::KeyRange keys = in.mask.keys(i);
    const float m = run.m[static_cast<std::size_t>(i)], l = run.l[static_cast<std::size_t>(i)];
    for (int j = 0; j < N; ++j)
      P(i, j) = l == 0.0f || j < keys.begin || j >= keys.end ? 0.0f : std::exp(P(i, j) - m) / l;
  }
  fast::Gradients g;
  run.time([&] { fast::attention_backward(in.Q, in.K, in.V, P, run.out, dO, in.s, g); });
  keep_gradients(g, run);
}

void fast_attn_flash_backward(const Resolved& r, FastRun& run) {
  const Qkv in = qkv_of(r, run);
  const MatRM<float> dO = r.d_o.cast<float>();
  fast::attention_tiled_v2(in.Q, in.K, in.V, in.s, in.mask, r.Br, r.Bc, run.out, &run.lse, run.m.data(),
                           run.l.data());
  fast::Gradients g;
  run.time([&] {
    fast::attention_flash_backward(in.Q, in.K, in.V, run.out, run.lse, dO, in.s, in.mask, r.Br, r.Bc, g);
  });
  keep_gradients(g, run);
}

bool takes_kernel_blocks(const Resolved& r) {
  const Scenario& s = r.scenario;
  return has_fast_kernel(r) && info(s.algorithm).takes_blocks && s.block_rows == 0 && s.block_cols == 0 &&
         s.sram == 0;
}

std::string kernel_blocks_notice(const Resolved& r) {
  const TileShape& tile = info(r.scenario.algorithm).tile;
  const fast::KernelBlocks b = fast::kernel_blocks(r.n, r.d, tile);
  return strf(
      "Br = %d, Bc = %d chosen by the fast CPU kernel, which is fastest with them: a thread's %s, %s "
      "and %s take %s, within half of this CPU's %s L2 cache. The lesson's Br = %d, Bc = %d come from "
      "M = %d, a GPU's shared memory; give --block-rows and --block-cols, or --sram, to time those",
      b.Br, b.Bc, std::string(tile.query_names).c_str(), std::string(tile.key_names).c_str(),
      std::string(tile.score_names).c_str(), bytes_text(static_cast<double>(b.tile_bytes)).c_str(),
      bytes_text(static_cast<double>(b.l2_bytes)).c_str(), r.Br, r.Bc, kDefaultSram);
}

Resolved with_kernel_blocks(const Resolved& r) {
  const fast::KernelBlocks b = fast::kernel_blocks(r.n, r.d, info(r.scenario.algorithm).tile);
  Resolved out = r;
  out.Br = b.Br;
  out.Bc = b.Bc;
  out.Tr = (r.n + b.Br - 1) / b.Br;
  out.Tc = (r.n + b.Bc - 1) / b.Bc;
  out.derived = {kernel_blocks_notice(r)};
  return out;
}

bool has_fast_kernel(const Resolved& r) {
  return r.scenario.precision == Precision::fp32 && info(r.scenario.algorithm).fast != nullptr;
}

TimedRun run_timed(const Resolved& asked, int repeat, bool keep_output, bool warm) {
  repeat = std::max(repeat, 1);
  const bool own_blocks = takes_kernel_blocks(asked);
  std::optional<Resolved> own;
  if (own_blocks) own = with_kernel_blocks(asked);
  const Resolved& r = own ? *own : asked;
  check_s_and_p_fit(r, r.scenario.precision);  // before S and P are allocated
  TimedRun run;
  if (!has_fast_kernel(r)) {
    Recording rec;
    time_best(repeat, run, [&] { rec = record(r, RecordOptions{false}); });
    if (!keep_output)
      for (MatrixResult& m : rec.results.matrices) m.values.resize(0, 0);
    run.rec = std::move(rec);
    run.kernel = "reference";
    return run;
  }
  run.kernel = "fast";
  run.kernel_blocks = own_blocks;
  FastRun fr;
  fr.m.resize(static_cast<std::size_t>(r.rows));
  fr.l.resize(static_cast<std::size_t>(r.rows));
  // The cores are woken just before the first repeat, after the inputs (and a backward's forward)
  // are prepared: a core that idled while one thread prepared them would start slow again. With
  // more than one repeat, one run of the kernel goes first, untimed: the first run finds the
  // inputs in memory and the later ones in cache, so it took longer than the others.
  fr.time = [&](const std::function<void()>& body) {
    if (warm && repeat > 1) fast::warm_up(fast::kWarmUpSeconds);
    if (repeat > 1) body();
    time_best(repeat, run, body);
  };
  info(r.scenario.algorithm).fast(r, fr);
  fill_summary(run.rec, r, fr.out, fr.m, fr.l, keep_output);
  if (!fr.lse.empty()) run.rec.lse().assign(fr.lse.begin(), fr.lse.end());  // FlashAttention-2 stores L
  for (MatrixResult& m : fr.extra.matrices)
    run.rec.results.matrix(m.name, m.group) = keep_output ? std::move(m.values) : MatrixRM();
  for (RowResult& row : fr.extra.rows) run.rec.results.row(row.name) = std::move(row.values);
  return run;
}

TimedRun run_timed_heads(const Resolved& r, int heads, int repeat, bool keep_output) {
  check_heads(r, heads);
  check_s_and_p_fit(r, r.scenario.precision, heads);  // before any head is drawn
  TimedRun total = run_timed(r, repeat, keep_output);
  std::vector<Recording> recs;
  recs.push_back(std::move(total.rec));
  for (int h = 1; h < heads; ++h) {
    TimedRun run = run_timed(resolve_head(r, h), repeat, keep_output, /*warm=*/false);  // head 0 woke them
    total.time_ms += run.time_ms;
    for (std::size_t k = 0; k < total.times_ms.size() && k < run.times_ms.size(); ++k)
      total.times_ms[k] += run.times_ms[k];
    total.peak_bytes = std::max(total.peak_bytes, run.peak_bytes);
    recs.push_back(std::move(run.rec));
  }
  total.rec = stack_heads(std::move(recs));
  return total;
}

}  // namespace flashstep
