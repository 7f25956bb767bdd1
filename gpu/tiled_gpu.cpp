// attn-tiled (FlashAttention-1, shaders/attn_tiled.comp: one dispatch per K/V block j, the
// paper's outer loop) and attn-tiled-v2 (FlashAttention-2, shaders/attn_tiled_v2.comp: one
// dispatch, the loop over j inside it) on the GPU: one workgroup per Q block, K_j and V_j in
// shared memory. The shaders trace every tile they run (which (i, j), S_ij, P~_ij, m, l and O_i
// after it); this file replays the tiles in the paper's loop order, and core's attention
// narration turns their numbers into the Steps of core/attention.cpp. A tile the GPU did not run
// has no step, so a GPU that skipped or added tiles would show up as a different step sequence.
#include "gpu/attention_run.h"

#include <algorithm>

namespace flashstep::gpu {
namespace {

// The traces both tiled shaders write, bound at 5..9 (see the shaders' headers).
struct TileTraces {
  Buffer S, P, O, ML, tiles;
  std::vector<float> S_host, P_host, O_host, ML_host;
  std::vector<int> visited;  // (Tr, Tc): > 0 when the GPU ran tile (i, j)

  TileTraces(const AttnGpuRun& a, const Resolved& r)
      : S(a.trace_buffer("the S trace (N x N floats)", AttnGpuRun::cells(a.N, a.N))),
        P(a.trace_buffer("the P trace (N x N floats)", AttnGpuRun::cells(a.N, a.N))),
        O(a.trace_buffer("the O trace (Tc x N x d floats)", AttnGpuRun::cells(r.Tc, a.N) * a.d)),
        ML(a.trace_buffer("the m, l trace (Tc x N x 4 floats)", AttnGpuRun::cells(r.Tc, a.N) * 4)),
        tiles(a.k.buffer("the tile list", AttnGpuRun::cells(r.Tr, r.Tc) * 4)) {}

  void bind() const {
    S.bind(5);
    P.bind(6);
    O.bind(7);
    ML.bind(8);
    tiles.bind(9);
  }
  void read(const AttnGpuRun& a, const Resolved& r) {
    S_host = a.read(S, AttnGpuRun::cells(a.N, a.N));
    P_host = a.read(P, AttnGpuRun::cells(a.N, a.N));
    O_host = a.read(O, AttnGpuRun::cells(r.Tc, a.N) * a.d);
    ML_host = a.read(ML, AttnGpuRun::cells(r.Tc, a.N) * 4);
    visited = tiles.read<int>(AttnGpuRun::cells(r.Tr, r.Tc));
  }
  bool ran(const Resolved& r, int i, int j) const { return visited[AttnGpuRun::cells(i, r.Tc) + j] > 0; }
  // Every row finished every tile its workgroup ran; `tiles_done(row)` is the row's own count.
  template <class F>
  void check_rows(const Resolved& r, const char* algo, F tiles_done) const {
    for (int i = 0; i < r.Tr; ++i) {
      int ran_tiles = 0;
      for (int j = 0; j < r.Tc; ++j) ran_tiles += ran(r, i, j) ? 1 : 0;
      for (int row = i * r.Br; row < std::min(r.n, (i + 1) * r.Br); ++row)
        if (tiles_done(row) != ran_tiles)
          stopped_early(strf("%s (Q block %d)", algo, i + 1), "use a smaller N or larger blocks");
    }
  }
  // Entry `field` (0: m, 1: l, then the tile's m~, l~ or rescale factor) of row `row` after
  // tile column j.
  std::size_t ml_at(int N, int j, int row, int field) const { return (AttnGpuRun::cells(j, N) + row) * 4 + field; }
  double ml(int N, int j, int row, int field) const { return ML_host[ml_at(N, j, row, field)]; }
  // Rows [r0, r0 + br) of what tile (i, j) left: S_ij and P~_ij (br x bc), O_i (br x d), and
  // m_i, l_i (br x 1); empty when no steps are kept.
  BlockView S_of(int N, int r0, int br, int c0, int bc) const {
    return AttnGpuRun::view(S_host, AttnGpuRun::cells(r0, N) + c0, br, bc, N);
  }
  BlockView P_of(int N, int r0, int br, int c0, int bc) const {
    return AttnGpuRun::view(P_host, AttnGpuRun::cells(r0, N) + c0, br, bc, N);
  }
  BlockView O_of(int N, int d, int j, int r0, int br) const {
    return AttnGpuRun::view(O_host, (AttnGpuRun::cells(j, N) + r0) * d, br, d, d);
  }
  BlockView ml_of(int N, int j, int r0, int br, int field) const {
    return AttnGpuRun::view(ML_host, ml_at(N, j, r0, field), br, 1, 4);
  }
};

const Program& tiled_program(AttnGpuRun& a, const Resolved& r, const char* shader) {
  Defines d = a.defines(a.rec.on());
  d.push_back({"BR", std::to_string(r.Br)});
  d.push_back({"BC", std::to_string(r.Bc)});
  return a.k.program(shader, d);
}

void set_tiled_uniforms(const Program& p, const Resolved& r) {
  p.use();
  p.set("N", r.n);
  p.set("Tr", r.Tr);
  p.set("Tc", r.Tc);
  p.set("s", scale_of(r));
}

}  // namespace

// FlashAttention-1: outer loop over K/V blocks j, inner loop over Q blocks i; m, l and O_i live
// in HBM and are read and written back at every inner step.
void gpu_attn_tiled(Kernels& k, const Resolved& r, Recorder& rec) {
  AttnTiledNarration say(r, rec);
  AttnGpuRun a(k, r, rec);
  const int N = a.N, d = a.d, Br = r.Br, Bc = r.Bc, Tr = r.Tr, Tc = r.Tc;

  // Line 2: O = 0, l = 0, m = -inf in HBM.
  std::vector<float> ml_init(AttnGpuRun::cells(N, 4));
  for (int i = 0; i < N; ++i) ml_init[i * 4u] = -static_cast<float>(kInf);
  const Buffer ML = k.buffer("m, l (N x 4 floats)", ml_init);
  TileTraces tr(a, r);
  const Program& p = tiled_program(a, r, "attn_tiled.comp");
  {
    GpuTimer::Scope timing(k.timer());
    set_tiled_uniforms(p, r);
    a.Q.bind(0);
    a.K.bind(1);
    a.V.bind(2);
    a.O.bind(3);
    ML.bind(4);
    tr.bind();
    // The paper's outer loop, on the host: one dispatch per K/V block, its Q blocks in parallel.
    for (int j = 0; j < Tc; ++j) {
      p.set("j", j);
      dispatch(Tr);
    }
  }
  tr.read(a, r);
  const auto ml_final = ML.read<float>(AttnGpuRun::cells(N, 4));
  tr.check_rows(r, "attn-tiled", [&](int row) { return static_cast<int>(ml_final[row * 4u + 2]); });

  // m, l of the first row of each Q block as the steps have seen them: the sentence names them
  // before and after each tile.
  std::vector<double> m(static_cast<std::size_t>(N), -kInf), l(static_cast<std::size_t>(N), 0.0);
  for (int j = 0; j < Tc; ++j) {
    const int c0 = j * Bc, bc = std::min(Bc, N - c0);
    bool kv_loaded = false;  // line 6: K_j, V_j stay in SRAM for the whole inner loop
    for (int i = 0; i < Tr; ++i) {
      const int r0 = i * Br, br = std::min(Br, N - r0);
      if (!tr.ran(r, i, j)) continue;  // every score of the tile is masked
      TileRowNumbers first{m[r0], l[r0], 0, 0};
      if (rec.on()) {
        m[r0] = tr.ml(N, j, r0, 0);
        l[r0] = tr.ml(N, j, r0, 1);
        first.m = m[r0], first.l = l[r0];
        first.m_tilde = tr.ml(N, j, r0, 2), first.l_tilde = tr.ml(N, j, r0, 3);
      }
      say.tile(i, j, !kv_loaded, first, tr.S_of(N, r0, br, c0, bc), tr.P_of(N, r0, br, c0, bc),
               tr.O_of(N, d, j, r0, br), tr.ml_of(N, j, r0, br, 0), tr.ml_of(N, j, r0, br, 1));
      kv_loaded = true;
    }
  }
  const auto O_final = a.O.read<float>(AttnGpuRun::cells(N, d));
  say.finish(AttnGpuRun::view(O_final, 0, N, d, d), AttnGpuRun::view(ml_final, 0, N, 1, 4),
             AttnGpuRun::view(ml_final, 1, N, 1, 4));
}

// FlashAttention-2: outer loop over Q blocks i, inner over K/V blocks j. m_i, l_i and the
// unnormalized O_i stay on chip for the whole inner loop; O_i is divided by l_i once at the
// end and written with L_i = m_i + log l_i.
void gpu_attn_tiled_v2(Kernels& k, const Resolved& r, Recorder& rec) {
  AttnTiledV2Narration say(r, rec);
  AttnGpuRun a(k, r, rec);
  const int N = a.N, d = a.d, Br = r.Br, Bc = r.Bc, Tr = r.Tr, Tc = r.Tc;

  const Buffer stats = k.buffer("the row statistics", AttnGpuRun::cells(N, 4) * 4);
  TileTraces tr(a, r);
  const Program& p = tiled_program(a, r, "attn_tiled_v2.comp");
  {
    GpuTimer::Scope timing(k.timer());
    set_tiled_uniforms(p, r);
    a.Q.bind(0);
    a.K.bind(1);
    a.V.bind(2);
    a.O.bind(3);
    stats.bind(4);
    tr.bind();
    dispatch(Tr);
  }
  tr.read(a, r);
  const auto st_final = stats.read<float>(AttnGpuRun::cells(N, 4));
  tr.check_rows(r, "attn-tiled-v2", [&](int row) { return static_cast<int>(st_final[row * 4u + 3]); });
  const auto O_host = a.O.read<float>(AttnGpuRun::cells(N, d));

  for (int i = 0; i < Tr; ++i) {
    const int r0 = i * Br, br = std::min(Br, N - r0);
    // Lines 3-4: Q_i into SRAM; O_i, l_i, m_i start on chip.
    say.start_block(i);
    double m_first = -kInf, l_first = 0.0;
    for (int j = 0; j < Tc; ++j) {
      const int c0 = j * Bc, bc = std::min(Bc, N - c0);
      if (!tr.ran(r, i, j)) continue;  // fully masked: the workgroup stopped before it
      // Line 6: K_j, V_j. Line 7: S_ij. Lines 8-9: m, P~, l. Line 10: O_i(j).
      TileRowNumbers first{m_first, l_first, 0, 0};
      if (rec.on()) {
        m_first = tr.ml(N, j, r0, 0);
        l_first = tr.ml(N, j, r0, 1);
        first.m = m_first, first.l = l_first, first.factor = tr.ml(N, j, r0, 2);
      }
      say.tile(i, j, first, tr.S_of(N, r0, br, c0, bc), tr.P_of(N, r0, br, c0, bc),
               tr.O_of(N, d, j, r0, br), tr.ml_of(N, j, r0, br, 0), tr.ml_of(N, j, r0, br, 1));
    }
    // Lines 11-13: divide once, log-sum-exp, write O_i and L_i.
    const std::size_t at = AttnGpuRun::cells(r0, 4);
    say.finish_block(i, AttnGpuRun::view(O_host, AttnGpuRun::cells(r0, d), br, d, d),
                     AttnGpuRun::view(st_final, at, br, 1, 4), AttnGpuRun::view(st_final, at + 1, br, 1, 4),
                     AttnGpuRun::view(st_final, at + 2, br, 1, 4));
  }
}

}  // namespace flashstep::gpu
