// attn-tiled (FlashAttention-1, shaders/attn_tiled.comp: one dispatch per K/V block j, the
// paper's outer loop) and attn-tiled-v2 (FlashAttention-2, shaders/attn_tiled_v2.comp: one
// dispatch, the loop over j inside it) on the GPU: one workgroup per Q block, K_j and V_j in
// shared memory. The shaders trace every tile they run (which (i, j), S_ij, P~_ij, m, l and O_i
// after it); this file replays the tiles in the paper's loop order, and core's attention
// narration turns their numbers into the Steps of core/attention.cpp. A tile the GPU did not run
// has no step, so a GPU that skipped or added tiles would show up as a different step sequence.
#include "core/initial_state.h"
#include "core/mask.h"
#include "gpu/attention_run.h"

#include <algorithm>

namespace flashstep::gpu {
namespace {

// The traces both tiled shaders write (one head: steps are kept for one head only), bound at
// 5..8 (see the shaders' headers); the tile lists (bound at 9) are per batch of heads.
struct TileTraces {
  Buffer S, P, O, ML;
  std::vector<float> S_host, P_host, O_host, ML_host;

  TileTraces(const AttnGpuRun& a, const Resolved& r)
      : S(a.trace_buffer("the S trace (N x N floats)", AttnGpuRun::cells(a.N, a.N))),
        P(a.trace_buffer("the P trace (N x N floats)", AttnGpuRun::cells(a.N, a.N))),
        O(a.trace_buffer("the O trace (Tc x N x d floats)", AttnGpuRun::cells(r.Tc, a.N) * a.d)),
        ML(a.trace_buffer("the m, l trace (Tc x N x 4 floats)", AttnGpuRun::cells(r.Tc, a.N) * 4)) {}

  void bind() const {
    S.bind(5);
    P.bind(6);
    O.bind(7);
    ML.bind(8);
  }
  void read(const AttnGpuRun& a, const Resolved& r) {
    S_host = a.read(S, AttnGpuRun::cells(a.N, a.N));
    P_host = a.read(P, AttnGpuRun::cells(a.N, a.N));
    O_host = a.read(O, AttnGpuRun::cells(r.Tc, a.N) * a.d);
    ML_host = a.read(ML, AttnGpuRun::cells(r.Tc, a.N) * 4);
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

// Which tiles one head's workgroups ran: (Tr, Tc), > 0 where the GPU ran tile (i, j).
struct TileList {
  const Resolved& r;
  const int* visited;
  bool ran(int i, int j) const { return visited[AttnGpuRun::cells(i, r.Tc) + j] > 0; }
  // Every tile with an unmasked score ran, and every row finished every tile its workgroup ran;
  // `tiles_done(row)` is the row's own count. A workgroup whose loops a driver ended early
  // stops all its rows at the same tile, so the tiles it never reached are what shows it.
  // `head` names the head in the message ("head 3, " or "").
  template <class F>
  void check_rows(Kernels& k, const char* algo, const std::string& head, F tiles_done) const {
    const Mask mask = Mask::of(r);
    for (int i = 0; i < r.Tr; ++i) {
      int ran_tiles = 0;
      const int r0 = i * r.Br, br = std::min(r.Br, r.n - r0);
      for (int j = 0; j < r.Tc; ++j) {
        ran_tiles += ran(i, j) ? 1 : 0;
        const int c0 = j * r.Bc;
        const bool live = mask.tile(r0, br, c0, std::min(r.Bc, r.n - c0)) != TileKind::empty;
        if (live && !ran(i, j))
          stopped_early(k, strf("%s (%sQ block %d)", algo, head.c_str(), i + 1), "use a smaller N or larger blocks");
      }
      for (int row = i * r.Br; row < std::min(r.n, (i + 1) * r.Br); ++row)
        if (tiles_done(row) != ran_tiles)
          stopped_early(k, strf("%s (%sQ block %d)", algo, head.c_str(), i + 1), "use a smaller N or larger blocks");
    }
  }
};

// Per batch of heads: the tile lists, (count, Tr, Tc) ints, and the per-row statistics the
// shader keeps, (count, N, 4) floats.
struct BatchState {
  Buffer tiles, stats;
};
std::vector<BatchState> batch_state(const AttnGpuRun& a, const Resolved& r, const char* stats_what,
                                    const std::vector<float>* stats_init) {
  std::vector<BatchState> out;
  for (const auto& b : a.batches) {
    std::vector<float> init;
    if (stats_init)
      for (int h = 0; h < b.count; ++h) init.insert(init.end(), stats_init->begin(), stats_init->end());
    out.push_back({a.k.buffer("the tile list", AttnGpuRun::cells(r.Tr, r.Tc) * b.count * 4),
                   stats_init ? a.k.buffer(stats_what, init)
                              : a.k.buffer(stats_what, AttnGpuRun::cells(a.N, 4) * b.count * 4)});
  }
  return out;
}

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

// The largest buffer one head needs in the tiled shaders: Q (N x d) or its (N x 4) statistics.
double tiled_head_bytes(const Resolved& r) { return static_cast<double>(r.n) * std::max(r.d, 4) * 4; }

}  // namespace

// FlashAttention-1: outer loop over K/V blocks j, inner loop over Q blocks i; m, l and O_i live
// in HBM and are read and written back at every inner step.
void gpu_attn_tiled(Kernels& k, const Resolved& r, const HeadRecorders& heads) {
  AttnGpuRun a(k, r, heads, tiled_head_bytes(r));
  const int N = a.N, d = a.d, Br = r.Br, Bc = r.Bc, Tr = r.Tr, Tc = r.Tc;

  // Line 2: O = 0, l = 0, m = -inf in HBM: the initial state, O's buffer starting zeroed.
  static_assert(initial_state().o == 0.0, "AttnGpuRun's O buffer starts zeroed (Buffer), as initial_state().o");
  std::vector<float> ml_init(AttnGpuRun::cells(N, 4));
  for (int i = 0; i < N; ++i) {
    ml_init[i * 4u] = static_cast<float>(initial_state().m);
    ml_init[i * 4u + 1] = static_cast<float>(initial_state().l);
  }
  std::vector<BatchState> state = batch_state(a, r, "m, l (N x 4 floats)", &ml_init);
  TileTraces tr(a, r);
  const Program& p = tiled_program(a, r, "attn_tiled.comp");
  {
    GpuTimer::Scope timing(k.timer());
    set_tiled_uniforms(p, r);
    tr.bind();
    for (std::size_t bi = 0; bi < a.batches.size(); ++bi) {
      const auto& b = a.batches[bi];
      b.bind_qkvo();
      state[bi].stats.bind(4);
      state[bi].tiles.bind(9);
      // The paper's outer loop, on the host: one dispatch per K/V block, its Q blocks (of every
      // head of the batch) in parallel.
      for (int j = 0; j < Tc; ++j) {
        p.set("j", j);
        dispatch(Tr, b.count);
        k.dispatched(static_cast<long long>(bi) * Tc + j + 1, static_cast<long long>(a.batches.size()) * Tc);
      }
    }
  }
  tr.read(a, r);
  for (std::size_t bi = 0; bi < a.batches.size(); ++bi) {
    const auto& b = a.batches[bi];
    const auto visited = state[bi].tiles.read<int>(AttnGpuRun::cells(Tr, Tc) * b.count);
    const auto ml_all = state[bi].stats.read<float>(AttnGpuRun::cells(N, 4) * b.count);
    const auto O_all = b.O.read<float>(AttnGpuRun::cells(N, d) * b.count);
    for (int h = b.h0; h < b.h0 + b.count; ++h) {
      const TileList tl{r, visited.data() + AttnGpuRun::cells(h - b.h0, Tr) * Tc};
      const std::size_t ml0 = AttnGpuRun::cells(h - b.h0, N) * 4;
      tl.check_rows(k, "attn-tiled", head_text(a.H, h), [&](int row) { return static_cast<int>(ml_all[ml0 + row * 4u + 2]); });
      AttnTiledNarration say(r, *heads[h]);
      Recorder& rec = *heads[h];
      // m, l of the first row of each Q block as the steps have seen them: the sentence names
      // them before and after each tile.
      std::vector<double> m(static_cast<std::size_t>(N), initial_state().m), l(static_cast<std::size_t>(N), initial_state().l);
      for (int j = 0; j < Tc; ++j) {
        const int c0 = j * Bc, bc = std::min(Bc, N - c0);
        bool kv_loaded = false;  // line 6: K_j, V_j stay in SRAM for the whole inner loop
        for (int i = 0; i < Tr; ++i) {
          const int r0 = i * Br, br = std::min(Br, N - r0);
          if (!tl.ran(i, j)) continue;  // every score of the tile is masked
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
      say.finish(AttnGpuRun::view(O_all, AttnGpuRun::cells(h - b.h0, N) * d, N, d, d),
                 AttnGpuRun::view(ml_all, ml0, N, 1, 4), AttnGpuRun::view(ml_all, ml0 + 1, N, 1, 4));
    }
  }
}

// FlashAttention-2: outer loop over Q blocks i, inner over K/V blocks j. m_i, l_i and the
// unnormalized O_i stay on chip for the whole inner loop; O_i is divided by l_i once at the
// end and written with L_i = m_i + log l_i.
struct TiledV2Forward::Impl {
  AttnGpuRun& a;
  std::vector<BatchState> state;
  TileTraces tr;
  std::vector<std::vector<int>> visited;  // per batch
  std::vector<std::vector<float>> st, O;  // per batch
  Impl(AttnGpuRun& a_, const Resolved& r)
      : a(a_), state(batch_state(a_, r, "the row statistics", nullptr)), tr(a_, r) {}
};

TiledV2Forward::TiledV2Forward(AttnGpuRun& a) : impl_(std::make_unique<Impl>(a, a.r)) {}
TiledV2Forward::~TiledV2Forward() = default;

const Buffer& TiledV2Forward::stats(std::size_t batch) const { return impl_->state[batch].stats; }

void TiledV2Forward::dispatch() {
  AttnGpuRun& a = impl_->a;
  const Resolved& r = a.r;
  const Program& p = tiled_program(a, r, "attn_tiled_v2.comp");
  set_tiled_uniforms(p, r);
  impl_->tr.bind();
  for (std::size_t bi = 0; bi < a.batches.size(); ++bi) {
    const auto& b = a.batches[bi];
    b.bind_qkvo();
    impl_->state[bi].stats.bind(4);
    impl_->state[bi].tiles.bind(9);
    gpu::dispatch(r.Tr, b.count);  // every Q block of every head of the batch
    a.dispatched();
  }
}

void TiledV2Forward::read_back() {
  Impl& m = *impl_;
  const Resolved& r = m.a.r;
  m.tr.read(m.a, r);
  for (std::size_t bi = 0; bi < m.a.batches.size(); ++bi) {
    const auto& b = m.a.batches[bi];
    m.visited.push_back(m.state[bi].tiles.read<int>(AttnGpuRun::cells(r.Tr, r.Tc) * b.count));
    m.st.push_back(m.state[bi].stats.read<float>(AttnGpuRun::cells(m.a.N, 4) * b.count));
    m.O.push_back(b.O.read<float>(AttnGpuRun::cells(m.a.N, m.a.d) * b.count));
  }
}

void TiledV2Forward::narrate(int h) const {
  const Impl& m = *impl_;
  const AttnGpuRun& a = m.a;
  const Resolved& r = a.r;
  const TileTraces& tr = m.tr;
  const int N = a.N, d = a.d, Br = r.Br, Bc = r.Bc, Tr = r.Tr, Tc = r.Tc;
  const std::size_t bi = static_cast<std::size_t>(h / a.per_batch);
  const auto& b = a.batches[bi];
  const std::vector<float>& st_all = m.st[bi];
  const std::vector<float>& O_all = m.O[bi];
  const TileList tl{r, m.visited[bi].data() + AttnGpuRun::cells(h - b.h0, Tr) * Tc};
  const std::size_t st0 = AttnGpuRun::cells(h - b.h0, N) * 4, o0 = AttnGpuRun::cells(h - b.h0, N) * d;
  tl.check_rows(a.k, "attn-tiled-v2", head_text(a.H, h), [&](int row) { return static_cast<int>(st_all[st0 + row * 4u + 3]); });
  Recorder& rec = *a.heads[static_cast<std::size_t>(h)];
  AttnTiledV2Narration say(r, rec);
  for (int i = 0; i < Tr; ++i) {
    const int r0 = i * Br, br = std::min(Br, N - r0);
    // Lines 3-4: Q_i into SRAM; O_i, l_i, m_i start on chip.
    say.start_block(i);
    double m_first = initial_state().m, l_first = initial_state().l;
    for (int j = 0; j < Tc; ++j) {
      const int c0 = j * Bc, bc = std::min(Bc, N - c0);
      if (!tl.ran(i, j)) continue;  // fully masked: the workgroup stopped before it
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
    const std::size_t at = st0 + AttnGpuRun::cells(r0, 4);
    say.finish_block(i, AttnGpuRun::view(O_all, o0 + AttnGpuRun::cells(r0, d), br, d, d),
                     AttnGpuRun::view(st_all, at, br, 1, 4), AttnGpuRun::view(st_all, at + 1, br, 1, 4),
                     AttnGpuRun::view(st_all, at + 2, br, 1, 4));
  }
}

void gpu_attn_tiled_v2(Kernels& k, const Resolved& r, const HeadRecorders& heads) {
  AttnGpuRun a(k, r, heads, tiled_head_bytes(r));
  TiledV2Forward forward(a);
  a.dispatches_total = TiledV2Forward::kDispatchesPerBatch * static_cast<long long>(a.batches.size());
  {
    GpuTimer::Scope timing(k.timer());
    forward.dispatch();
  }
  forward.read_back();
  for (int h = 0; h < a.H; ++h) forward.narrate(h);
}

namespace {

// K_j and V_j sit in shared memory, one invocation per row of a Q block.
std::string tiled_refuses(const Resolved& r, const Limits& lim, int) {
  const long long bytes = 2LL * r.Bc * r.d * 4;
  if (bytes > lim.max_shared_bytes)
    return strf("the Kⱼ and Vⱼ tiles (2 × Bc × d = 2 × %d × %d floats, %lld bytes) do not fit "
                "in this GPU's shared memory (%lld bytes); use a smaller --block-cols or --sram",
                r.Bc, r.d, bytes, lim.max_shared_bytes);
  const int most = std::min(lim.max_invocations, lim.max_group_size_x);
  if (r.Br > most)
    return strf("Br = %d rows need one invocation each in a workgroup, and this GPU allows %d; "
                "use a smaller --block-rows",
                r.Br, most);
  return "";
}

// The S trace (N x N) or the O trace (Tc x N x d), whichever is larger.
BigBuffer tiled_traces(const Resolved& r, bool keep_steps) {
  const double N = r.n, d = r.d;
  const BigBuffer S = trace_buffer_of(keep_steps, N * N * 4, "the S trace (N x N floats)");
  const BigBuffer O = trace_buffer_of(keep_steps, static_cast<double>(r.Tc) * N * d * 4, "the O trace (Tc x N x d floats)");
  return O.bytes > S.bytes ? O : S;
}

// One K/V tile of width bc: load K_j, V_j (bc·d shared out over Br rows), then S, max, exp and
// PV over its bc keys.
long long tile_loops(const Resolved& r, long long bc) { return (bc * r.d + r.Br - 1) / r.Br + 4 * bc; }

long long tiled_loops(const Resolved& r) { return 1 + tile_loops(r, r.Bc); }  // one tile per dispatch

long long tiled_v2_loops(const Resolved& r) {  // every tile of the row's block
  long long total = 1;
  for (long long c0 = 0; c0 < r.n; c0 += r.Bc) total += 1 + tile_loops(r, std::min<long long>(r.Bc, r.n - c0));
  return total;
}

}  // namespace

std::vector<GpuRow> tiled_gpu_rows() {
  return {
      {Algorithm::attn_tiled, gpu_attn_tiled, tiled_traces, tiled_loops, "use a smaller N", tiled_refuses},
      {Algorithm::attn_tiled_v2, gpu_attn_tiled_v2, tiled_traces, tiled_v2_loops,
       "use a smaller N, or attn-tiled (one dispatch per K/V block)", tiled_refuses},
  };
}

}  // namespace flashstep::gpu
