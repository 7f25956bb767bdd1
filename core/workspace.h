// The working memory of a kernel, counted where it is allocated: the one figure that `run`'s
// peak_bytes, the Measure lesson's memory chart and BENCHMARKS.md all report.
//
// A kernel takes a Workspace::Hold for every buffer it allocates beyond its inputs and outputs
// (S and P of naive attention, each thread's tiles of the tiled kernels), for as long as it
// holds the buffer. Eigen allocates with malloc, so counting operator new would miss these, and
// the resident-set size hides small buffers in memory the allocator already has; counting at
// the allocation is exact. Not counted: the inputs and outputs (Q, K, V, O, x, y and the m, l
// the caller asks for), the stack, and the blocking buffers Eigen's matrix product allocates
// inside one call (a few hundred KiB at most, independent of N).
#pragma once

#include <cstdint>

namespace flashstep {

class Workspace {
 public:
  // Counts `bytes` as held from construction to destruction. Thread-safe: the tiled kernels
  // hold their tiles per thread.
  class Hold {
   public:
    explicit Hold(std::int64_t bytes);
    ~Hold();
    Hold(const Hold&) = delete;
    Hold& operator=(const Hold&) = delete;

   private:
    std::int64_t bytes_;
  };

  // The largest total held at once since the last reset_peak(), and what is held now.
  static std::int64_t peak();
  static std::int64_t current();
  static void reset_peak();  // the peak becomes what is held now
};

}  // namespace flashstep
