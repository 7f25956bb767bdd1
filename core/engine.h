// The CPU engine: runs one algorithm of the catalogue on a Resolved scenario and records it.
// It is the reference every other backend is compared with.
#pragma once

#include "core/recording.h"
#include "core/scenario.h"

#include <atomic>
#include <stdexcept>
#include <string>
#include <vector>

namespace flashstep {

inline constexpr long long kDefaultMemoryBudget = 1ll << 30;  // 1 GiB

struct RecordOptions {
  bool keep_steps = true;  // false: summary only (output, final m and l, IO totals)
  // A recording whose estimate (estimate_recording_bytes) is above this is refused with an
  // InputError naming the estimate, instead of swapping or being killed.
  long long memory_budget = kDefaultMemoryBudget;
  // For recordings made off the UI thread: set *cancel to stop (record() then throws
  // Cancelled); *progress goes from 0 to 1 as steps are recorded.
  const std::atomic<bool>* cancel = nullptr;
  std::atomic<float>* progress = nullptr;
};

struct Cancelled : std::runtime_error {
  Cancelled() : std::runtime_error("recording cancelled") {}
};

// The number of steps record() will produce for r (exact), without running it.
long long estimate_steps(const Resolved& r);
// The size of a full recording of r, without running it: steps (exact), cell writes and state
// cells (close), bytes (within a factor of about 1.5).
struct RecordingSize {
  long long steps = 0, deltas = 0, cells = 0, bytes = 0;
};
RecordingSize estimate_recording(const Resolved& r);
// The steps, cells and deltas of each algorithm's recording (no bytes); the algorithm table
// (core/algorithms.cpp) points at them.
RecordingSize size_naive(const Resolved& r);
RecordingSize size_safe(const Resolved& r);
RecordingSize size_online(const Resolved& r);
RecordingSize size_logsumexp(const Resolved& r);
RecordingSize size_chunked(const Resolved& r);
RecordingSize size_attn_naive(const Resolved& r);
RecordingSize size_attn_online(const Resolved& r);
RecordingSize size_attn_tiled(const Resolved& r);
RecordingSize size_attn_tiled_v2(const Resolved& r);
RecordingSize size_attn_backward(const Resolved& r);
RecordingSize size_attn_flash_backward(const Resolved& r);
long long estimate_recording_bytes(const Resolved& r);

Recording record(const Resolved& r, const RecordOptions& opt = {});

// What every backend does before it records: refuse a full recording whose estimate is above
// opt.memory_budget (InputError), and start a Recording that describes r (shape, blocks,
// notices, m and l not yet defined) with nothing recorded.
void check_memory_budget(const Resolved& r, const RecordOptions& opt);
// A row that holds N × N matrices (its `square` trait: attn-naive's S and P) materializes them
// in the values of precision p, for each of `heads` heads. Where those alone (|square|·H·N²
// values) are more than this machine's physical memory, throws an InputError before anything
// is allocated, naming the size, the rows of its group without an N × N matrix and the largest
// N that fits. Does nothing for the other algorithms. record() and run_timed() call it.
void check_s_and_p_fit(const Resolved& r, Precision p, int heads = 1);
Recording start_recording(const Resolved& r, std::string backend, std::string device);
// Lets the recorder report progress, stop on cancel, and reserve room for the deltas.
class Recorder;
void prepare_recorder(Recorder& recorder, const Resolved& r, const RecordOptions& opt);
inline Recording record(const Scenario& s, const RecordOptions& opt = {}) {
  return record(resolve(s), opt);
}

// The algorithm in the paper's notation (its row in core/algorithms.cpp); Step::line indexes
// it from 1.
const std::vector<std::string>& pseudocode(Algorithm a);

// Per-algorithm engines (softmax.cpp, attention.cpp). Each fills `rec` through the Recorder.
class Recorder;
void record_naive(const Resolved& r, Recorder& rec);
void record_safe(const Resolved& r, Recorder& rec);
void record_online(const Resolved& r, Recorder& rec);
void record_chunked(const Resolved& r, Recorder& rec);
void record_logsumexp(const Resolved& r, Recorder& rec);
void record_attn_naive(const Resolved& r, Recorder& rec);
void record_attn_online(const Resolved& r, Recorder& rec);
void record_attn_tiled(const Resolved& r, Recorder& rec);
void record_attn_tiled_v2(const Resolved& r, Recorder& rec);
// attn-naive's forward that also hands back P as it left it in HBM (exactly, in doubles), for
// the standard backward that reads it back.
void record_attn_naive(const Resolved& r, Recorder& rec, MatrixRM& P);
void record_attn_backward(const Resolved& r, Recorder& rec);
void record_attn_flash_backward(const Resolved& r, Recorder& rec);

// The merge tree of `chunked`: level 0 holds the K chunk results, each further level merges
// neighbours pairwise (an odd one out is carried up). Node ids count level by level.
struct MergeNode {
  int level, index;  // position in the tree
  int left = -1, right = -1;  // child node ids (right == -1: carried up unchanged)
};
std::vector<MergeNode> merge_tree(int K);

}  // namespace flashstep
