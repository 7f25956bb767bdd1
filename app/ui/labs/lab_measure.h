// "Measure it yourself": naive vs tiled attention and safe vs online softmax timed for growing
// sizes on this machine with the fast kernels (core/measure.h), off the UI thread, plotted
// against N as the points arrive; where the window has a GPU backend that records on a thread of
// its own, the attention race also on the GPU's shaders. Naive attention that would not fit in
// memory is not run: its point says how much it would need.
#pragma once

#include "core/measure.h"

#include <atomic>
#include <optional>
#include <cstdint>
#include <string>
#include <mutex>
#include <thread>
#include <vector>

namespace flashstep::ui {

// The lab's attention sizes: N = 2^9 = 512 up to 2^14 = 16384 at most.
inline constexpr int kMeasureMinLog2 = 9, kMeasureMaxLog2 = 14;

struct MeasureLab {
  MeasureLab() = default;
  MeasureLab(const MeasureLab&) = delete;
  MeasureLab& operator=(const MeasureLab&) = delete;
  ~MeasureLab();

  int max_attention_log2 = 13;  // largest N = 2^13 = 8192
  int d = 64;
  // Also time the GPU shaders, when there is a GPU backend: what the user ticked, or, until they
  // do, measure_gpu_by_default().
  std::optional<bool> gpu;

  // Filled by the worker thread; read under `mutex` by the UI.
  std::mutex mutex;
  std::vector<MeasurePoint> points;
  std::atomic<float> progress{0.0f};
  std::atomic<bool> running{false}, cancel{false};
  std::thread worker;
};

void start_measure(MeasureLab& lab);
void stop_measure(MeasureLab& lab);  // asks the worker to stop and waits for it
// What a run of the lab times: attention N = 512 up to 2^max_attention_log2 at the lab's d, the
// softmax sizes, and the GPU race where measure_gpu_wanted(lab).
MeasurePlan measure_plan(const MeasureLab& lab);
// The lab's run on the calling thread, the CPU alone (a picture made from the command line, which
// has no window to plot the points into as they come): the lab's points, replaced.
void measure_now(MeasureLab& lab);
// The lab's largest N and d as `flashstep shot` and `gif` take them (--measure-n, --measure-d):
// "" or the problem, naming the option.
std::string set_measure_sizes(MeasureLab& lab, int largest_n, int d);

// "3.4×": the ratio of the slower algorithm's time to the faster one's at the largest size
// both have, or "" when there is none yet.
// 512, 64K, 16M: sizes short enough to sit under their points.
std::string size_text(std::int64_t n);
// Only the points of one backend count (`gpu`).
std::string speedup_text(const std::vector<MeasurePoint>& points, Algorithm slow, Algorithm fast, bool gpu = false);
// Whether the GPU race can run here: a GPU backend that records off the UI thread.
bool measure_gpu_available();
// Whether an OpenGL renderer string names a software renderer (Mesa's llvmpipe, softpipe,
// SwiftShader, ...): its "GPU" is this CPU's cores.
bool software_renderer(const std::string& device);
// The GPU race runs unless asked not to on a real GPU; on a software renderer only when asked
// (it takes minutes and times the CPU a second time).
bool measure_gpu_by_default();
bool measure_gpu_wanted(const MeasureLab& lab);
// A figure as a legend or a curve's end says it: "38149 ms at N = 4096" (attention),
// "12.3 ms at n = 16M" (softmax), so two figures of different sizes are never read as a race.
std::string figure_text(double value, const char* unit, std::int64_t n, bool attention);

// Draws into the current window; `scale` is the UI scale. On a slide (nothing scrolls) its
// plots take the height left.
void draw_measure_lab(MeasureLab& lab, float scale, bool slide = false);

}  // namespace flashstep::ui
