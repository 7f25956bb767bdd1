// attn-naive (three dispatches through N x N buffers: shaders/attn_scores.comp, attn_softmax.comp,
// attn_pv.comp) and attn-online (one invocation per query row: shaders/attn_online.comp) on the
// GPU; core's attention narration turns their numbers into the Steps of core/attention.cpp.
#include "gpu/attention_run.h"

namespace flashstep::gpu {

void gpu_attn_naive(Kernels& k, const Resolved& r, Recorder& rec) {
  AttnNaiveNarration say(r, rec);
  AttnGpuRun a(k, r, rec);
  const int N = a.N, d = a.d;

  const char* hint = "attn-naive keeps S and P whole (the N^2 memory the lesson is about); use a "
                     "smaller N or a tiled algorithm";
  const std::size_t NN = AttnGpuRun::cells(N, N);
  const Buffer S = k.buffer("S (N x N floats)", NN * 4, nullptr, hint);
  const Buffer P = k.buffer("P (N x N floats)", NN * 4, nullptr, hint);
  const Buffer stats = k.buffer("the row statistics", AttnGpuRun::cells(N, 2) * 4);
  const Program& scores = k.program("attn_scores.comp", a.defines(false));
  const Program& softmax = k.program("attn_softmax.comp", common_defines(r, false));
  const Program& pv = k.program("attn_pv.comp", a.defines(false));
  {
    GpuTimer::Scope timing(k.timer());
    // Kernel 1: S = Q K^T * s.
    scores.use();
    scores.set("N", N);
    scores.set("s", scale_of(r));
    a.Q.bind(0);
    a.K.bind(1);
    S.bind(2);
    dispatch(groups_for(N, 16), groups_for(N, 16));
    // Kernel 2: P = softmax(S).
    softmax.use();
    softmax.set("N", N);
    S.bind(0);
    P.bind(1);
    stats.bind(2);
    dispatch(groups_for(N, 64));
    // Kernel 3: O = P V.
    pv.use();
    pv.set("N", N);
    P.bind(0);
    a.V.bind(1);
    a.O.bind(2);
    dispatch(groups_for(d, 16), groups_for(N, 16));
  }
  const auto S_host = a.read(S, NN), P_host = a.read(P, NN);
  const auto st = stats.read<float>(AttnGpuRun::cells(N, 2));
  const auto O_host = a.O.read<float>(AttnGpuRun::cells(N, d));

  // Kernel 1: S written to HBM. Kernel 2: P = softmax(S), one row per invocation. Kernel 3:
  // O = P V.
  for (int i = 0; i < N; ++i) say.scores_row(i, a.view(S_host, AttnGpuRun::cells(i, N), 1, N, N));
  for (int i = 0; i < N; ++i)
    say.softmax_row(i, st[i * 2u], st[i * 2u + 1], a.view(P_host, AttnGpuRun::cells(i, N), 1, N, N));
  for (int i = 0; i < N; ++i) say.output_row(i, a.view(O_host, AttnGpuRun::cells(i, d), 1, d, d));
}

void gpu_attn_online(Kernels& k, const Resolved& r, Recorder& rec) {
  AttnOnlineNarration say(r, rec);
  AttnGpuRun a(k, r, rec);
  const int N = a.N, d = a.d;

  // Per (i, j): s, m, l, rescale factor, exp(s - m), then o (d floats).
  const std::size_t stride = static_cast<std::size_t>(d) + 5;
  const std::size_t trace_floats = AttnGpuRun::cells(N, N) * stride;
  const Buffer trace = a.trace_buffer("the step trace of attn-online (N x N x (d + 5) floats)", trace_floats);
  const Buffer stats = k.buffer("the row statistics", AttnGpuRun::cells(N, 4) * 4);
  const Program& p = k.program("attn_online.comp", a.defines(rec.on()));
  {
    GpuTimer::Scope timing(k.timer());
    p.use();
    p.set("N", N);
    p.set("s", scale_of(r));
    a.Q.bind(0);
    a.K.bind(1);
    a.V.bind(2);
    a.O.bind(3);
    stats.bind(4);
    trace.bind(5);
    dispatch(groups_for(N, 64));
  }
  const auto t = a.read(trace, trace_floats);
  const auto st = stats.read<float>(AttnGpuRun::cells(N, 4));
  const auto O_host = a.O.read<float>(AttnGpuRun::cells(N, d));
  for (int i = 0; i < N; ++i)
    if (static_cast<int>(st[i * 4u + 2]) != (r.scenario.causal ? i + 1 : N))
      stopped_early(strf("attn-online (query row %d)", i + 1), "use a smaller N");

  for (int i = 0; i < N; ++i) {
    say.start_row(i);
    double m_old = -kInf, l_old = 0.0;
    const int keys = static_cast<int>(st[i * 4u + 2]);  // the keys the invocation visited
    for (int j = 0; j < keys; ++j) {
      const std::size_t at = (static_cast<std::size_t>(i) * N + j) * stride;
      AttnOnlineNumbers u{0, m_old, l_old, 0, 0, 0, 0};
      if (!t.empty()) u.s = t[at], u.m = t[at + 1], u.l = t[at + 2], u.factor = t[at + 3], u.e = t[at + 4];
      say.key(i, j, u, a.view(t, at + 5, 1, d, d));
      m_old = u.m;
      l_old = u.l;
    }
    // O_i = o / l: the only division, once per row.
    say.finish_row(i, st[i * 4u], st[i * 4u + 1], a.view(O_host, AttnGpuRun::cells(i, d), 1, d, d));
  }
}

}  // namespace flashstep::gpu
