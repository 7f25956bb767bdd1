// Recorder: the write side of a Recording, used by the CPU engines and by the GPU backend when
// it turns its trace buffers into steps.
//
//   Recorder rec(recording, keep_steps);
//   int m = rec.add_buffer({"m", rows, 1, Space::reg, "running max"});
//   rec.init(x, r, c, value);            // contents before the first step
//   rec.io().hbm_reads += 1;             // counted in every mode
//   if (rec.on()) {                      // building text is skipped in summary-only runs
//     rec.write(m, r, 0, new_m);
//     Step s; s.pass = 1; ...; rec.commit(std::move(s));
//   }
#pragma once

#include "core/recording.h"

#include <atomic>

namespace flashstep {

class Recorder {
 public:
  Recorder(Recording& rec, bool keep_steps);
  // Lets commit() report progress towards `expected_steps` and stop when *cancel is set. The
  // progress goes from `from` to 1 (a GPU recording spends the part before `from` on its
  // dispatches).
  void watch(const std::atomic<bool>* cancel, std::atomic<float>* progress, long long expected_steps,
             float from = 0.0f);

  bool on() const { return rec_.keep_steps; }
  IoCounters& io() { return rec_.io; }
  Recording& recording() { return rec_; }

  void reserve(long long steps, long long deltas);
  int add_buffer(BufferInfo info);
  // Sets a cell of the state before the first step.
  void init(int buffer, int r, int c, double v);
  void init(int buffer, const MatrixRM& values);
  // Changes a cell during the step being built (no-op when !on()).
  void write(int buffer, int r, int c, double v);
  void undefine(int buffer, int r, int c);
  // Ends a part of the step being built (StepPart): its writes are those made so far.
  void end_part(Step& step, int line, int line_end, std::string text);
  // Closes the step: stamps the IO counters and the delta range, adds a keyframe when due.
  void commit(Step step);

 private:
  void set(int buffer, int r, int c, double v, bool defined);
  Recording& rec_;
  State current_;
  std::size_t cells_ = 0;
  std::size_t deltas_at_keyframe_ = 0;
  const std::atomic<bool>* cancel_ = nullptr;
  std::atomic<float>* progress_ = nullptr;
  long long expected_steps_ = 0;
  float from_ = 0.0f;
};

}  // namespace flashstep
