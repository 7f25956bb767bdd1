// What the attention lessons say at every step, for every backend: the CPU engine
// (core/attention.cpp) and the GPU recorders (gpu/attention_gpu.cpp, gpu/tiled_gpu.cpp) compute,
// then hand their numbers to a builder here, which counts the step's IO (in every mode), writes
// the cells it changed and commits the Step: pass, pseudocode lines, row or tile, label, the
// sentence with the numbers, the regions read and written. One narration for both backends, so
// they cannot tell different stories.
//
// Step::line indexes the algorithm's pseudocode (its row in core/algorithms.cpp).
// Whole rows and tiles (S_ij, P̃_ij, O_i, m_i, l_i) arrive as BlockViews: the CPU engine's
// matrices in T and the GPU's float traces read alike, as doubles. Indices are 0-based; the
// sentences count from 1, as the papers do.
#pragma once

#include "core/precision.h"
#include "core/recorder.h"

#include <cstddef>
#include <string>

namespace flashstep {

// A read-only rows × cols view of row-major numbers of any scalar type, row k starting at
// data + k · stride. An empty view (BlockView{}) stands for values a backend did not keep (its
// traces when no steps are recorded); builders read it only when steps are kept.
class BlockView {
 public:
  BlockView() = default;
  template <class T>
  BlockView(const T* data, int rows, int cols, std::ptrdiff_t stride)
      : data_(data), at_(&read<T>), rows_(rows), cols_(cols), stride_(stride) {}

  double operator()(int r, int c) const { return at_(data_, r * stride_ + c); }
  int rows() const { return rows_; }
  int cols() const { return cols_; }

 private:
  template <class T>
  static double read(const void* p, std::ptrdiff_t k) {
    return to_double(static_cast<const T*>(p)[k]);
  }
  const void* data_ = nullptr;
  double (*at_)(const void*, std::ptrdiff_t) = nullptr;
  int rows_ = 0, cols_ = 0;
  std::ptrdiff_t stride_ = 0;
};

// What every attention algorithm shares: Q, K, V (with their contents) and O in HBM.
class AttnNarration {
 public:
  AttnNarration(const Resolved& r, Recorder& rec);

  // The output O (N × d) and the final m, l of every row (N × 1 each).
  void finish(const BlockView& O, const BlockView& m, const BlockView& l);

 protected:
  // The flops of S = Q[rows] K[cols]ᵀ · s for an nr × nc block.
  void scores_io(long long nr, long long nc);
  // Writes buffer b's rows [r0, r0 + M.rows()) × cols [c0, c0 + M.cols()) from M.
  void write_block(int b, int r0, int c0, const BlockView& M);
  void set_output(int r0, const BlockView& O);
  // The work both tiled loop orders do for a br × bc tile: S_ij = Q_i K_jᵀ · s, its row max,
  // exp and sum (P̃_ij), and P̃_ij V_j, all on chip.
  void tile_io(int br, int bc);
  // " · 0.5": the score scale s as the sentences print it after Q_i K_jᵀ, or "" when s = 1.
  std::string scale_text() const;
  static Region rows_of(int b, int r0, int nr, int cols) { return {b, r0, 0, r0 + nr, cols}; }
  // "[0.1, 0.2, 0.3, 0.4, …]": the first entries of row r of M.
  static std::string list(const BlockView& M, int r = 0, int max_items = 4);

  const Resolved& r_;
  Recorder& rec_;
  const int N, d;
  const bool scaled_;
  int bQ_, bK_, bV_, bO_;
};

// attn-naive: three kernels through S and P materialized in HBM.
class AttnNaiveNarration : public AttnNarration {
 public:
  AttnNaiveNarration(const Resolved& r, Recorder& rec);
  // Kernel 1: row i of S = Q Kᵀ · s (1 × N, masked) written to HBM.
  void scores_row(int i, const BlockView& S_row);
  // Kernel 2: row i of P = softmax(S) with its max m and sum l.
  void softmax_row(int i, double m, double l, const BlockView& P_row);
  // Kernel 3: row i of O = P V.
  void output_row(int i, const BlockView& O_row);

 private:
  int bS_, bP_, bm_, bl_;
};

// The numbers of one key folded into a query row's running (m, l, o).
struct AttnOnlineNumbers {
  double s, m_old, l_old, m, l, factor, e;
};

// attn-online: one query row at a time, a running (m, l, o) over the keys.
class AttnOnlineNarration : public AttnNarration {
 public:
  AttnOnlineNarration(const Resolved& r, Recorder& rec);
  // q_i read; m = -inf, l = 0, o = 0.
  void start_row(int i);
  // Key j: s = q_i · k_j, (m, l) updated, o (1 × d) rescaled and e v_j added.
  void key(int i, int j, const AttnOnlineNumbers& u, const BlockView& o);
  // O_i = o / l (1 × d) written to HBM; m, l are the row's final statistics.
  void finish_row(int i, double m, double l, const BlockView& O_row);

 private:
  int bS_, bm_, bl_, bacc_;
};

// The first row of a tile, which the sentence follows: its (m, l) before and after the tile and
// the tile's own statistics (FlashAttention-1: m̃, l̃ of the tile alone; FlashAttention-2: the
// rescale factor exp(m_old - m)).
struct TileRowNumbers {
  double m_old, l_old, m, l;
  double m_tilde = 0, l_tilde = 0, factor = 0;
};

// attn-tiled (FlashAttention-1): outer loop over K/V blocks j, inner over Q blocks i; m, l and
// O_i live in HBM and are read and written back at every tile.
class AttnTiledNarration : public AttnNarration {
 public:
  AttnTiledNarration(const Resolved& r, Recorder& rec);
  // Tile (i, j), br × bc. load_kv: the first tile of column j, which brings K_j, V_j to SRAM.
  // S, P are br × bc; O is br × d (O_i after the tile); m, l are br × 1.
  void tile(int i, int j, bool load_kv, const TileRowNumbers& first, const BlockView& S,
            const BlockView& P, const BlockView& O, const BlockView& m, const BlockView& l);

 private:
  int bS_, bP_, bm_, bl_;
};

// attn-tiled-v2 (FlashAttention-2): outer loop over Q blocks i, inner over K/V blocks j; m_i,
// l_i and the unnormalized O_i stay on chip, O_i is divided once and written with L_i.
class AttnTiledV2Narration : public AttnNarration {
 public:
  AttnTiledV2Narration(const Resolved& r, Recorder& rec);
  // Q_i into SRAM; m = -inf, l = 0, O_acc = 0 on chip.
  void start_block(int i);
  // Tile (i, j): S, P are br × bc, O_acc br × d, m, l br × 1, all after the tile.
  void tile(int i, int j, const TileRowNumbers& first, const BlockView& S, const BlockView& P,
            const BlockView& O_acc, const BlockView& m, const BlockView& l);
  // O_i = diag(l)^-1 O_acc (br × d) and L_i = m + log l (br × 1) written to HBM.
  void finish_block(int i, const BlockView& O, const BlockView& m, const BlockView& l,
                    const BlockView& L);

 private:
  int bS_, bP_, bm_, bl_, bacc_, bL_;
  bool block_start_ = false;  // the next tile is its Q block's first: lines 3-4 (Q_i loaded, O_i, l_i, m_i set) are its own
};

}  // namespace flashstep
