// Recording off the UI thread: a recording the cost model says takes longer than a frame budget
// runs on a std::thread with RecordOptions' cancel flag and progress counter, so the window keeps
// drawing (progress bar, cancel button) and never freezes.
#pragma once

#include "app/ui/model/inputs.h"
#include "core/engine.h"

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace flashstep::ui {

// Rough cost of record(r) on this kind of machine (measured: about 2 µs per step plus 0.08 µs
// per cell written), and the memory its steps and deltas take.
double estimate_record_seconds(const Resolved& r);
double estimate_record_bytes(const Resolved& r);

inline constexpr double kBackgroundAbove = 0.1;   // s: record on a thread above this
inline constexpr double kMaxRecordBytes = 1.5e9;  // refuse recordings larger than this

// The GPU backend's seam: whoever owns an OpenGL 4.3 context (the window, app/gui.cpp) registers
// the gpu/ engine here; the shell then records with it when the Inputs panel says GPU. It runs
// on the UI thread, which holds that context. Empty `record`: no GPU backend (no GL 4.3, or
// off-screen rendering), and the GPU choice is disabled.
struct GpuBackend {
  std::function<Recording(const Resolved&, const RecordOptions&)> record;
  std::function<std::string(const Resolved&)> unsupported;  // why it cannot run r; "" if it can
  std::string device;                                       // the GL renderer, for the tooltip
  explicit operator bool() const { return static_cast<bool>(record); }
};
void set_gpu_backend(GpuBackend backend);
const GpuBackend& gpu_backend();

class RecordJob {
 public:
  RecordJob() = default;
  ~RecordJob();
  RecordJob(const RecordJob&) = delete;
  RecordJob& operator=(const RecordJob&) = delete;

  // Starts recording r on a thread; a job still running is cancelled first.
  void start(Resolved r, std::uint64_t ticket);
  void cancel();
  bool running() const { return thread_.joinable() && !finished_.load(); }
  bool busy() const { return thread_.joinable(); }
  // Working toward a result that will be used: busy and not cancelled (a cancelled thread may
  // still be finishing its current step).
  bool active() const { return busy() && !cancel_.load(); }
  float progress() const { return progress_.load(); }
  double seconds() const;  // since start

  // When the thread has finished: joins it and hands over the result (or the error message,
  // empty when it was cancelled). False while still running or when idle.
  bool collect(std::shared_ptr<Recording>& rec, std::string& error, bool& cancelled,
               std::uint64_t& ticket);

 private:
  void join();
  std::thread thread_;
  std::atomic<bool> cancel_{false};
  std::atomic<bool> finished_{false};
  std::atomic<float> progress_{0.0f};
  std::mutex mutex_;
  std::shared_ptr<Recording> result_;
  std::string error_;
  bool cancelled_ = false;
  std::uint64_t ticket_ = 0;
  double started_ = 0;
};

}  // namespace flashstep::ui
