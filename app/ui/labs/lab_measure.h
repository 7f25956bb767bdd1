// "Measure it yourself": naive vs tiled attention and safe vs online softmax timed for growing
// sizes on this machine with the fast kernels (core/measure.h), off the UI thread, plotted
// against N as the points arrive. Naive attention that would not fit in memory is not run:
// its point says how much it would need.
#pragma once

#include "core/measure.h"

#include <atomic>
#include <cstdint>
#include <string>
#include <mutex>
#include <thread>
#include <vector>

namespace flashstep::ui {

struct MeasureLab {
  MeasureLab() = default;
  MeasureLab(const MeasureLab&) = delete;
  MeasureLab& operator=(const MeasureLab&) = delete;
  ~MeasureLab();

  int max_attention_log2 = 13;  // largest N = 2^13 = 8192
  int d = 64;

  // Filled by the worker thread; read under `mutex` by the UI.
  std::mutex mutex;
  std::vector<MeasurePoint> points;
  std::atomic<float> progress{0.0f};
  std::atomic<bool> running{false}, cancel{false};
  std::thread worker;
};

void start_measure(MeasureLab& lab);
void stop_measure(MeasureLab& lab);  // asks the worker to stop and waits for it

// "3.4×": the ratio of the slower algorithm's time to the faster one's at the largest size
// both have, or "" when there is none yet.
// 512, 64K, 16M: sizes short enough to sit under their points.
std::string size_text(std::int64_t n);
std::string speedup_text(const std::vector<MeasurePoint>& points, Algorithm slow, Algorithm fast);

// Draws into the current window; `scale` is the UI scale.
void draw_measure_lab(MeasureLab& lab, float scale);

}  // namespace flashstep::ui
