#include "core/io_model.h"

#include "core/algorithms.h"
#include "core/engine.h"
#include "core/mask.h"

#include <algorithm>

namespace flashstep {
namespace {

using u64 = std::uint64_t;

// One row of softmax: the per-element counts of the algorithm's passes, times the rows.
IoCounters softmax_rows(const Resolved& r, IoCounters per_row) {
  per_row.hbm_writes = static_cast<u64>(r.n);
  const u64 rows = static_cast<u64>(r.rows);
  per_row.hbm_reads *= rows, per_row.hbm_writes *= rows, per_row.sram_reads *= rows, per_row.sram_writes *= rows;
  per_row.flops *= rows, per_row.exps *= rows;
  return per_row;
}

u64 elements(const Resolved& r) { return static_cast<u64>(r.n); }
u64 scaled(const Resolved& r) { return r.scale != 1.0 ? 1 : 0; }  // one multiply per element loaded

// Counts of one tile S_ij (br × bc) computed on chip: the score product and its scale.
void add_scores(IoCounters& io, u64 br, u64 bc, u64 d, bool scaled) {
  io.flops += 2 * br * bc * d + (scaled ? br * bc : 0);
  io.sram_reads += (br + bc) * d;
  io.sram_writes += br * bc;
}

}  // namespace

IoCounters io_naive(const Resolved& r) {  // 1. sum  2. normalize
  const u64 n = elements(r), s = scaled(r);
  IoCounters io;
  io.hbm_reads = 2 * n, io.flops = 2 * n + 2 * n * s, io.exps = 2 * n;
  return softmax_rows(r, io);
}

IoCounters io_safe(const Resolved& r) {  // 1. max  2. sum  3. normalize
  const u64 n = elements(r), s = scaled(r);
  IoCounters io;
  io.hbm_reads = 3 * n, io.flops = 5 * n + 3 * n * s, io.exps = 2 * n;
  return softmax_rows(r, io);
}

IoCounters io_online(const Resolved& r) {  // 1. (m, l): max, 2 subtractions, multiply, add  2. normalize
  const u64 n = elements(r), s = scaled(r);
  IoCounters io;
  io.hbm_reads = 2 * n, io.flops = 7 * n + 2 * n * s, io.exps = 3 * n;
  return softmax_rows(r, io);
}

IoCounters io_logsumexp(const Resolved& r) {  // 1. (m, l)  LSE = m + log l  2. x - LSE
  const u64 n = elements(r), s = scaled(r);
  IoCounters io;
  io.hbm_reads = 2 * n, io.flops = 6 * n + 2 + 2 * n * s, io.exps = 2 * n;
  return softmax_rows(r, io);
}

IoCounters io_chunked(const Resolved& r) {  // online per worker, then the merge tree of (m, l)
  const u64 n = elements(r), s = scaled(r), K = static_cast<u64>(r.chunks);
  IoCounters io;
  io.hbm_reads = 2 * n, io.flops = 7 * n + 2 * n * s, io.exps = 3 * n;
  io.sram_writes = 2 * K;  // each worker's final (m, l), once; the running pair is in registers
  for (const MergeNode& node : merge_tree(r.chunks)) {
    if (node.left < 0) continue;  // a leaf
    if (node.right < 0) {         // carried up
      io.sram_reads += 2, io.sram_writes += 2;
    } else {
      io.sram_reads += 4, io.sram_writes += 2, io.flops += 6, io.exps += 2;
    }
  }
  io.sram_reads += 2 * K;  // every worker reads the global (m, l)
  return softmax_rows(r, io);
}

IoCounters io_attn_naive(const Resolved& r) {
  const u64 N = static_cast<u64>(r.n), d = static_cast<u64>(r.d);
  IoCounters io;
  io.hbm_reads = 3 * N * d + 2 * N * N;
  io.hbm_writes = 2 * N * N + N * d;
  io.flops = 4 * N * N * d + (r.scale != 1.0 ? N * N : 0) + 4 * N * N;
  io.exps = N * N;
  return io;
}

IoCounters io_attn_online(const Resolved& r) {
  const u64 N = static_cast<u64>(r.n), d = static_cast<u64>(r.d);
  const bool is_scaled = r.scale != 1.0;
  const Mask mask = Mask::of(r);
  IoCounters io;
  for (u64 i = 0; i < N; ++i) {
    const u64 keys = static_cast<u64>(mask.keys(static_cast<int>(i)).size());
    io.hbm_reads += d + 2 * d * keys;
    io.flops += keys * (2 * d + (is_scaled ? 1 : 0) + 3 * d + 6) + d;
    io.exps += 2 * keys;
    io.hbm_writes += d;
  }
  return io;
}

IoCounters io_attn_tiled(const Resolved& r) {  // FA-1: K_j, V_j outer; Q_i, O_i, l_i, m_i inner
  const u64 d = static_cast<u64>(r.d);
  const bool is_scaled = r.scale != 1.0;
  const Mask mask = Mask::of(r);
  IoCounters io;
  for (int j = 0; j < r.Tc; ++j) {
    const int c0 = j * r.Bc;
    const u64 bc = static_cast<u64>(std::min(r.Bc, r.n - c0));
    bool kv_loaded = false;
    for (int i = 0; i < r.Tr; ++i) {
      const int r0 = i * r.Br;
      const u64 br = static_cast<u64>(std::min(r.Br, r.n - r0));
      if (mask.tile(r0, static_cast<int>(br), c0, static_cast<int>(bc)) == TileKind::empty) continue;
      if (!kv_loaded) io.hbm_reads += 2 * bc * d, io.sram_writes += 2 * bc * d, kv_loaded = true;
      io.hbm_reads += 2 * br * d + 2 * br, io.sram_writes += 2 * br * d + 2 * br;  // Q_i, O_i, l_i, m_i
      add_scores(io, br, bc, d, is_scaled);
      io.flops += 3 * br * bc, io.exps += br * bc;  // m~, P~, l~
      io.sram_reads += 3 * br * bc, io.sram_writes += br * bc;
      io.flops += 2 * br * bc * d, io.sram_reads += br * bc + bc * d;  // P~_ij V_j
      io.flops += 6 * br + 5 * br * d, io.exps += 2 * br, io.sram_reads += br * d;  // merge, rescale
      io.hbm_writes += br * d + 2 * br;  // O_i, l_i, m_i back to HBM
    }
  }
  return io;
}

IoCounters io_attn_tiled_v2(const Resolved& r) {  // FA-2: Q_i outer; K_j, V_j inner
  const u64 d = static_cast<u64>(r.d);
  const bool is_scaled = r.scale != 1.0;
  const Mask mask = Mask::of(r);
  IoCounters io;
  for (int i = 0; i < r.Tr; ++i) {
    const int r0 = i * r.Br;
    const u64 br = static_cast<u64>(std::min(r.Br, r.n - r0));
    io.hbm_reads += br * d, io.sram_writes += br * d;  // Q_i
    for (int j = 0; j < r.Tc; ++j) {
      const int c0 = j * r.Bc;
      const u64 bc = static_cast<u64>(std::min(r.Bc, r.n - c0));
      if (mask.tile(r0, static_cast<int>(br), c0, static_cast<int>(bc)) == TileKind::empty) continue;
      io.hbm_reads += 2 * bc * d, io.sram_writes += 2 * bc * d;  // K_j, V_j
      add_scores(io, br, bc, d, is_scaled);
      io.flops += 3 * br * bc + 4 * br, io.exps += br * bc + br;  // m, P~, l
      io.sram_reads += 3 * br * bc, io.sram_writes += br * bc;
      io.flops += 2 * br * bc * d + 2 * br * d, io.sram_reads += br * bc + bc * d;  // O_i update
    }
    io.flops += br * d + 2 * br, io.sram_reads += br * d + 2 * br;  // divide once, L_i
    io.hbm_writes += br * d + br;                                   // O_i, L_i
  }
  return io;
}

IoCounters io_attn_backward(const Resolved& r) {  // attn-naive's forward, then four matmuls through HBM
  IoCounters io = io_attn_naive(r);
  const u64 N = static_cast<u64>(r.n), d = static_cast<u64>(r.d), s = scaled(r);
  io.hbm_reads += N * N + N * d, io.flops += 2 * N * N * d, io.hbm_writes += N * d;          // dV = Pᵀ dO
  io.hbm_reads += N * d + N * d, io.flops += 2 * N * N * d, io.hbm_writes += N * N;          // dP = dO Vᵀ
  io.hbm_reads += 2 * N * d, io.flops += 2 * N * d, io.hbm_writes += N;                      // D
  io.hbm_reads += 2 * N * N + N, io.flops += 2 * N * N, io.hbm_writes += N * N;              // dS
  io.hbm_reads += N * N + N * d, io.flops += 2 * N * N * d + s * N * d, io.hbm_writes += N * d;  // dQ
  io.hbm_reads += N * N + N * d, io.flops += 2 * N * N * d + s * N * d, io.hbm_writes += N * d;  // dK
  return io;
}

IoCounters io_attn_flash_backward(const Resolved& r) {  // FA-2's forward, then Algorithm 2
  IoCounters io = io_attn_tiled_v2(r);
  const u64 N = static_cast<u64>(r.n), d = static_cast<u64>(r.d);
  const bool is_scaled = r.scale != 1.0;
  const Mask mask = Mask::of(r);
  io.hbm_reads += 2 * N * d, io.flops += 2 * N * d, io.hbm_writes += N;  // D = rowsum(dO ∘ O)
  for (int j = 0; j < r.Tc; ++j) {
    const int c0 = j * r.Bc;
    const u64 bc = static_cast<u64>(std::min(r.Bc, r.n - c0));
    io.hbm_reads += 2 * bc * d, io.sram_writes += 4 * bc * d;  // K_j, V_j; dK_j = dV_j = 0
    for (int i = 0; i < r.Tr; ++i) {
      const int r0 = i * r.Br;
      const u64 br = static_cast<u64>(std::min(r.Br, r.n - r0));
      if (mask.tile(r0, static_cast<int>(br), c0, static_cast<int>(bc)) == TileKind::empty) continue;
      io.hbm_reads += 3 * br * d + 2 * br, io.sram_writes += 3 * br * d + 2 * br;  // Q_i, dO_i, dQ_i, L_i, D_i
      add_scores(io, br, bc, d, is_scaled);                                        // S_ij recomputed
      io.flops += br * bc, io.exps += br * bc, io.sram_reads += br * bc + br, io.sram_writes += br * bc;  // P_ij
      io.flops += 2 * br * bc * d + bc * d, io.sram_reads += br * bc + br * d + bc * d, io.sram_writes += bc * d;  // dV_j
      io.flops += 2 * br * bc * d, io.sram_reads += br * d + bc * d, io.sram_writes += br * bc;  // dP_ij
      io.flops += 2 * br * bc, io.sram_reads += 2 * br * bc + br, io.sram_writes += br * bc;    // dS_ij
      io.flops += 2 * br * bc * d + (is_scaled ? br * d : 0) + br * d;                           // dQ_i
      io.sram_reads += br * bc + bc * d + br * d, io.hbm_writes += br * d;
      io.flops += 2 * br * bc * d + (is_scaled ? bc * d : 0) + bc * d;                           // dK_j
      io.sram_reads += br * bc + br * d + bc * d, io.sram_writes += bc * d;
    }
    io.sram_reads += 2 * bc * d, io.hbm_writes += 2 * bc * d;  // dK_j, dV_j to HBM
  }
  return io;
}

IoCounters expected_io(const Resolved& r) { return info(r.scenario.algorithm).io(r); }

}  // namespace flashstep
