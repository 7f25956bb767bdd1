// attn-naive (three dispatches through N x N buffers: shaders/attn_scores.comp, attn_softmax.comp,
// attn_pv.comp) and attn-online (one invocation per query row: shaders/attn_online.comp) on the
// GPU, turned into the Steps of core/attention.cpp.
#include "gpu/attention_run.h"

namespace flashstep::gpu {

void gpu_attn_naive(Kernels& k, const Resolved& r, Recorder& rec) {
  AttnGpuRun a(k, r, rec);
  const int N = a.N, d = a.d;
  const int bS = rec.add_buffer({"S", N, N, Space::hbm, "scores S = Q K^T * s, materialized in HBM"});
  const int bP = rec.add_buffer({"P", N, N, Space::hbm, "P = softmax(S) row by row, materialized in HBM"});
  const int bm = rec.add_buffer({"m", N, 1, Space::reg, "max of each row of S"});
  const int bl = rec.add_buffer({"l", N, 1, Space::reg, "sum of exp(S - m) of each row"});
  rec.recording().pass_names = {"kernel 1: S = QK^T", "kernel 2: P = softmax(S)", "kernel 3: O = PV"};

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

  // Kernel 1: S written to HBM (N^2 writes). K is read once, with the first row.
  for (int i = 0; i < N; ++i) {
    rec.io().hbm_reads += static_cast<std::uint64_t>(d) + (i == 0 ? static_cast<std::uint64_t>(N) * d : 0);
    a.scores_io(1, N);
    rec.io().hbm_writes += N;
    if (!rec.on()) continue;
    a.write_block(bS, i, 1, 0, N, S_host.data(), N);
    Step step;
    step.pass = 1, step.line = 1, step.row = i;
    step.label = strf("S row %d", i + 1);
    step.text = strf("S%s = q%s K^T%s = %s, written to HBM", sub(i + 1).c_str(), sub(i + 1).c_str(),
                     a.scaled ? (" * " + num(r.scale)).c_str() : "",
                     a.list(&S_host[AttnGpuRun::cells(i, N)], N).c_str());
    step.reads = {a.rows_of(a.bQ, i, 1, d), a.rows_of(a.bK, 0, N, d)};
    step.writes = {a.rows_of(bS, i, 1, N)};
    rec.commit(std::move(step));
  }
  // Kernel 2: P = softmax(S), one row per invocation, P written to HBM.
  for (int i = 0; i < N; ++i) {
    rec.io().hbm_reads += N;
    rec.io().flops += 4ull * N;
    rec.io().exps += N;
    rec.io().hbm_writes += N;
    const double m = st[i * 2u], l = st[i * 2u + 1];
    rec.recording().m[i] = m;
    rec.recording().l[i] = l;
    if (!rec.on()) continue;
    a.write_block(bP, i, 1, 0, N, P_host.data(), N);
    rec.write(bm, i, 0, m);
    rec.write(bl, i, 0, l);
    Step step;
    step.pass = 2, step.line = 2, step.row = i;
    step.label = strf("P row %d", i + 1);
    step.text = strf("row %d: m = max S%s = %s, l = sum exp(S%s - m) = %s, P%s = exp(S%s - m) / l = %s",
                     i + 1, sub(i + 1).c_str(), num(m).c_str(), sub(i + 1).c_str(), num(l).c_str(),
                     sub(i + 1).c_str(), sub(i + 1).c_str(),
                     a.list(&P_host[AttnGpuRun::cells(i, N)], N).c_str());
    step.reads = {a.rows_of(bS, i, 1, N)};
    step.writes = {a.rows_of(bP, i, 1, N), {bm, i, 0, i + 1, 1}, {bl, i, 0, i + 1, 1}};
    rec.commit(std::move(step));
  }
  // Kernel 3: O = P V. V is read once, with the first row.
  a.set_output(O_host);
  for (int i = 0; i < N; ++i) {
    rec.io().hbm_reads += static_cast<std::uint64_t>(N) + (i == 0 ? static_cast<std::uint64_t>(N) * d : 0);
    rec.io().flops += 2ull * N * d;
    rec.io().hbm_writes += d;
    if (!rec.on()) continue;
    a.write_block(a.bO, i, 1, 0, d, O_host.data(), d);
    Step step;
    step.pass = 3, step.line = 3, step.row = i;
    step.label = strf("O row %d", i + 1);
    step.text = strf("O%s = P%s V = %s, written to HBM", sub(i + 1).c_str(), sub(i + 1).c_str(),
                     a.list(&O_host[AttnGpuRun::cells(i, d)], d).c_str());
    step.reads = {a.rows_of(bP, i, 1, N), a.rows_of(a.bV, 0, N, d)};
    step.writes = {a.rows_of(a.bO, i, 1, d)};
    rec.commit(std::move(step));
  }
}

void gpu_attn_online(Kernels& k, const Resolved& r, Recorder& rec) {
  AttnGpuRun a(k, r, rec);
  const int N = a.N, d = a.d;
  const int bS = rec.add_buffer({"S", N, N, Space::reg, "each score s = q_i . k_j * scale as it is computed"});
  const int bm = rec.add_buffer({"m", N, 1, Space::reg, "running max of the scores of row i"});
  const int bl = rec.add_buffer({"l", N, 1, Space::reg, "running sum of exp(s - m) of row i"});
  const int bacc = rec.add_buffer({"O_acc", N, d, Space::reg, "unnormalized output o of row i, rescaled as m grows"});
  auto& names = rec.recording().pass_names;
  for (int i = 0; i < N; ++i) names.push_back(strf("query row %d", i + 1));

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
  a.set_output(O_host);
  for (int i = 0; i < N; ++i)
    if (static_cast<int>(st[i * 4u + 2]) != (a.causal ? i + 1 : N))
      stopped_early(strf("attn-online (query row %d)", i + 1), "use a smaller N");

  for (int i = 0; i < N; ++i) {
    rec.io().hbm_reads += d;  // q_i
    if (rec.on()) {
      rec.write(bm, i, 0, -kInf);
      rec.write(bl, i, 0, 0.0);
      for (int c = 0; c < d; ++c) rec.write(bacc, i, c, 0.0);
    }
    double m_old = -kInf, l_old = 0.0;
    const int keys = static_cast<int>(st[i * 4u + 2]);  // the keys the invocation visited
    for (int j = 0; j < keys; ++j) {
      rec.io().hbm_reads += 2ull * d;  // k_j, v_j
      a.scores_io(1, 1);
      rec.io().flops += 3ull * d + 6;
      rec.io().exps += 2;
      if (!rec.on()) continue;
      const float* e = &t[(static_cast<std::size_t>(i) * N + j) * stride];
      const double sc = e[0], m = e[1], l = e[2], f = e[3], ex = e[4];
      rec.write(bS, i, j, sc);
      rec.write(bm, i, 0, m);
      rec.write(bl, i, 0, l);
      for (int c = 0; c < d; ++c) rec.write(bacc, i, c, e[5 + c]);
      Step step;
      step.pass = i + 1, step.line = 4, step.line_end = 7, step.row = i;
      step.label = strf("q%d . k%d", i + 1, j + 1);
      step.text = strf("s = q%s . k%s = %s;  m = max(%s, %s) = %s;  ", sub(i + 1).c_str(),
                       sub(j + 1).c_str(), num(sc).c_str(), num(m_old).c_str(), num(sc).c_str(),
                       num(m).c_str());
      if (m != m_old && l_old != 0.0)
        step.text += strf("o and l rescaled by exp(%s - %s) = %s;  ", num(m_old).c_str(),
                          num(m).c_str(), num(f).c_str());
      step.text += strf("l = %s * %s + %s = %s;  o += %s v%s", num(l_old).c_str(), num(f).c_str(),
                        num(ex).c_str(), num(l).c_str(), num(ex).c_str(), sub(j + 1).c_str());
      step.reads = {a.rows_of(a.bQ, i, 1, d), a.rows_of(a.bK, j, 1, d), a.rows_of(a.bV, j, 1, d)};
      step.writes = {{bS, i, j, i + 1, j + 1}, {bm, i, 0, i + 1, 1}, {bl, i, 0, i + 1, 1},
                     a.rows_of(bacc, i, 1, d)};
      rec.commit(std::move(step));
      m_old = m;
      l_old = l;
    }
    // O_i = o / l: the only division, once per row.
    const double l = st[i * 4u + 1];
    rec.io().flops += d;
    rec.io().hbm_writes += d;
    rec.recording().m[i] = st[i * 4u];
    rec.recording().l[i] = l;
    if (!rec.on()) continue;
    a.write_block(a.bO, i, 1, 0, d, O_host.data(), d);
    Step step;
    step.pass = i + 1, step.line = 9, step.row = i;
    step.label = strf("O row %d", i + 1);
    step.text = strf("O%s = o / l = o / %s = %s, written to HBM", sub(i + 1).c_str(), num(l).c_str(),
                     a.list(&O_host[AttnGpuRun::cells(i, d)], d).c_str());
    step.reads = {a.rows_of(bacc, i, 1, d), {bl, i, 0, i + 1, 1}};
    step.writes = {a.rows_of(a.bO, i, 1, d)};
    rec.commit(std::move(step));
  }
}

}  // namespace flashstep::gpu
