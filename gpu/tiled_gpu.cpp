// attn-tiled (FlashAttention-1, shaders/attn_tiled.comp: one dispatch per K/V block j, the
// paper's outer loop) and attn-tiled-v2 (FlashAttention-2, shaders/attn_tiled_v2.comp: one
// dispatch, the loop over j inside it) on the GPU: one workgroup per Q block, K_j and V_j in
// shared memory. The shaders trace every tile they run (which (i, j), S_ij, P~_ij, m, l and O_i
// after it); this file replays the tiles in the paper's loop order as the Steps of
// core/attention.cpp. A tile the GPU did not run has no step, so a GPU that skipped or added
// tiles would show up as a different step sequence.
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
  // Entry `field` of row `row` after tile column j.
  double ml(int N, int j, int row, int field) const { return ML_host[(AttnGpuRun::cells(j, N) + row) * 4 + field]; }
  const float* O_after(int N, int d, int j) const { return &O_host[AttnGpuRun::cells(j, N) * d]; }
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
  AttnGpuRun a(k, r, rec);
  const int N = a.N, d = a.d, Br = r.Br, Bc = r.Bc, Tr = r.Tr, Tc = r.Tc;
  const int bS = rec.add_buffer({"S", N, N, Space::sram, "S_ij tiles as computed on chip (never in HBM)"});
  const int bP = rec.add_buffer({"P", N, N, Space::sram, "P~_ij = exp(S_ij - m~_ij) tiles as computed on chip"});
  const int bm = rec.add_buffer({"m", N, 1, Space::hbm, "running max m_i of each row, kept in HBM"});
  const int bl = rec.add_buffer({"l", N, 1, Space::hbm, "running sum l_i of each row, kept in HBM"});
  auto& names = rec.recording().pass_names;
  for (int j = 0; j < Tc; ++j) names.push_back(strf("K/V block j = %d", j + 1));

  // Line 2: O = 0, l = 0, m = -inf in HBM.
  std::vector<float> ml_init(AttnGpuRun::cells(N, 4));
  std::vector<double> m(static_cast<std::size_t>(N), -kInf), l(static_cast<std::size_t>(N), 0.0);
  for (int i = 0; i < N; ++i) {
    ml_init[i * 4u] = -static_cast<float>(kInf);
    rec.init(bm, i, 0, -kInf);
    rec.init(bl, i, 0, 0.0);
    for (int c = 0; c < d; ++c) rec.init(a.bO, i, c, 0.0);
  }
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
  a.set_output(a.O.read<float>(AttnGpuRun::cells(N, d)));

  for (int j = 0; j < Tc; ++j) {
    const int c0 = j * Bc, bc = std::min(Bc, N - c0);
    bool kv_loaded = false;
    for (int i = 0; i < Tr; ++i) {
      const int r0 = i * Br, br = std::min(Br, N - r0);
      if (!tr.ran(r, i, j)) continue;  // every score of the tile is masked
      auto& io = rec.io();
      if (!kv_loaded) {  // line 6: K_j, V_j stay in SRAM for the whole inner loop
        io.hbm_reads += 2ull * bc * d;
        io.sram_writes += 2ull * bc * d;
        kv_loaded = true;
      }
      // Line 8: Q_i, O_i, l_i, m_i from HBM. Line 9: S_ij. Line 10: m~, P~, l~.
      io.hbm_reads += 2ull * br * d + 2ull * br;
      io.sram_writes += 2ull * br * d + 2ull * br;
      a.scores_io(br, bc);
      io.sram_reads += static_cast<std::uint64_t>(br + bc) * d;
      io.sram_writes += static_cast<std::uint64_t>(br) * bc;
      io.flops += 3ull * br * bc;
      io.exps += static_cast<std::uint64_t>(br) * bc;
      io.sram_reads += 3ull * br * bc;
      io.sram_writes += static_cast<std::uint64_t>(br) * bc;
      // Lines 11-13: merge with the running (m_i, l_i), rescale O_i, write all back.
      io.flops += 2ull * br * bc * d;
      io.sram_reads += static_cast<std::uint64_t>(br) * bc + static_cast<std::uint64_t>(bc) * d;
      io.flops += 6ull * br + 5ull * br * d;
      io.exps += 2ull * br;
      io.sram_reads += static_cast<std::uint64_t>(br) * d;
      io.hbm_writes += static_cast<std::uint64_t>(br) * d + 2ull * br;
      if (!rec.on()) continue;
      const double m_first_old = m[r0], l_first_old = l[r0];
      for (int a_ = 0; a_ < br; ++a_) {
        m[r0 + a_] = tr.ml(N, j, r0 + a_, 0);
        l[r0 + a_] = tr.ml(N, j, r0 + a_, 1);
      }
      const double mt = tr.ml(N, j, r0, 2), lt = tr.ml(N, j, r0, 3);
      a.write_block(bS, r0, br, c0, bc, tr.S_host.data(), N);
      a.write_block(bP, r0, br, c0, bc, tr.P_host.data(), N);
      a.write_block(a.bO, r0, br, 0, d, tr.O_after(N, d, j), d);
      for (int a_ = 0; a_ < br; ++a_) {
        rec.write(bm, r0 + a_, 0, m[r0 + a_]);
        rec.write(bl, r0 + a_, 0, l[r0 + a_]);
      }
      Step st;
      st.pass = j + 1, st.line = 8, st.line_end = 13, st.tile_i = i, st.tile_j = j;
      st.label = strf("tile (i=%d, j=%d)", i + 1, j + 1);
      st.text = strf("tile (i=%d, j=%d): S%d%d = Q%s K%s^T is %dx%d on chip. Row %d: m~ = %s, "
                     "m_new = max(%s, %s) = %s, l_new = exp(%s - %s) * %s + exp(%s - %s) * %s = %s; "
                     "O%s, l%s, m%s written back to HBM",
                     i + 1, j + 1, i + 1, j + 1, sub(i + 1).c_str(), sub(j + 1).c_str(), br, bc,
                     r0 + 1, num(mt).c_str(), num(m_first_old).c_str(), num(mt).c_str(),
                     num(m[r0]).c_str(), num(m_first_old).c_str(), num(m[r0]).c_str(),
                     num(l_first_old).c_str(), num(mt).c_str(), num(m[r0]).c_str(), num(lt).c_str(),
                     num(l[r0]).c_str(), sub(i + 1).c_str(), sub(i + 1).c_str(), sub(i + 1).c_str());
      st.reads = {{a.bK, c0, 0, c0 + bc, d}, {a.bV, c0, 0, c0 + bc, d}, {a.bQ, r0, 0, r0 + br, d},
                  {a.bO, r0, 0, r0 + br, d}, {bm, r0, 0, r0 + br, 1}, {bl, r0, 0, r0 + br, 1}};
      st.writes = {{bS, r0, c0, r0 + br, c0 + bc}, {bP, r0, c0, r0 + br, c0 + bc},
                   {a.bO, r0, 0, r0 + br, d}, {bm, r0, 0, r0 + br, 1}, {bl, r0, 0, r0 + br, 1}};
      rec.commit(std::move(st));
    }
  }
  for (int i = 0; i < N; ++i) {
    rec.recording().m[i] = ml_final[i * 4u];
    rec.recording().l[i] = ml_final[i * 4u + 1];
  }
}

// FlashAttention-2: outer loop over Q blocks i, inner over K/V blocks j. m_i, l_i and the
// unnormalized O_i stay on chip for the whole inner loop; O_i is divided by l_i once at the
// end and written with L_i = m_i + log l_i.
void gpu_attn_tiled_v2(Kernels& k, const Resolved& r, Recorder& rec) {
  AttnGpuRun a(k, r, rec);
  const int N = a.N, d = a.d, Br = r.Br, Bc = r.Bc, Tr = r.Tr, Tc = r.Tc;
  const int bS = rec.add_buffer({"S", N, N, Space::sram, "S_ij tiles as computed on chip (never in HBM)"});
  const int bP = rec.add_buffer({"P", N, N, Space::sram, "P~_ij = exp(S_ij - m_i(j)) tiles as computed on chip"});
  const int bm = rec.add_buffer({"m", N, 1, Space::sram, "running max m_i, on chip"});
  const int bl = rec.add_buffer({"l", N, 1, Space::sram, "running sum l_i, on chip"});
  const int bacc = rec.add_buffer({"O_acc", N, d, Space::sram, "unnormalized O_i(j), on chip"});
  const int bL = rec.add_buffer({"LSE", N, 1, Space::hbm, "L_i = m_i + log l_i, written to HBM for the backward pass"});
  auto& names = rec.recording().pass_names;
  for (int i = 0; i < Tr; ++i) names.push_back(strf("Q block i = %d", i + 1));
  rec.recording().lse.assign(static_cast<std::size_t>(N), 0.0);

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
  a.set_output(O_host);

  for (int i = 0; i < Tr; ++i) {
    const int r0 = i * Br, br = std::min(Br, N - r0);
    auto& io = rec.io();
    // Lines 3-4: Q_i into SRAM; O_i, l_i, m_i start on chip.
    io.hbm_reads += static_cast<std::uint64_t>(br) * d;
    io.sram_writes += static_cast<std::uint64_t>(br) * d;
    double m_first = -kInf, l_first = 0.0;
    if (rec.on())
      for (int a_ = 0; a_ < br; ++a_) {
        rec.write(bm, r0 + a_, 0, -kInf);
        rec.write(bl, r0 + a_, 0, 0.0);
        for (int c = 0; c < d; ++c) rec.write(bacc, r0 + a_, c, 0.0);
      }
    for (int j = 0; j < Tc; ++j) {
      const int c0 = j * Bc, bc = std::min(Bc, N - c0);
      if (!tr.ran(r, i, j)) continue;  // fully masked: the workgroup stopped before it
      // Line 6: K_j, V_j. Line 7: S_ij. Lines 8-9: m, P~, l. Line 10: O_i(j).
      io.hbm_reads += 2ull * bc * d;
      io.sram_writes += 2ull * bc * d;
      a.scores_io(br, bc);
      io.sram_reads += static_cast<std::uint64_t>(br + bc) * d;
      io.sram_writes += static_cast<std::uint64_t>(br) * bc;
      io.flops += 3ull * br * bc + 4ull * br;
      io.exps += static_cast<std::uint64_t>(br) * bc + br;
      io.sram_reads += 3ull * br * bc;
      io.sram_writes += static_cast<std::uint64_t>(br) * bc;
      io.flops += 2ull * br * bc * d + 2ull * br * d;
      io.sram_reads += static_cast<std::uint64_t>(br) * bc + static_cast<std::uint64_t>(bc) * d;
      if (!rec.on()) continue;
      const double m_first_old = m_first, l_first_old = l_first;
      m_first = tr.ml(N, j, r0, 0);
      l_first = tr.ml(N, j, r0, 1);
      a.write_block(bS, r0, br, c0, bc, tr.S_host.data(), N);
      a.write_block(bP, r0, br, c0, bc, tr.P_host.data(), N);
      a.write_block(bacc, r0, br, 0, d, tr.O_after(N, d, j), d);
      for (int a_ = 0; a_ < br; ++a_) {
        rec.write(bm, r0 + a_, 0, tr.ml(N, j, r0 + a_, 0));
        rec.write(bl, r0 + a_, 0, tr.ml(N, j, r0 + a_, 1));
      }
      Step st;
      st.pass = i + 1, st.line = 6, st.line_end = 10, st.tile_i = i, st.tile_j = j;
      st.label = strf("tile (i=%d, j=%d)", i + 1, j + 1);
      st.text = strf("tile (i=%d, j=%d): K%s, V%s loaded, S%d%d is %dx%d on chip. Row %d: m = max(%s, "
                     "rowmax S) = %s, l = exp(%s - %s) * %s + rowsum P~ = %s; O_i rescaled by %s "
                     "and P~V added, not yet divided",
                     i + 1, j + 1, sub(j + 1).c_str(), sub(j + 1).c_str(), i + 1, j + 1, br, bc,
                     r0 + 1, num(m_first_old).c_str(), num(m_first).c_str(),
                     num(m_first_old).c_str(), num(m_first).c_str(), num(l_first_old).c_str(),
                     num(l_first).c_str(), num(tr.ml(N, j, r0, 2)).c_str());
      st.reads = {{a.bK, c0, 0, c0 + bc, d}, {a.bV, c0, 0, c0 + bc, d}, {a.bQ, r0, 0, r0 + br, d}};
      st.writes = {{bS, r0, c0, r0 + br, c0 + bc}, {bP, r0, c0, r0 + br, c0 + bc},
                   {bacc, r0, 0, r0 + br, d}, {bm, r0, 0, r0 + br, 1}, {bl, r0, 0, r0 + br, 1}};
      rec.commit(std::move(st));
    }
    // Lines 11-13: divide once, log-sum-exp, write O_i and L_i.
    for (int a_ = 0; a_ < br; ++a_) {
      const std::size_t row = static_cast<std::size_t>(r0 + a_);
      rec.recording().lse[row] = st_final[row * 4 + 2];
      rec.recording().m[row] = st_final[row * 4];
      rec.recording().l[row] = st_final[row * 4 + 1];
      if (rec.on()) rec.write(bL, r0 + a_, 0, st_final[row * 4 + 2]);
    }
    io.flops += static_cast<std::uint64_t>(br) * d + 2ull * br;
    io.sram_reads += static_cast<std::uint64_t>(br) * d + 2ull * br;
    io.hbm_writes += static_cast<std::uint64_t>(br) * d + br;
    if (!rec.on()) continue;
    a.write_block(a.bO, r0, br, 0, d, O_host.data(), d);
    Step st;
    st.pass = i + 1, st.line = 11, st.line_end = 13, st.tile_i = i;
    st.label = strf("write O%d, L%d", i + 1, i + 1);
    st.text = strf("Q block %d done: O%s = diag(l)^-1 O_acc (row %d: divided by l = %s once), "
                   "L = m + log l = %s; O%s and L%s written to HBM",
                   i + 1, sub(i + 1).c_str(), r0 + 1, num(st_final[r0 * 4u + 1]).c_str(),
                   num(rec.recording().lse[r0]).c_str(), sub(i + 1).c_str(), sub(i + 1).c_str());
    st.reads = {{bacc, r0, 0, r0 + br, d}, {bm, r0, 0, r0 + br, 1}, {bl, r0, 0, r0 + br, 1}};
    st.writes = {{a.bO, r0, 0, r0 + br, d}, {bL, r0, 0, r0 + br, 1}};
    rec.commit(std::move(st));
  }
}

}  // namespace flashstep::gpu
