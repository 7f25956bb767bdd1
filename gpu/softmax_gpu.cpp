// The softmax lessons on the GPU: naive, safe, online, logsumexp (shaders/softmax_rows.comp and
// softmax_normalize.comp) and chunked (shaders/softmax_chunked.comp).
//
// The shaders compute and leave a trace: for every element the scaled x_i (z), e_i, and the
// running m_i, l_i (and the rescale factor) after it; for `chunked` also every node of the merge
// tree. This file hands the trace's numbers to core's SoftmaxNarration, which turns them into
// the Steps of core/softmax.cpp, one for one: same buffers, passes, labels, sentences and IO
// counts, with the GPU's numbers.
#include "core/initial_state.h"
#include "gpu/softmax_run.h"

namespace flashstep::gpu {
namespace {

// Pass 1 of online and logsumexp, from the trace of MODE_ONLINE.
void online_steps(SoftmaxNarration& say, const SoftmaxGpuRun& g, int row, const std::vector<float>& t) {
  double m_old = initial_state().m, l_old = initial_state().l;
  for (int i = 0; i < g.r.n; ++i) {
    const TraceEntry e = g.entry(t, row, i);
    say.online(row, i, {e.z, m_old, l_old, e.m, e.l, e.f, e.e});
    m_old = e.m;
    l_old = e.l;
  }
}

}  // namespace

void gpu_naive(Kernels& k, const Resolved& r, Recorder& rec) {
  SoftmaxNarration say(r, rec);
  SoftmaxGpuRun g(k, r, rec);
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
      const TraceEntry e = g.entry(t, row, i);
      say.sum_exp(row, i, e.z, e.e, l_old, e.l);
      l_old = e.l;
    }
    // 2. normalize.
    const double l = stats[row * 4u + 1];
    g.normalize_steps(say, row, 0.0, l, y, en, t);
    say.finish_row(row, 0.0, l);
  }
}

void gpu_safe(Kernels& k, const Resolved& r, Recorder& rec) {
  SoftmaxNarration say(r, rec);
  SoftmaxGpuRun g(k, r, rec);
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
    double m_old = initial_state().m;
    for (int i = 0; i < r.n; ++i) {
      const TraceEntry e = g.entry(t1, row, i);
      say.running_max(row, i, e.z, m_old, e.m);
      m_old = e.m;
    }
    // 2. sum of exp(x_i - m): every term is at most 1, so nothing overflows.
    double l_old = 0.0;
    for (int i = 0; i < r.n; ++i) {
      const TraceEntry e = g.entry(t2, row, i);
      say.sum_exp_minus_max(row, i, e.z, m, e.e, l_old, e.l);
      l_old = e.l;
    }
    // 3. normalize.
    g.normalize_steps(say, row, m, l, y, en, t1);
    say.finish_row(row, m, l);
  }
}

void gpu_online(Kernels& k, const Resolved& r, Recorder& rec) {
  SoftmaxNarration say(r, rec);
  SoftmaxGpuRun g(k, r, rec);
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
    online_steps(say, g, row, t);
    const double m = stats[row * 4u], l = stats[row * 4u + 1];
    // 2. normalize.
    g.normalize_steps(say, row, m, l, y, en, t);
    say.finish_row(row, m, l);
  }
}

void gpu_logsumexp(Kernels& k, const Resolved& r, Recorder& rec) {
  SoftmaxNarration say(r, rec);
  SoftmaxGpuRun g(k, r, rec);
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
    online_steps(say, g, row, t);
    const double m = stats[row * 4u], l = stats[row * 4u + 1], lse = stats[row * 4u + 2];
    // LSE = log Σ exp(x_i) computed without overflow: m + log l.
    say.log_sum_exp(row, m, l, lse);
    for (int i = 0; i < r.n; ++i) say.log_softmax(row, i, g.entry(t, row, i).z, lse, y[g.at(row, i, 1)]);
    say.finish_row(row, m, l);
  }
}

namespace {

// The softmax recorders take the one head's recorder: several heads are attention's only.
template <void (*F)(Kernels&, const Resolved&, Recorder&)>
void one_head(Kernels& k, const Resolved& r, const HeadRecorders& heads) {
  F(k, r, *heads.front());
}

BigBuffer softmax_trace(const Resolved& r, bool keep_steps) {
  return trace_buffer_of(keep_steps, static_cast<double>(r.rows) * r.n * kTraceStrideBytes, "the step trace");
}

// One invocation walks its row, kRowSegment elements per dispatch at most.
long long row_segment(const Resolved& r) { return std::min(r.n, kRowSegment); }

}  // namespace

std::vector<GpuRow> softmax_gpu_rows() {
  const char* hint = "use a shorter row";
  return {
      {Algorithm::naive, one_head<gpu_naive>, softmax_trace, row_segment, hint, refuses_nothing},
      {Algorithm::safe, one_head<gpu_safe>, softmax_trace, row_segment, hint, refuses_nothing},
      {Algorithm::online, one_head<gpu_online>, softmax_trace, row_segment, hint, refuses_nothing},
      {Algorithm::logsumexp, one_head<gpu_logsumexp>, softmax_trace, row_segment, hint, refuses_nothing},
  };
}

}  // namespace flashstep::gpu
