// The backward passes' kernels on the GPU (gpu/backward_run.h): attn-backward's four matmuls and
// its D, dS row kernel through P, dP and dS in HBM (shaders/attn_bwd_matmul.comp, attn_bwd_d.comp),
// and FlashAttention-2's backward (shaders/attn_bwd_d.comp, attn_flash_bwd_kv.comp,
// attn_flash_bwd_dq.comp): allocation, dispatch, read-back and the check that every tile ran.
// The recorders that narrate them are in backward_gpu.cpp.
#include "gpu/backward_run.h"

#include "core/mask.h"

#include <algorithm>

namespace flashstep::gpu {
namespace {

// A key row of the dK, dV pass visits every query row it sees, and a query row of the dQ pass
// every key: an invocation's loops grow with N whatever the blocks.
constexpr const char* kLoopHint = "use a smaller N";

// One batch's dO, D, dQ, dK, dV on the GPU.
GradBuffers grad_buffers(const AttnGpuRun& a, const AttnGpuRun::Batch& b, const std::vector<float>& dO) {
  const std::size_t Nd = AttnGpuRun::cells(a.N, a.d) * b.count;
  return {a.k.buffer("dO", dO), a.k.buffer("D", AttnGpuRun::cells(a.N, 2) * b.count * 4),
          a.k.buffer("dQ", Nd * 4), a.k.buffer("dK", Nd * 4), a.k.buffer("dV", Nd * 4), {}, {}, {}, {}};
}

void read_grads(const AttnGpuRun& a, const AttnGpuRun::Batch& b, GradBuffers& g) {
  const std::size_t Nd = AttnGpuRun::cells(a.N, a.d) * b.count;
  g.D_host = g.D.read<float>(AttnGpuRun::cells(a.N, 2) * b.count);
  g.dQ_host = g.dQ.read<float>(Nd);
  g.dK_host = g.dK.read<float>(Nd);
  g.dV_host = g.dV.read<float>(Nd);
}

// C = A B (· s), one of the standard backward's four matmuls (attn_bwd_matmul.comp's header).
struct Operand {
  const Buffer& buf;
  int row_or_k, k_or_col, head;  // A: (row, k) strides; B: (k, col) strides; then the head's
};
void matmul(const Program& p, const Buffer& C, int rows, int cols, int inner, const Operand& A, const Operand& B,
            bool times_s, int heads) {
  p.use();
  p.set("rows", rows);
  p.set("cols", cols);
  p.set("inner", inner);
  p.set("a_row", A.row_or_k);
  p.set("a_k", A.k_or_col);
  p.set("a_head", A.head);
  p.set("b_k", B.row_or_k);
  p.set("b_col", B.k_or_col);
  p.set("b_head", B.head);
  p.set("times_s", times_s ? 1 : 0);
  A.buf.bind(0);
  B.buf.bind(1);
  C.bind(2);
  dispatch(groups_for(cols, 16), groups_for(rows, 16), heads);
}

}  // namespace

// ---- attn-backward --------------------------------------------------------------------------

NaiveBackward::NaiveBackward(AttnGpuRun& a, const NaiveForward& forward, const std::vector<std::vector<float>>& dO)
    : a_(a), forward_(forward) {
  const std::size_t NN = AttnGpuRun::cells(a.N, a.N);
  const char* hint = "attn-backward keeps P, dP and dS whole (the N^2 memory the lesson is about); use a "
                     "smaller N or attn-flash-backward";
  for (std::size_t bi = 0; bi < a.batches.size(); ++bi) {
    const auto& b = a.batches[bi];
    grads_.push_back(grad_buffers(a, b, dO[bi]));
    dP_.push_back(a.k.buffer("dP (N x N floats)", NN * b.count * 4, nullptr, hint));
    dS_.push_back(a.k.buffer("dS (N x N floats)", NN * b.count * 4, nullptr, hint));
  }
}

void NaiveBackward::dispatch() {
  Kernels& k = a_.k;
  const int N = a_.N, d = a_.d, NN = N * N, Nd = N * d;
  const Program& mm = k.program("attn_bwd_matmul.comp", common_defines(a_.r, false));
  mm.use();
  mm.set("s", scale_of(a_.r));
  Defines dd = a_.defines(false);
  dd.push_back({"WITH_P", "1"});
  const Program& rows = k.program("attn_bwd_d.comp", dd);
  for (std::size_t bi = 0; bi < a_.batches.size(); ++bi) {
    const auto& b = a_.batches[bi];
    const GradBuffers& g = grads_[bi];
    const Buffer& P = forward_.P(bi);
    // 1. dV = Pᵀ dO: dV(j, c) = Σ_i P(i, j) dO(i, c).
    k.timer().phase("dV = PᵀdO");
    matmul(mm, g.dV, N, d, N, {P, 1, N, NN}, {g.dO, d, 1, Nd}, false, b.count);
    a_.dispatched();
    // 2. dP = dO Vᵀ: dP(i, j) = Σ_c dO(i, c) V(j, c).
    k.timer().phase("dP = dOVᵀ");
    matmul(mm, dP_[bi], N, N, d, {g.dO, d, 1, Nd}, {b.V, 1, d, Nd}, false, b.count);
    a_.dispatched();
    // 3-4. D = rowsum(dO ∘ O) = rowsum(P ∘ dP), dS = P ∘ (dP − D), one row per invocation.
    k.timer().phase("D, dS = P∘(dP−D)");
    rows.use();
    rows.set("N", N);
    g.dO.bind(0);
    b.O.bind(1);
    g.D.bind(2);
    P.bind(3);
    dP_[bi].bind(4);
    dS_[bi].bind(5);
    gpu::dispatch(groups_for(N, 64), b.count);
    a_.dispatched();
    // 5. dQ = s · dS K.
    k.timer().phase("dQ = s·dSK");
    matmul(mm, g.dQ, N, d, N, {dS_[bi], N, 1, NN}, {b.K, d, 1, Nd}, true, b.count);
    a_.dispatched();
    // 6. dK = s · dSᵀ Q.
    k.timer().phase("dK = s·dSᵀQ");
    matmul(mm, g.dK, N, d, N, {dS_[bi], 1, N, NN}, {b.Q, d, 1, Nd}, true, b.count);
    a_.dispatched();
  }
}

void NaiveBackward::read_back() {
  const std::size_t NN = AttnGpuRun::cells(a_.N, a_.N);
  dP_host_ = a_.read(dP_[0], NN);
  dS_host_ = a_.read(dS_[0], NN);
  for (std::size_t bi = 0; bi < a_.batches.size(); ++bi) read_grads(a_, a_.batches[bi], grads_[bi]);
}

// ---- attn-flash-backward --------------------------------------------------------------------

FlashBackward::FlashBackward(AttnGpuRun& a, const TiledV2Forward& forward, const std::vector<std::vector<float>>& dO)
    : a_(a), forward_(forward),
      TS_(a.trace_buffer("the S trace (N x N floats)", AttnGpuRun::cells(a.N, a.N))),
      TP_(a.trace_buffer("the P trace (N x N floats)", AttnGpuRun::cells(a.N, a.N))),
      TdP_(a.trace_buffer("the dP trace (N x N floats)", AttnGpuRun::cells(a.N, a.N))),
      TdS_(a.trace_buffer("the dS trace (N x N floats)", AttnGpuRun::cells(a.N, a.N))),
      TdK_(a.trace_buffer("the dK trace (Tr x N x d floats)", AttnGpuRun::cells(a.r.Tr, a.N) * a.d)),
      TdV_(a.trace_buffer("the dV trace (Tr x N x d floats)", AttnGpuRun::cells(a.r.Tr, a.N) * a.d)),
      TdQ_(a.trace_buffer("the dQ trace (Tc x N x d floats)", AttnGpuRun::cells(a.r.Tc, a.N) * a.d)) {
  for (std::size_t bi = 0; bi < a.batches.size(); ++bi) {
    const auto& b = a.batches[bi];
    grads_.push_back(grad_buffers(a, b, dO[bi]));
    counts_.push_back({a.k.buffer("the key rows' tile counts", AttnGpuRun::cells(a.N, b.count) * 4),
                       a.k.buffer("the query rows' tile counts", AttnGpuRun::cells(a.N, b.count) * 4),
                       a.k.buffer("the tile list", AttnGpuRun::cells(a.r.Tr, a.r.Tc) * b.count * 4),
                       {}, {}, {}});
  }
}

void FlashBackward::dispatch() {
  Kernels& k = a_.k;
  const Resolved& r = a_.r;
  const int N = a_.N;
  const bool trace = a_.rec.on();
  const Program& dprog = k.program("attn_bwd_d.comp", a_.defines(false));
  Defines tiled = a_.defines(trace);
  tiled.push_back({"BR", std::to_string(r.Br)});
  tiled.push_back({"BC", std::to_string(r.Bc)});
  const Program& kv = k.program("attn_flash_bwd_kv.comp", tiled);
  const Program& dq = k.program("attn_flash_bwd_dq.comp", tiled);
  for (const Program* p : {&kv, &dq}) {
    p->use();
    p->set("N", N);
    p->set("Tr", r.Tr);
    p->set("Tc", r.Tc);
    p->set("s", scale_of(r));
  }
  for (std::size_t bi = 0; bi < a_.batches.size(); ++bi) {
    const auto& b = a_.batches[bi];
    const GradBuffers& g = grads_[bi];
    const Counts& c = counts_[bi];
    const Buffer& stats = forward_.stats(bi);
    // Line 1 (before the loops): D = rowsum(dO ∘ O), written to HBM.
    k.timer().phase("D = rowsum(dO∘O)");
    dprog.use();
    dprog.set("N", N);
    g.dO.bind(0);
    b.O.bind(1);
    g.D.bind(2);
    gpu::dispatch(groups_for(N, 64), b.count);
    a_.dispatched();
    // The paper's loops: K/V blocks outer (one workgroup each), Q blocks inner: dK_j, dV_j.
    k.timer().phase("dK, dV (K/V blocks outer)");
    kv.use();
    b.Q.bind(0);
    b.K.bind(1);
    b.V.bind(2);
    g.dO.bind(3);
    stats.bind(4);
    g.D.bind(5);
    g.dK.bind(6);
    g.dV.bind(7);
    c.kv_done.bind(8);
    c.tiles.bind(9);
    TS_.bind(10);
    TP_.bind(11);
    TdP_.bind(12);
    TdS_.bind(13);
    TdK_.bind(14);
    TdV_.bind(15);
    gpu::dispatch(r.Tc, b.count);
    a_.dispatched();
    // dQ in a pass of its own, Q blocks outer (attn_flash_bwd_dq.comp says why).
    k.timer().phase("dQ (Q blocks outer)");
    dq.use();
    b.Q.bind(0);
    b.K.bind(1);
    b.V.bind(2);
    g.dO.bind(3);
    stats.bind(4);
    g.D.bind(5);
    g.dQ.bind(6);
    c.q_done.bind(7);
    TdQ_.bind(8);
    gpu::dispatch(r.Tr, b.count);
    a_.dispatched();
  }
}

bool FlashBackward::ran(std::size_t batch, int h, int i, int j) const {
  const Resolved& r = a_.r;
  return counts_[batch].tiles_host[(AttnGpuRun::cells(h, r.Tc) + j) * r.Tr + i] > 0;
}

void FlashBackward::read_back() {
  const Resolved& r = a_.r;
  const int N = a_.N, d = a_.d;
  const std::size_t NN = AttnGpuRun::cells(N, N);
  traces_ = {a_.read(TS_, NN), a_.read(TP_, NN), a_.read(TdP_, NN), a_.read(TdS_, NN),
             a_.read(TdK_, AttnGpuRun::cells(r.Tr, N) * d), a_.read(TdV_, AttnGpuRun::cells(r.Tr, N) * d),
             a_.read(TdQ_, AttnGpuRun::cells(r.Tc, N) * d)};
  const Mask mask = Mask::of(r);
  for (std::size_t bi = 0; bi < a_.batches.size(); ++bi) {
    const auto& b = a_.batches[bi];
    read_grads(a_, b, grads_[bi]);
    Counts& c = counts_[bi];
    c.kv_host = c.kv_done.read<int>(AttnGpuRun::cells(N, b.count));
    c.q_host = c.q_done.read<int>(AttnGpuRun::cells(N, b.count));
    c.tiles_host = c.tiles.read<int>(AttnGpuRun::cells(r.Tr, r.Tc) * b.count);
    // Every tile with a visible score ran, in both passes: a key row counts the tiles of its
    // column j, a query row those of its row i. A driver that ended a shader's loops early
    // leaves a count short.
    for (int h = 0; h < b.count; ++h) {
      const std::string head = head_text(a_.H, b.h0 + h);
      const std::size_t row0 = AttnGpuRun::cells(h, N);
      for (int j = 0; j < r.Tc; ++j) {
        const int c0 = j * r.Bc, bc = std::min(r.Bc, N - c0);
        int live = 0;
        for (int i = 0; i < r.Tr; ++i) {
          const int r0 = i * r.Br;
          if (mask.tile(r0, std::min(r.Br, N - r0), c0, bc) == TileKind::empty) continue;
          ++live;
          if (!ran(bi, h, i, j))
            stopped_early(a_.k, strf("attn-flash-backward (%sK/V block %d)", head.c_str(), j + 1),
                          kLoopHint);
        }
        for (int col = c0; col < c0 + bc; ++col)
          if (c.kv_host[row0 + col] != live)
            stopped_early(a_.k, strf("attn-flash-backward (%sK/V block %d)", head.c_str(), j + 1),
                          kLoopHint);
      }
      for (int i = 0; i < r.Tr; ++i) {
        const int r0 = i * r.Br, br = std::min(r.Br, N - r0);
        int live = 0;
        for (int j = 0; j < r.Tc; ++j) {
          const int c0 = j * r.Bc;
          live += mask.tile(r0, br, c0, std::min(r.Bc, N - c0)) == TileKind::empty ? 0 : 1;
        }
        for (int row = r0; row < r0 + br; ++row)
          if (c.q_host[row0 + row] != live)
            stopped_early(a_.k, strf("attn-flash-backward's dQ pass (%sQ block %d)", head.c_str(), i + 1),
                          kLoopHint);
      }
    }
  }
}

// ---- the shaders' numbers alone ---------------------------------------------------------------

BackwardNumbers backward_numbers(Kernels& k, const Resolved& r, const std::vector<float>& dO, bool flash) {
  Recording recording;
  recording.keep_steps = false;
  Recorder recorder(recording, false);
  const HeadRecorders heads{&recorder};
  const int N = r.n, d = r.d;
  const double per_head = flash ? static_cast<double>(N) * std::max(d, 4) * 4
                                : static_cast<double>(std::max(AttnGpuRun::cells(N, N), AttnGpuRun::cells(N, d))) * 4;
  AttnGpuRun a(k, r, heads, per_head);
  BackwardNumbers out;
  if (flash) {
    TiledV2Forward forward(a);
    FlashBackward backward(a, forward, {dO});
    forward.dispatch();
    backward.dispatch();
    backward.read_back();
    const auto st = forward.stats(0).read<float>(AttnGpuRun::cells(N, 4));
    for (int i = 0; i < N; ++i) out.L.push_back(st[i * 4u + 2]);
    out.O = a.batches[0].O.read<float>(AttnGpuRun::cells(N, d));
    const GradBuffers& g = backward.grads(0);
    for (int i = 0; i < N; ++i) out.D.push_back(g.D_host[i * 2u]);
    out.dQ = g.dQ_host, out.dK = g.dK_host, out.dV = g.dV_host;
  } else {
    NaiveForward forward(a);
    NaiveBackward backward(a, forward, {dO});
    forward.dispatch();
    backward.dispatch();
    backward.read_back();
    out.O = a.batches[0].O.read<float>(AttnGpuRun::cells(N, d));
    const GradBuffers& g = backward.grads(0);
    for (int i = 0; i < N; ++i) out.D.push_back(g.D_host[i * 2u]), out.D_from_P.push_back(g.D_host[i * 2u + 1]);
    out.dQ = g.dQ_host, out.dK = g.dK_host, out.dV = g.dV_host;
  }
  return out;
}

}  // namespace flashstep::gpu
