// Inside the GPU engine: what the per-algorithm recorders share, and their entry points.
#pragma once

#include "core/engine.h"
#include "core/recorder.h"
#include "gpu/program.h"

#include <atomic>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace flashstep::gpu {

// The part of a recording's progress bar its dispatches take when steps are kept; building the
// steps from the traces takes the rest. Which of the two takes longer depends on the driver (on
// llvmpipe the dispatches run on the CPU too): an even split, so that the bar moves through both.
inline constexpr float kDispatchShare = 0.5f;

// Programs compiled so far (keyed by their composed source), the context's limits (the loop cap
// measured by a probe dispatch when the Kernels are made), the timer.
class Kernels {
 public:
  Kernels();
  // The program for shader `name` with `defines` (compiled on first use).
  const Program& program(const char* name, const Defines& defines);
  const Limits& limits() const { return limits_; }
  GpuTimer& timer() { return timer_; }

  // A storage buffer for `what`; throws Unsupported when it exceeds the largest the driver
  // allows (`hint` says what to change).
  Buffer buffer(const std::string& what, std::size_t bytes, const void* data = nullptr,
                const char* hint = "use a smaller input") const;
  template <class T>
  Buffer buffer(const std::string& what, const std::vector<T>& v) const {
    return buffer(what, v.size() * sizeof(T), v.data());
  }

  // Q, K, V (and dO) of head h >= 1 of r (core/heads.h) as the floats a shader reads. Drawn once
  // and kept while r's seed, shape and precision stay those of the last multi-head run (drawn
  // again, with dO, for a row that takes dO where a forward's run left none): drawing 15 heads
  // at N = 16384 takes seconds, far longer than the GPU takes to use them, and a benchmark that
  // repeats a run would spend its time on the host.
  struct HeadFloats {
    std::vector<float> q, k, v, d_o;  // d_o: empty unless the algorithm takes dO
  };
  const HeadFloats& head_floats(const Resolved& r, int h);

  // For one record(): its cancel flag and progress counter (RecordOptions), and the part of the
  // progress its dispatches take (the rest is the steps being built).
  void watch(const std::atomic<bool>* cancel, std::atomic<float>* progress, float share);
  // After dispatch `done` of the `total` a run makes: where someone watches the progress (the
  // window), waits for the GPU and reports done / total of the dispatches' share, so that a long
  // recording's bar moves while the GPU works; throws Cancelled when asked to stop, so that a
  // superseded recording ends at the next dispatch rather than after its last. A run nobody
  // watches (the command line, the benchmarks) queues its dispatches without waiting.
  void dispatched(long long done, long long total);

 private:
  const std::atomic<bool>* cancel_ = nullptr;
  std::atomic<float>* progress_ = nullptr;
  float share_ = 0.0f;
  struct HeadCache {
    std::uint64_t seed = 0;
    int n = 0, d = 0;
    Precision precision = Precision::fp32;
    std::vector<HeadFloats> heads;  // heads[h - 1]; empty where not drawn yet
  };
  HeadCache head_cache_;
  std::map<std::string, Program> cache_;
  Limits limits_;
  GpuTimer timer_;
};

// The #defines every shader takes from a scenario: PREC, SCALED, MASK (Mask::kind(), for
// shaders/mask.glsl), TRACE, and PARAM_<KEY> for each parameter the algorithm takes.
Defines common_defines(const Resolved& r, bool trace);
// The score scale as the engines use it, rounded to the precision.
float scale_of(const Resolved& r);
// A matrix as the float array a shader reads (row-major; values already rounded to the precision).
std::vector<float> to_floats(const MatrixRM& m);
// What a refusal of a step trace too large for one buffer suggests.
inline constexpr const char* kTraceHint = "record with --steps none, or use a smaller input";
// Bytes per element of the softmax step traces: z, e, m, l and the rescale factor, as floats.
inline constexpr double kTraceStrideBytes = 5 * 4;

// Refuses a result whose shader stopped before the end of its work (`what` says which), as
// llvmpipe does when one invocation passes 65535 loop iterations; the message names the cap the
// probe measured (k.limits().loop_cap). Throws Unsupported.
[[noreturn]] void stopped_early(const Kernels& k, const std::string& what, const char* hint);

// The nodes of the `chunked` merge tree with K leaves, and the bytes it takes in shared memory.
int merge_tree_nodes(int K);

// The recorders of one run: one for a lesson's single head, or one per head (summaries only)
// for `run --heads H`; record() stacks the heads' recordings (core/heads.h).
using HeadRecorders = std::vector<Recorder*>;

// A storage buffer a run allocates: its bytes for one head, what it is, and what a refusal of
// it suggests.
struct BigBuffer {
  double bytes = 0;
  const char* what = "";
  const char* hint = "";
};

// The GPU table: one row per algorithm that has a GPU engine, everything the engine asks about
// it. The rows sit beside their recorders, one list per family file (softmax_gpu.cpp,
// chunked_gpu.cpp, attention_gpu.cpp, tiled_gpu.cpp, backward_gpu.cpp); gpu_engine.cpp joins the
// lists. An algorithm with no row is refused ("… has no GPU engine"); core's row says the same by its
// `gpu` flag, and a test holds the two equal.
struct GpuRow {
  Algorithm algorithm;
  // Runs the shaders, reads the traces back and commits the steps of every head's recorder
  // (one for a lesson; H, summaries only, for `run --heads H`, all heads in the same dispatches).
  void (*record)(Kernels& k, const Resolved& r, const HeadRecorders& heads);
  // The largest storage buffer one head's run allocates besides its input (a step trace when
  // steps are kept, S for attn-naive); bytes 0 where none is larger than the input.
  BigBuffer (*largest_buffer)(const Resolved& r, bool keep_steps);
  // The loop iterations one invocation of its longest-running shader must run, counting only
  // the loops whose bound comes from a uniform (N, n, or a block's width min(Bc, N − c0)): no
  // compiler can unroll those, so every driver counts at least these, while loops of a
  // constant count (over d, by kUnroll) may be unrolled and are not counted. Checked against
  // the driver's loop cap before the run.
  long long (*least_loop_iterations)(const Resolved& r);
  // What a refusal for the loop cap suggests: "use a smaller N", ...
  const char* loop_hint;
  // Why this GPU cannot run r with `heads` heads as the algorithm needs it (shared memory,
  // workgroup size, GPU memory), or "". Checked after fp64 and the heads, before the buffers.
  std::string (*refuses)(const Resolved& r, const Limits& lim, int heads);
};

// The row of algorithm a, or nullptr when it has no GPU engine.
const GpuRow* gpu_row(Algorithm a);

// Each family's rows, beside its recorders.
std::vector<GpuRow> softmax_gpu_rows();    // naive, safe, online, logsumexp
std::vector<GpuRow> chunked_gpu_rows();    // chunked
std::vector<GpuRow> attention_gpu_rows();  // attn-naive, attn-online
std::vector<GpuRow> tiled_gpu_rows();      // attn-tiled, attn-tiled-v2
std::vector<GpuRow> backward_gpu_rows();   // attn-backward, attn-flash-backward

// What the GPU's memory is taken to be: what the driver says, else this machine's memory (a
// driver that runs on the CPU, as llvmpipe does, allocates there).
double memory_bound(const Limits& lim);

// A row's refusals that need nothing of r: "".
inline std::string refuses_nothing(const Resolved&, const Limits&, int) { return ""; }
// The largest buffer of a step trace of `bytes` (0 when steps are not kept).
inline BigBuffer trace_buffer_of(bool keep_steps, double bytes, const char* what) {
  return {keep_steps ? bytes : 0.0, what, kTraceHint};
}

}  // namespace flashstep::gpu
