#include "core/io_model.h"

#include "core/engine.h"

#include <algorithm>

namespace flashstep {
namespace {

using u64 = std::uint64_t;

IoCounters softmax_io(const Resolved& r) {
  const u64 n = static_cast<u64>(r.n), rows = static_cast<u64>(r.rows);
  const u64 s = r.scale != 1.0 ? 1 : 0;  // one multiply per element loaded when scaled
  IoCounters io;
  switch (r.scenario.algorithm) {
    case Algorithm::naive:  // 1. sum  2. normalize
      io.hbm_reads = 2 * n, io.flops = 2 * n + 2 * n * s, io.exps = 2 * n;
      break;
    case Algorithm::safe:  // 1. max  2. sum  3. normalize
      io.hbm_reads = 3 * n, io.flops = 5 * n + 3 * n * s, io.exps = 2 * n;
      break;
    case Algorithm::online:  // 1. (m, l): max, 2 subtractions, multiply, add  2. normalize
      io.hbm_reads = 2 * n, io.flops = 7 * n + 2 * n * s, io.exps = 3 * n;
      break;
    case Algorithm::logsumexp:  // 1. (m, l)  LSE = m + log l  2. x - LSE
      io.hbm_reads = 2 * n, io.flops = 6 * n + 2 + 2 * n * s, io.exps = 2 * n;
      break;
    case Algorithm::chunked: {
      const u64 K = static_cast<u64>(r.chunks);
      io.hbm_reads = 2 * n, io.flops = 7 * n + 2 * n * s, io.exps = 3 * n;
      io.sram_writes = 2 * n;  // each worker's (m, l) after every element
      for (const MergeNode& node : merge_tree(r.chunks)) {
        if (node.left < 0) continue;  // a leaf
        if (node.right < 0) {         // carried up
          io.sram_reads += 2, io.sram_writes += 2;
        } else {
          io.sram_reads += 4, io.sram_writes += 2, io.flops += 6, io.exps += 2;
        }
      }
      io.sram_reads += 2 * K;  // every worker reads the global (m, l)
      break;
    }
    default: break;
  }
  io.hbm_writes = n;
  io.hbm_reads *= rows, io.hbm_writes *= rows, io.sram_reads *= rows, io.sram_writes *= rows;
  io.flops *= rows, io.exps *= rows;
  return io;
}

// Counts of one tile S_ij (br × bc) computed on chip: the score product and its scale.
void add_scores(IoCounters& io, u64 br, u64 bc, u64 d, bool scaled) {
  io.flops += 2 * br * bc * d + (scaled ? br * bc : 0);
  io.sram_reads += (br + bc) * d;
  io.sram_writes += br * bc;
}

IoCounters attention_io(const Resolved& r) {
  const u64 N = static_cast<u64>(r.n), d = static_cast<u64>(r.d);
  const bool scaled = r.scale != 1.0, causal = r.scenario.causal;
  IoCounters io;
  switch (r.scenario.algorithm) {
    case Algorithm::attn_naive:
      io.hbm_reads = 3 * N * d + 2 * N * N;
      io.hbm_writes = 2 * N * N + N * d;
      io.flops = 4 * N * N * d + (scaled ? N * N : 0) + 4 * N * N;
      io.exps = N * N;
      break;
    case Algorithm::attn_online:
      for (u64 i = 0; i < N; ++i) {
        const u64 keys = causal ? i + 1 : N;
        io.hbm_reads += d + 2 * d * keys;
        io.flops += keys * (2 * d + (scaled ? 1 : 0) + 3 * d + 6) + d;
        io.exps += 2 * keys;
        io.hbm_writes += d;
      }
      break;
    case Algorithm::attn_tiled:
      for (int j = 0; j < r.Tc; ++j) {
        const int c0 = j * r.Bc;
        const u64 bc = static_cast<u64>(std::min(r.Bc, r.n - c0));
        bool kv_loaded = false;
        for (int i = 0; i < r.Tr; ++i) {
          const int r0 = i * r.Br;
          const u64 br = static_cast<u64>(std::min(r.Br, r.n - r0));
          if (causal && c0 > r0 + static_cast<int>(br) - 1) continue;
          if (!kv_loaded) io.hbm_reads += 2 * bc * d, io.sram_writes += 2 * bc * d, kv_loaded = true;
          io.hbm_reads += 2 * br * d + 2 * br, io.sram_writes += 2 * br * d + 2 * br;  // Q_i, O_i, l_i, m_i
          add_scores(io, br, bc, d, scaled);
          io.flops += 3 * br * bc, io.exps += br * bc;  // m~, P~, l~
          io.sram_reads += 3 * br * bc, io.sram_writes += br * bc;
          io.flops += 2 * br * bc * d, io.sram_reads += br * bc + bc * d;  // P~_ij V_j
          io.flops += 6 * br + 5 * br * d, io.exps += 2 * br, io.sram_reads += br * d;  // merge, rescale
          io.hbm_writes += br * d + 2 * br;  // O_i, l_i, m_i back to HBM
        }
      }
      break;
    case Algorithm::attn_tiled_v2:
      for (int i = 0; i < r.Tr; ++i) {
        const int r0 = i * r.Br;
        const u64 br = static_cast<u64>(std::min(r.Br, r.n - r0));
        io.hbm_reads += br * d, io.sram_writes += br * d;  // Q_i
        for (int j = 0; j < r.Tc; ++j) {
          const int c0 = j * r.Bc;
          const u64 bc = static_cast<u64>(std::min(r.Bc, r.n - c0));
          if (causal && c0 > r0 + static_cast<int>(br) - 1) break;
          io.hbm_reads += 2 * bc * d, io.sram_writes += 2 * bc * d;  // K_j, V_j
          add_scores(io, br, bc, d, scaled);
          io.flops += 3 * br * bc + 4 * br, io.exps += br * bc + br;  // m, P~, l
          io.sram_reads += 3 * br * bc, io.sram_writes += br * bc;
          io.flops += 2 * br * bc * d + 2 * br * d, io.sram_reads += br * bc + bc * d;  // O_i update
        }
        io.flops += br * d + 2 * br, io.sram_reads += br * d + 2 * br;  // divide once, L_i
        io.hbm_writes += br * d + br;                                   // O_i, L_i
      }
      break;
    default: break;
  }
  return io;
}

}  // namespace

IoCounters expected_io(const Resolved& r) {
  return is_attention(r.scenario.algorithm) ? attention_io(r) : softmax_io(r);
}

}  // namespace flashstep
