// attn-naive (three dispatches through N x N buffers: shaders/attn_scores.comp, attn_softmax.comp,
// attn_pv.comp) and attn-online (one invocation per query row: shaders/attn_online.comp) on the
// GPU; core's attention narration turns their numbers into the Steps of core/attention.cpp.
#include "core/heads.h"
#include "core/initial_state.h"
#include "core/mask.h"
#include "gpu/attention_run.h"

namespace flashstep::gpu {

namespace {
const char* const kNaiveHint = "attn-naive keeps S and P whole (the N^2 memory the lesson is about); use a "
                               "smaller N or a tiled algorithm";
}  // namespace

NaiveForward::NaiveForward(AttnGpuRun& a) : a_(a) {
  const std::size_t NN = AttnGpuRun::cells(a.N, a.N);
  for (const auto& b : a.batches)
    scratch_.push_back({a.k.buffer("S (N x N floats)", NN * b.count * 4, nullptr, kNaiveHint),
                        a.k.buffer("P (N x N floats)", NN * b.count * 4, nullptr, kNaiveHint),
                        a.k.buffer("the row statistics", AttnGpuRun::cells(a.N, 2) * b.count * 4)});
}

void NaiveForward::dispatch() {
  Kernels& k = a_.k;
  const Resolved& r = a_.r;
  const int N = a_.N, d = a_.d;
  const Program& scores = k.program("attn_scores.comp", a_.defines(false));
  const Program& softmax = k.program("attn_softmax.comp", common_defines(r, false));
  const Program& pv = k.program("attn_pv.comp", a_.defines(false));
  for (std::size_t bi = 0; bi < a_.batches.size(); ++bi) {
    const auto& b = a_.batches[bi];
    const Scratch& sc = scratch_[bi];
    // Kernel 1: S = Q K^T * s, every head of the batch in one grid.
    k.timer().phase("S = QKᵀ");
    scores.use();
    scores.set("N", N);
    scores.set("s", scale_of(r));
    b.Q.bind(0);
    b.K.bind(1);
    sc.S.bind(2);
    gpu::dispatch(groups_for(N, 16), groups_for(N, 16), b.count);
    a_.dispatched();
    // Kernel 2: P = softmax(S).
    k.timer().phase("P = softmax(S)");
    softmax.use();
    softmax.set("N", N);
    sc.S.bind(0);
    sc.P.bind(1);
    sc.stats.bind(2);
    gpu::dispatch(groups_for(N, 64), b.count);
    a_.dispatched();
    // Kernel 3: O = P V.
    k.timer().phase("O = PV");
    pv.use();
    pv.set("N", N);
    sc.P.bind(0);
    b.V.bind(1);
    b.O.bind(2);
    gpu::dispatch(groups_for(d, 16), groups_for(N, 16), b.count);
    a_.dispatched();
  }
}

void NaiveForward::read_back() {
  const std::size_t NN = AttnGpuRun::cells(a_.N, a_.N);
  S_host_ = a_.read(scratch_[0].S, NN);
  P_host_ = a_.read(scratch_[0].P, NN);
  for (std::size_t bi = 0; bi < a_.batches.size(); ++bi) {
    const auto& b = a_.batches[bi];
    stats_.push_back(scratch_[bi].stats.read<float>(AttnGpuRun::cells(a_.N, 2) * b.count));
    O_.push_back(b.O.read<float>(AttnGpuRun::cells(a_.N, a_.d) * b.count));
  }
}

void NaiveForward::narrate(int h) const {
  const int N = a_.N, d = a_.d;
  const std::size_t bi = static_cast<std::size_t>(h / a_.per_batch);
  const auto& b = a_.batches[bi];
  const std::vector<float>& st = stats_[bi];
  AttnNaiveNarration say(a_.r, *a_.heads[static_cast<std::size_t>(h)]);
  const std::size_t row0 = AttnGpuRun::cells(h - b.h0, N);  // the head's first row in the batch
  // Kernel 1: S written to HBM. Kernel 2: P = softmax(S), one row per invocation. Kernel 3:
  // O = P V.
  for (int i = 0; i < N; ++i) say.scores_row(i, a_.view(S_host_, AttnGpuRun::cells(i, N), 1, N, N));
  for (int i = 0; i < N; ++i)
    say.softmax_row(i, st[(row0 + i) * 2], st[(row0 + i) * 2 + 1], a_.view(P_host_, AttnGpuRun::cells(i, N), 1, N, N));
  for (int i = 0; i < N; ++i) say.output_row(i, a_.view(O_[bi], (row0 + i) * d, 1, d, d));
}

void gpu_attn_naive(Kernels& k, const Resolved& r, const HeadRecorders& heads) {
  const std::size_t NN = AttnGpuRun::cells(r.n, r.n);
  AttnGpuRun a(k, r, heads, static_cast<double>(std::max(NN, AttnGpuRun::cells(r.n, r.d))) * 4);
  NaiveForward forward(a);
  a.dispatches_total = NaiveForward::kDispatchesPerBatch * static_cast<long long>(a.batches.size());
  {
    GpuTimer::Scope timing(k.timer());
    forward.dispatch();
  }
  forward.read_back();
  for (int h = 0; h < a.H; ++h) forward.narrate(h);
}

void gpu_attn_online(Kernels& k, const Resolved& r, const HeadRecorders& heads) {
  const int N = r.n, d = r.d;
  AttnGpuRun a(k, r, heads, static_cast<double>(N) * std::max(d, 4) * 4);
  Recorder& rec = a.rec;

  // Per (i, j): s, m, l, rescale factor, exp(s - m), then o (d floats). One head.
  const std::size_t stride = static_cast<std::size_t>(d) + 5;
  const std::size_t trace_floats = AttnGpuRun::cells(N, N) * stride;
  const Buffer trace = a.trace_buffer("the step trace of attn-online (N x N x (d + 5) floats)", trace_floats);
  std::vector<Buffer> stats;
  for (const auto& b : a.batches) stats.push_back(k.buffer("the row statistics", AttnGpuRun::cells(N, 4) * b.count * 4));
  const Program& p = k.program("attn_online.comp", a.defines(rec.on()));
  {
    GpuTimer::Scope timing(k.timer());
    p.use();
    p.set("N", N);
    p.set("s", scale_of(r));
    trace.bind(5);
    for (std::size_t bi = 0; bi < a.batches.size(); ++bi) {
      const auto& b = a.batches[bi];
      b.bind_qkvo();
      stats[bi].bind(4);
      dispatch(groups_for(N, 64), b.count);
      k.dispatched(static_cast<long long>(bi) + 1, static_cast<long long>(a.batches.size()));
    }
  }
  const auto t = a.read(trace, trace_floats);
  for (std::size_t bi = 0; bi < a.batches.size(); ++bi) {
    const auto& b = a.batches[bi];
    const auto st_all = stats[bi].read<float>(AttnGpuRun::cells(N, 4) * b.count);
    const auto O_all = b.O.read<float>(AttnGpuRun::cells(N, d) * b.count);
    for (int h = b.h0; h < b.h0 + b.count; ++h) {
      const float* st = st_all.data() + AttnGpuRun::cells(h - b.h0, N) * 4;
      const std::size_t o0 = AttnGpuRun::cells(h - b.h0, N) * d;
      const Mask mask = Mask::of(r);
      for (int i = 0; i < N; ++i)
        if (static_cast<int>(st[i * 4u + 2]) != mask.keys(i).size())
          stopped_early(k, strf("attn-online (%squery row %d)", head_text(a.H, h).c_str(), i + 1),
                        "use a smaller N");
      AttnOnlineNarration say(r, *heads[h]);
      for (int i = 0; i < N; ++i) {
        say.start_row(i);
        double m_old = initial_state().m, l_old = initial_state().l;
        const Mask::KeyRange keys = mask.keys(i);  // the keys the invocation visited, as checked above
        for (int j = keys.begin; j < keys.end; ++j) {
          const std::size_t at = (static_cast<std::size_t>(i) * N + j) * stride;
          AttnOnlineNumbers u{0, m_old, l_old, 0, 0, 0, 0};
          if (!t.empty()) u.s = t[at], u.m = t[at + 1], u.l = t[at + 2], u.factor = t[at + 3], u.e = t[at + 4];
          say.key(i, j, u, a.view(t, at + 5, 1, d, d));
          m_old = u.m;
          l_old = u.l;
        }
        // O_i = o / l: the only division, once per row.
        say.finish_row(i, st[i * 4u], st[i * 4u + 1], a.view(O_all, o0 + AttnGpuRun::cells(i, d), 1, d, d));
      }
    }
  }
}

namespace {

// attn-naive's S and P of every head are in GPU memory at once, as a naive layer's are.
std::string naive_refuses(const Resolved& r, const Limits& lim, int heads) {
  const double memory = memory_bound(lim);
  if (memory <= 0) return "";
  const double need = s_and_p_bytes(r.n, heads, 4);
  if (need <= memory) return "";
  return strf("attn-naive keeps S and P of every head in GPU memory: 2·H·N² floats = 2·%d·%d²·4 B = "
              "%s, more than this GPU's %s%s; use attn-tiled or attn-tiled-v2 (no N×N matrix)",
              heads, r.n, s_and_p_text(need).c_str(), bytes_text(memory).c_str(),
              lim.memory_bytes > 0 ? "" : " (the driver does not say: this machine's memory)");
}

BigBuffer naive_s(const Resolved& r, bool) {
  const double N = r.n;
  return {N * N * 4, "S (N x N floats)", kNaiveHint};
}

BigBuffer online_trace(const Resolved& r, bool keep_steps) {
  const double N = r.n, d = r.d;
  return trace_buffer_of(keep_steps, N * N * (d + 5) * 4, "the step trace of attn-online (N x N x (d + 5) floats)");
}

long long naive_loops(const Resolved& r) { return 3LL * r.n; }  // softmax: max, exp and normalize over the row
long long online_loops(const Resolved& r) { return r.n; }        // the last row visits every key

}  // namespace

std::vector<GpuRow> attention_gpu_rows() {
  return {
      {Algorithm::attn_naive, gpu_attn_naive, naive_s, naive_loops, "use a smaller N", naive_refuses},
      {Algorithm::attn_online, gpu_attn_online, online_trace, online_loops, "use a smaller N", refuses_nothing},
  };
}

}  // namespace flashstep::gpu
