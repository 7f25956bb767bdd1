// Inside the GPU engine: what the softmax recorders (softmax_gpu.cpp, chunked_gpu.cpp) share.
// The buffers, labels and IO counting mirror core/softmax.cpp, so both backends' Recordings line
// up step by step; the values come from the GPU.
#pragma once

#include "core/text.h"
#include "gpu/kernels.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace flashstep::gpu {

inline constexpr int kTraceStride = 5;  // z, e, m, l, rescale factor (chunked: e of the normalize pass)

// What every softmax recorder shares: the CPU engine's buffers, the input on the GPU, the
// row statistics (m, l, LSE per row), and how steps name things.
struct SoftmaxGpuRun {
  Kernels& k;
  const Resolved& r;
  Recorder& rec;
  const bool scaled;
  const std::size_t cells;
  int bx, be, by, bm = -1, bl;
  Buffer X, stats, Y, done;
  int row_passes = 0;  // sequential passes run so far: done[row] must be row_passes * n

  SoftmaxGpuRun(Kernels& k_, const Resolved& r_, Recorder& rec_, bool with_m)
      : k(k_), r(r_), rec(rec_), scaled(r_.scale != 1.0),
        cells(static_cast<std::size_t>(r_.rows) * static_cast<std::size_t>(r_.n)),
        X(k_.buffer("the input x", to_floats(r_.x))),
        stats(k_.buffer("the row statistics", static_cast<std::size_t>(r_.rows) * 16)),
        Y(k_.buffer("the output y", cells * 4)),
        done(k_.buffer("the progress counters", static_cast<std::size_t>(r_.rows) * 4)) {
    bx = rec.add_buffer({"x", r.rows, r.n, Space::hbm, "the input scores, in HBM"});
    be = rec.add_buffer({"e", r.rows, r.n, Space::reg, "exp(x_i - m) as last computed, on chip"});
    by = rec.add_buffer({"y", r.rows, r.n, Space::hbm, "the output, written to HBM"});
    if (with_m) bm = rec.add_buffer({"m", r.rows, 1, Space::reg, "running max of each row"});
    bl = rec.add_buffer({"l", r.rows, 1, Space::reg, "running sum of exponentials of each row"});
    rec.init(bx, r.x);
    for (int row = 0; row < r.rows; ++row) {
      if (bm >= 0) rec.init(bm, row, 0, -kInf);
      rec.init(bl, row, 0, 0.0);
    }
    rec.recording().output = MatrixRM::Constant(r.rows, r.n, 0.0);
  }

  // A trace of `per_cell` floats per element, allocated only when steps are kept.
  Buffer trace_buffer(int per_cell) const {
    return k.buffer("the step trace", rec.on() ? cells * per_cell * 4 : 0, nullptr, kTraceHint);
  }
  const Program& program(const char* shader, int mode, bool with_lse = false) {
    Defines d = common_defines(r, rec.on());
    d.push_back({"MODE", std::to_string(mode)});
    if (with_lse) d.push_back({"WITH_LSE", "1"});
    return k.program(shader, d);
  }
  void set_uniforms(const Program& p) const {
    p.use();
    p.set("rows", r.rows);
    p.set("n", r.n);
    p.set("s", scale_of(r));
  }
  // One invocation per row walks it in order, kSegment elements per dispatch.
  void run_rows(const Program& p, const Buffer& trace) {
    constexpr int kSegment = 16384;
    set_uniforms(p);
    X.bind(0);
    stats.bind(1);
    trace.bind(2);
    done.bind(3);
    for (int first = 0; first < r.n; first += kSegment) {
      p.set("first", first);
      p.set("last", std::min(r.n, first + kSegment));
      dispatch(groups_for(r.rows, 64));
    }
    ++row_passes;
  }
  // Every row went through every element in every sequential pass.
  void check_done(int per_row, const char* hint) const {
    const auto d = done.read<int>(static_cast<std::size_t>(r.rows));
    for (int row = 0; row < r.rows; ++row)
      if (d[row] != per_row)
        stopped_early(std::string(algorithm_id(r.scenario.algorithm)) + " (row " +
                          std::to_string(row + 1) + ")",
                      hint);
  }
  void check_done() const { check_done(row_passes * r.n, "use a shorter row"); }
  // One invocation per element.
  void run_normalize(const Program& p, const Buffer& trace) const {
    set_uniforms(p);
    X.bind(0);
    stats.bind(1);
    Y.bind(2);
    trace.bind(3);
    dispatch(groups_for(static_cast<long long>(cells), 256));
  }
  std::vector<float> read(const Buffer& trace, int per_cell) const {
    return rec.on() ? trace.read<float>(cells * per_cell) : std::vector<float>{};
  }

  // The IO of reading x_i (and scaling it) and of writing y_i, as the CPU engine counts them.
  void load_io() {
    rec.io().hbm_reads += 1;
    if (scaled) rec.io().flops += 1;
  }
  void store(int row, int i, double y) {
    rec.io().hbm_writes += 1;
    rec.write(by, row, i, y);
    rec.recording().output(row, i) = y;
  }
  void finish_row(int row, double m, double l) {
    if (bm >= 0) rec.recording().m[row] = m;
    rec.recording().l[row] = l;
  }

  std::string x_name(int i) const { return (scaled ? "s·x" : "x") + sub(i + 1); }
  std::string prefix(int row) const { return r.rows > 1 ? strf("row %d: ", row + 1) : ""; }
  Region cell(int b, int row, int i) const { return {b, row, i, row + 1, i + 1}; }
  Region reg(int b, int row) const { return {b, row, 0, row + 1, 1}; }
  std::size_t at(int row, int i, int per_cell) const {
    return (static_cast<std::size_t>(row) * r.n + i) * per_cell;
  }

  std::string overflow_note(double arg, double e) const {
    if (!std::isinf(e) || !std::isfinite(arg)) return "";
    return strf(" — overflow: exp(%s) is larger than the largest %s (%s), so it becomes inf",
                num(arg).c_str(), std::string(precision_name(r.scenario.precision)).c_str(),
                num(precision_max(r.scenario.precision)).c_str());
  }
  static std::string nan_note(double a, double b, double y) {
    if (std::isinf(b) && std::isfinite(a)) return " — a finite number divided by inf is 0";
    if (!std::isnan(y) || std::isnan(a) || std::isnan(b)) return "";
    return " — inf / inf is undefined: nan";
  }

  // The steps of the last pass of naive, safe and online, y_i = exp(x_i - m) / l (naive has no
  // m: subtract_m == false), from what softmax_normalize.comp left: y, and e_i in `e_norm`; z_i
  // comes from the trace of the row's first pass.
  void normalize_steps(int row, double m, double l, bool subtract_m, int pass, int line,
                       const std::vector<float>& y, const std::vector<float>& e_norm,
                       const std::vector<float>& z_trace) {
    for (int i = 0; i < r.n; ++i) {
      load_io();
      rec.io().exps += 1;
      rec.io().flops += subtract_m ? 2 : 1;
      const double yi = y[at(row, i, 1)];
      store(row, i, yi);
      if (!rec.on()) continue;
      const double z = z_trace[at(row, i, kTraceStride)], e = e_norm[at(row, i, 1)];
      rec.write(be, row, i, e);
      Step st;
      st.pass = pass, st.line = line, st.row = row;
      st.label = prefix(row) + "y" + sub(i + 1);
      if (subtract_m)
        st.text = strf("y%s = exp(%s - m) / l = exp(%s - %s) / %s = %s / %s = %s", sub(i + 1).c_str(),
                       x_name(i).c_str(), num(z).c_str(), num(m).c_str(), num(l).c_str(),
                       num(e).c_str(), num(l).c_str(), num(yi).c_str());
      else
        st.text = strf("y%s = exp(%s) / l = %s / %s = %s", sub(i + 1).c_str(), x_name(i).c_str(),
                       num(e).c_str(), num(l).c_str(), num(yi).c_str());
      st.text = prefix(row) + st.text + overflow_note(z, e) + nan_note(e, l, yi);
      st.reads = {cell(bx, row, i), reg(bl, row)};
      if (subtract_m) st.reads.push_back(reg(bm, row));
      st.writes = {cell(be, row, i), cell(by, row, i)};
      rec.commit(std::move(st));
    }
  }
};

}  // namespace flashstep::gpu
