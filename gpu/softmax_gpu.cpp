// The softmax lessons on the GPU: naive, safe, online, logsumexp (shaders/softmax_rows.comp and
// softmax_normalize.comp) and chunked (shaders/softmax_chunked.comp).
//
// The shaders compute and leave a trace: for every element the scaled x_i (z), e_i, and the
// running m_i, l_i (and the rescale factor) after it; for `chunked` also every node of the merge
// tree. This file turns the trace into the Steps of core/softmax.cpp, one for one: same buffers,
// passes, labels, sentences and IO counts, with the GPU's numbers.
#include "gpu/softmax_run.h"

namespace flashstep::gpu {
namespace {

// Pass 1 of online and logsumexp, from the trace of MODE_ONLINE.
void online_steps(SoftmaxGpuRun& g, int row, const std::vector<float>& t) {
  Recorder& rec = g.rec;
  double m_old = -kInf, l_old = 0.0;
  for (int i = 0; i < g.r.n; ++i) {
    g.load_io();
    rec.io().flops += 5;  // max, two subtractions, multiply, add
    rec.io().exps += 2;
    if (!rec.on()) continue;
    const float* e = &t[g.at(row, i, kTraceStride)];
    const double z = e[0], ex = e[1], m = e[2], l = e[3], f = e[4];
    rec.write(g.be, row, i, ex);
    rec.write(g.bm, row, 0, m);
    rec.write(g.bl, row, 0, l);
    Step st;
    st.pass = 1, st.line = 3, st.line_end = 4, st.row = row;
    st.label = g.prefix(row) + "m" + sub(i + 1) + ", l" + sub(i + 1);
    std::string text = strf("m%s = max(m%s = %s, %s = %s) = %s;  ", sub(i + 1).c_str(), sub(i).c_str(),
                            num(m_old).c_str(), g.x_name(i).c_str(), num(z).c_str(), num(m).c_str());
    if (m != m_old && l_old != 0.0)
      text += strf("m changed, so the old sum is rescaled by exp(%s - %s) = %s:  ", num(m_old).c_str(),
                   num(m).c_str(), num(f).c_str());
    text += strf("l%s = %s * %s + exp(%s - %s) = %s", sub(i + 1).c_str(), num(l_old).c_str(),
                 num(f).c_str(), num(z).c_str(), num(m).c_str(), num(l).c_str());
    st.text = g.prefix(row) + text;
    st.reads = {g.cell(g.bx, row, i), g.reg(g.bm, row), g.reg(g.bl, row)};
    st.writes = {g.cell(g.be, row, i), g.reg(g.bm, row), g.reg(g.bl, row)};
    rec.commit(std::move(st));
    m_old = m;
    l_old = l;
  }
}

}  // namespace

void gpu_naive(Kernels& k, const Resolved& r, Recorder& rec) {
  SoftmaxGpuRun g(k, r, rec, /*with_m=*/false);
  rec.recording().pass_names = {"sum of exponentials", "normalize"};
  rec.recording().m.clear();  // naive softmax has no running max
  const Buffer trace = g.trace_buffer(kTraceStride), e_norm = g.trace_buffer(1);
  const Program& sum = g.program("softmax_rows.comp", 0);
  const Program& normalize = g.program("softmax_normalize.comp", 0);
  {
    GpuTimer::Scope timing(k.timer());
    g.run_rows(sum, trace);
    g.run_normalize(normalize, e_norm);
  }
  g.check_done();
  const auto t = g.read(trace, kTraceStride), en = g.read(e_norm, 1);
  const auto y = g.Y.read<float>(g.cells), stats = g.stats.read<float>(r.rows * 4u);
  for (int row = 0; row < r.rows; ++row) {
    // 1. sum of exp(x_i): no max subtracted, so large x overflows.
    double l_old = 0.0;
    for (int i = 0; i < r.n; ++i) {
      g.load_io();
      rec.io().exps += 1;
      rec.io().flops += 1;
      if (!rec.on()) continue;
      const float* e = &t[g.at(row, i, kTraceStride)];
      const double z = e[0], ex = e[1], l = e[3];
      rec.write(g.be, row, i, ex);
      rec.write(g.bl, row, 0, l);
      Step st;
      st.pass = 1, st.line = 3, st.row = row;
      st.label = g.prefix(row) + "l" + sub(i + 1);
      st.text = g.prefix(row) + strf("l%s = l%s + exp(%s) = %s + exp(%s) = %s + %s = %s",
                                     sub(i + 1).c_str(), sub(i).c_str(), g.x_name(i).c_str(),
                                     num(l_old).c_str(), num(z).c_str(), num(l_old).c_str(),
                                     num(ex).c_str(), num(l).c_str()) +
                g.overflow_note(z, ex);
      st.reads = {g.cell(g.bx, row, i)};
      st.writes = {g.cell(g.be, row, i), g.reg(g.bl, row)};
      rec.commit(std::move(st));
      l_old = l;
    }
    // 2. normalize.
    const double l = stats[row * 4u + 1];
    g.normalize_steps(row, 0.0, l, /*subtract_m=*/false, 2, 6, y, en, t);
    g.finish_row(row, 0.0, l);
  }
}

void gpu_safe(Kernels& k, const Resolved& r, Recorder& rec) {
  SoftmaxGpuRun g(k, r, rec, /*with_m=*/true);
  rec.recording().pass_names = {"max", "sum of exponentials", "normalize"};
  const Buffer t_max = g.trace_buffer(kTraceStride), t_sum = g.trace_buffer(kTraceStride);
  const Buffer e_norm = g.trace_buffer(1);
  const Program& max = g.program("softmax_rows.comp", 1);
  const Program& sum = g.program("softmax_rows.comp", 2);
  const Program& normalize = g.program("softmax_normalize.comp", 1);
  {
    GpuTimer::Scope timing(k.timer());
    g.run_rows(max, t_max);
    g.run_rows(sum, t_sum);
    g.run_normalize(normalize, e_norm);
  }
  g.check_done();
  const auto t1 = g.read(t_max, kTraceStride), t2 = g.read(t_sum, kTraceStride), en = g.read(e_norm, 1);
  const auto y = g.Y.read<float>(g.cells), stats = g.stats.read<float>(r.rows * 4u);
  for (int row = 0; row < r.rows; ++row) {
    const double m = stats[row * 4u], l = stats[row * 4u + 1];
    // 1. max. Subtracting it changes nothing mathematically; it only keeps exp() in range.
    double m_old = -kInf;
    for (int i = 0; i < r.n; ++i) {
      g.load_io();
      rec.io().flops += 1;
      if (!rec.on()) continue;
      const float* e = &t1[g.at(row, i, kTraceStride)];
      const double z = e[0], mi = e[2];
      rec.write(g.bm, row, 0, mi);
      Step st;
      st.pass = 1, st.line = 3, st.row = row;
      st.label = g.prefix(row) + "m" + sub(i + 1);
      st.text = g.prefix(row) + strf("m%s = max(m%s = %s, %s = %s) = %s", sub(i + 1).c_str(),
                                     sub(i).c_str(), num(m_old).c_str(), g.x_name(i).c_str(),
                                     num(z).c_str(), num(mi).c_str());
      st.reads = {g.cell(g.bx, row, i), g.reg(g.bm, row)};
      st.writes = {g.reg(g.bm, row)};
      rec.commit(std::move(st));
      m_old = mi;
    }
    // 2. sum of exp(x_i - m): every term is at most 1, so nothing overflows.
    double l_old = 0.0;
    for (int i = 0; i < r.n; ++i) {
      g.load_io();
      rec.io().exps += 1;
      rec.io().flops += 2;
      if (!rec.on()) continue;
      const float* e = &t2[g.at(row, i, kTraceStride)];
      const double z = e[0], ex = e[1], li = e[3];
      rec.write(g.be, row, i, ex);
      rec.write(g.bl, row, 0, li);
      Step st;
      st.pass = 2, st.line = 7, st.row = row;
      st.label = g.prefix(row) + "l" + sub(i + 1);
      st.text = g.prefix(row) + strf("l%s = l%s + exp(%s - m) = %s + exp(%s - %s) = %s + %s = %s",
                                     sub(i + 1).c_str(), sub(i).c_str(), g.x_name(i).c_str(),
                                     num(l_old).c_str(), num(z).c_str(), num(m).c_str(),
                                     num(l_old).c_str(), num(ex).c_str(), num(li).c_str());
      st.reads = {g.cell(g.bx, row, i), g.reg(g.bm, row), g.reg(g.bl, row)};
      st.writes = {g.cell(g.be, row, i), g.reg(g.bl, row)};
      rec.commit(std::move(st));
      l_old = li;
    }
    // 3. normalize.
    g.normalize_steps(row, m, l, /*subtract_m=*/true, 3, 10, y, en, t1);
    g.finish_row(row, m, l);
  }
}

void gpu_online(Kernels& k, const Resolved& r, Recorder& rec) {
  SoftmaxGpuRun g(k, r, rec, /*with_m=*/true);
  rec.recording().pass_names = {"max and sum together", "normalize"};
  const Buffer trace = g.trace_buffer(kTraceStride), e_norm = g.trace_buffer(1);
  const Program& online = g.program("softmax_rows.comp", 3);
  const Program& normalize = g.program("softmax_normalize.comp", 1);
  {
    GpuTimer::Scope timing(k.timer());
    g.run_rows(online, trace);
    g.run_normalize(normalize, e_norm);
  }
  g.check_done();
  const auto t = g.read(trace, kTraceStride), en = g.read(e_norm, 1);
  const auto y = g.Y.read<float>(g.cells), stats = g.stats.read<float>(r.rows * 4u);
  for (int row = 0; row < r.rows; ++row) {
    // 1. m and l in one sweep: l is rescaled whenever the max grows.
    online_steps(g, row, t);
    const double m = stats[row * 4u], l = stats[row * 4u + 1];
    // 2. normalize.
    g.normalize_steps(row, m, l, /*subtract_m=*/true, 2, 7, y, en, t);
    g.finish_row(row, m, l);
  }
}

void gpu_logsumexp(Kernels& k, const Resolved& r, Recorder& rec) {
  SoftmaxGpuRun g(k, r, rec, /*with_m=*/true);
  rec.recording().pass_names = {"max and sum together", "log-softmax"};
  const int blse = rec.add_buffer({"LSE", r.rows, 1, Space::reg, "log-sum-exp m + log l"});
  rec.recording().lse.assign(static_cast<std::size_t>(r.rows), 0.0);
  const Buffer trace = g.trace_buffer(kTraceStride), unused = g.trace_buffer(0);
  const Program& online = g.program("softmax_rows.comp", 3, /*with_lse=*/true);
  const Program& log_softmax = g.program("softmax_normalize.comp", 2);
  {
    GpuTimer::Scope timing(k.timer());
    g.run_rows(online, trace);
    g.run_normalize(log_softmax, unused);
  }
  g.check_done();
  const auto t = g.read(trace, kTraceStride);
  const auto y = g.Y.read<float>(g.cells), stats = g.stats.read<float>(r.rows * 4u);
  for (int row = 0; row < r.rows; ++row) {
    online_steps(g, row, t);
    const double m = stats[row * 4u], l = stats[row * 4u + 1], lse = stats[row * 4u + 2];
    // LSE = log Σ exp(x_i) computed without overflow: m + log l.
    rec.io().flops += 2;
    rec.recording().lse[row] = lse;
    if (rec.on()) {
      rec.write(blse, row, 0, lse);
      Step st;
      st.pass = 2, st.line = 6, st.row = row;
      st.label = g.prefix(row) + "LSE";
      st.text = g.prefix(row) + strf("LSE = m + log l = %s + log %s = %s", num(m).c_str(),
                                     num(l).c_str(), num(lse).c_str());
      st.reads = {g.reg(g.bm, row), g.reg(g.bl, row)};
      st.writes = {g.reg(blse, row)};
      rec.commit(std::move(st));
    }
    for (int i = 0; i < r.n; ++i) {
      g.load_io();
      rec.io().flops += 1;
      const double yi = y[g.at(row, i, 1)];
      g.store(row, i, yi);
      if (!rec.on()) continue;
      const double z = t[g.at(row, i, kTraceStride)];
      Step st;
      st.pass = 2, st.line = 8, st.row = row;
      st.label = g.prefix(row) + "log y" + sub(i + 1);
      st.text = g.prefix(row) + strf("log y%s = %s - LSE = %s - %s = %s", sub(i + 1).c_str(),
                                     g.x_name(i).c_str(), num(z).c_str(), num(lse).c_str(),
                                     num(yi).c_str());
      st.reads = {g.cell(g.bx, row, i), g.reg(blse, row)};
      st.writes = {g.cell(g.by, row, i)};
      rec.commit(std::move(st));
    }
    g.finish_row(row, m, l);
  }
}

}  // namespace flashstep::gpu
