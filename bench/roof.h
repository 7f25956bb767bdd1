// The machine's own roof, measured in the same run as the kernels: the FMA rate of every core
// with the vectors of this build's instruction set, and the rate at which every core together
// streams memory. bench_cpu and bench_isa state each kernel as a share of them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace bench {

// The instruction set the kernels were compiled for: "AVX-512", "AVX2+FMA", "SSE2" (or "scalar").
std::string isa_name();
// Floats in one vector of that instruction set.
int vector_floats();

// FLOP/s of independent multiply-add chains held in vector registers, on every core at once
// (2 FLOPs per lane and multiply-add): the arithmetic peak a kernel of this build can reach.
// Best of `rounds` rounds of about `seconds` each.
double fma_peak_flops(double seconds = 0.2, int rounds = 5);

// Milliseconds of each of `repeats` runs of the same chains on every core, each run sized to take
// about `ms`: how steady the cores themselves are over a run as long as a kernel's, measured beside
// the kernel's own repeats (a register-only loop has no memory, deal or page fault to vary).
std::vector<double> fma_repeats_ms(double ms, int repeats);

// The same chains sized once to take about `ms`, to be run one at a time between a kernel's
// repeats (bench_isa paired): each call runs the same work and returns its milliseconds.
class FmaRun {
 public:
  explicit FmaRun(double ms);
  double operator()() const;

 private:
  std::int64_t iters_ = 1;
};

// Milliseconds of each of `repeats` runs in which every core reads all of one shared buffer of
// `floats` floats (a vector sum) over and over, each run sized to take about `ms`: how steady the
// cache the cores share is over a run as long as a kernel's. With the size of K and V, which
// every thread of the tiled kernels reads once for each of its Q blocks, the buffer lives where
// theirs do (in the last-level cache, beside whatever else the machine runs), so that a
// kernel's spread can be set beside this one as well as beside fma_repeats_ms.
std::vector<double> shared_read_repeats_ms(std::int64_t floats, double ms, int repeats);

// Bytes/s of every core reading its share of `floats` floats once (a vector sum): the
// bandwidth a pass over memory can reach. Best of `rounds`.
double read_bandwidth(std::int64_t floats = std::int64_t{1} << 26, int rounds = 5);

// Online softmax's memory traffic with none of its arithmetic, on x (rows × n) into y: a max
// pass, then x read again and written to y with streaming stores. Rows in parallel, or one
// long row split across the threads, as the kernel splits it.
void online_traffic(const float* x, float* y, std::int64_t rows, std::int64_t n);

// Elements per second of online softmax (fast::softmax_online) on every core, each core's row of
// normal numbers (as bench_isa softmax's input) and its output in its L2 cache (a row that small is
// neither read ahead nor written past the cache): its arithmetic (two exponentials per element,
// and a rescale where the running max moves) with no memory traffic, the bound that exp sets on a
// pass over memory.
double cached_online_rate(int rounds = 3);

}  // namespace bench
