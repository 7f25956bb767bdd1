// What the softmax lessons say at every step, for every backend: the CPU engine
// (core/softmax.cpp) and the GPU recorders (gpu/softmax_gpu.cpp, gpu/chunked_gpu.cpp) compute,
// then hand their numbers to a builder here, which
//  - counts the step's IO (in every mode, also when no steps are kept),
//  - writes the cells the step changed,
//  - commits the Step: pass, pseudocode lines, label, the sentence with the numbers, the regions
//    read and written.
// One narration for both backends, so they cannot tell different stories; compare() checks
// that their sentences agree word for word.
//
// Step::line indexes the algorithm's pseudocode (its row in core/algorithms.cpp).
// Numbers arrive as doubles (the CPU engine converts its T with to_double, the GPU gives its
// floats); indices are 0-based and the sentences count from 1, as the papers do.
#pragma once

#include "core/engine.h"
#include "core/recorder.h"

#include <string>
#include <vector>

namespace flashstep {

// One element folded into a running (m, l) by the online normalizer (Milakov & Gimelshein):
// z = (scaled) x_i, e = exp(z - m), factor = exp(m_old - m) rescales the old sum.
struct OnlineNumbers {
  double z, m_old, l_old, m, l, factor, e;
};

class SoftmaxNarration {
 public:
  // Adds the buffers of r's algorithm (x, e, y, m unless naive, l, LSE for logsumexp) with
  // their contents before the first step, the pass names, and an output of zeros.
  SoftmaxNarration(const Resolved& r, Recorder& rec);

  // naive, pass 1: l_i = l_{i-1} + exp(z).
  void sum_exp(int row, int i, double z, double e, double l_old, double l);
  // safe, pass 1: m_i = max(m_{i-1}, z).
  void running_max(int row, int i, double z, double m_old, double m);
  // safe, pass 2: l_i = l_{i-1} + exp(z - m).
  void sum_exp_minus_max(int row, int i, double z, double m, double e, double l_old, double l);
  // online and logsumexp, pass 1: (m, l) updated together.
  void online(int row, int i, const OnlineNumbers& u);
  // The last pass of naive, safe and online: y_i = exp(z - m) / l (naive: exp(z) / l), e = the
  // exponential, written to HBM and to the output.
  void normalize(int row, int i, double z, double m, double l, double e, double y);
  // logsumexp, pass 2: LSE = m + log l, then log y_i = z - LSE.
  void log_sum_exp(int row, double m, double l, double lse);
  void log_softmax(int row, int i, double z, double lse, double y);
  // The row's final m and l (the recording's results).
  void finish_row(int row, double m, double l);

  Recorder& recorder() { return rec_; }

 protected:
  // Reading x_i from HBM and scaling it: one read, one flop when scaled.
  void load_io();
  // Writing y_i to HBM and to the output.
  void store(int row, int i, double y);
  std::string x_name(int i) const;    // "x₃" or "s·x₃"
  std::string prefix(int row) const;  // "row 2: " when there is more than one row
  static Region cell(int b, int row, int i) { return {b, row, i, row + 1, i + 1}; }
  static Region reg(int b, int row) { return {b, row, 0, row + 1, 1}; }
  std::string overflow_note(double arg, double e) const;

  const Resolved& r_;
  Recorder& rec_;
  const bool scaled_;
  int bx_, be_, by_, bm_ = -1, bl_, blse_ = -1;
  MatrixRM* y_ = nullptr;  // the recording's output, written element by element
  int normalize_pass_ = 0, normalize_line_ = 0;
};

// `chunked`: K workers each run the online update over their own chunk, in lockstep; their
// (m, l) pairs merge up a tree (merge_tree(K)); every worker normalizes its chunk. One step
// covers element t of every chunk: open it, add each worker's numbers, commit it.
class ChunkedNarration : public SoftmaxNarration {
 public:
  // Adds m_tree and l_tree after the buffers of SoftmaxNarration.
  ChunkedNarration(const Resolved& r, Recorder& rec);

  // The first element of worker w and one past its last: sizes differ by at most one, none is
  // empty.
  int begin(int w) const { return static_cast<int>(static_cast<long long>(w) * r_.n / K_); }
  int longest() const { return begin(1) - begin(0) + (r_.n % K_ ? 1 : 0); }
  int nodes() const { return static_cast<int>(tree_.size()); }
  const MergeNode& node(int id) const { return tree_[id]; }

  // Every worker's and node's (m, l) = (-inf, 0) before the row starts.
  void start_row(int row);
  // Pass 1: worker w reads element i.
  void worker(Step& st, int row, int w, int i, const OnlineNumbers& u);
  void commit_workers(Step& st, int row, int t);
  // Pass 2: node id of the tree from its children (left only, when it has no partner).
  void merge(int row, int id, double m_left, double l_left, double m_right, double l_right,
             double m, double l);
  // The global (m, l) every worker reads before pass 3.
  void global(int row, double m, double l);
  // Pass 3: worker's element i normalized with the global (m, l).
  void normalize_element(Step& st, int row, int i, double z, double m, double l, double e, double y);
  void commit_normalized(Step& st, int row, int t);

 private:
  const int K_;
  const std::vector<MergeNode> tree_;
  int btm_, btl_;
};

}  // namespace flashstep
