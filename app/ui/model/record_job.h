// Recording off the UI thread: a recording the cost model says takes longer than a frame budget,
// and every GPU recording in the window, runs on a std::thread with RecordOptions' cancel flag
// and progress counter, so the window keeps drawing (progress bar, cancel button) and never
// freezes.
#pragma once

#include "app/ui/model/inputs.h"
#include "core/algorithms.h"
#include "core/engine.h"

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace flashstep::ui {

// Rough cost of record(r) on this kind of machine (measured: about 2 µs per step plus 0.08 µs
// per cell written), and the memory its steps and deltas take.
double estimate_record_seconds(const Resolved& r);
double estimate_record_bytes(const Resolved& r);

inline constexpr double kBackgroundAbove = 0.1;   // s: record on a thread above this
inline constexpr double kMaxRecordBytes = 1.5e9;  // refuse recordings larger than this

// How a recording is made: core's record() on the CPU, or a GPU backend's. Throws Cancelled
// when *opt.cancel is set, as record() does.
using RecordFn = std::function<Recording(const Resolved&, const RecordOptions&)>;

// The GPU backend's seam: whoever owns an OpenGL 4.3 context (the window, app/gpu_worker.h)
// registers the gpu/ engine here; the shell then records with it when the Inputs panel says GPU.
// Empty `record`: no GPU backend (no GL 4.3, or off-screen rendering), and the GPU choice is
// disabled.
struct GpuBackend {
  GpuBackend() = default;
  GpuBackend(RecordFn record, std::function<std::string(const Resolved&)> unsupported, std::string device,
             RecordFn record_background = {})
      : record(std::move(record)), unsupported(std::move(unsupported)), device(std::move(device)),
        record_background(std::move(record_background)) {}
  // Records on the calling thread, which holds the backend's context (exports, tests, and the
  // window when background recording is not allowed).
  RecordFn record;
  std::function<std::string(const Resolved&)> unsupported;  // why it cannot run r; "" if it can
  std::string device;                                       // the GL renderer, for the tooltip
  // Records on the backend's own thread and context (one sharing the window's objects), one
  // recording after another. Any thread may call it; it returns when that recording is done.
  // Empty: GPU recordings are made with `record`, on the UI thread.
  RecordFn record_background;
  explicit operator bool() const { return static_cast<bool>(record); }
};
void set_gpu_backend(GpuBackend backend);
const GpuBackend& gpu_backend();

// The Inputs panel's GPU choice for an algorithm's row: open, or disabled with the reason its
// tooltip gives — no GPU backend in this window, or an algorithm with no GPU engine (the row's
// `gpu` flag). `backend` is the window's (gpu_backend()).
struct GpuChoice {
  bool enabled = false;
  std::string reason;  // why not, when disabled; the device when enabled
};
GpuChoice gpu_choice(const AlgorithmInfo& row, const GpuBackend& backend);
// Whether a run of `in` goes to the GPU: asked for, and gpu_choice() open for its algorithm.
// Otherwise it runs on the CPU, whatever the lesson or file asked for.
bool runs_on_gpu(const Inputs& in);

// Lets go of a recording that is no longer shown. Where this was its last holder, it is freed on
// a thread of its own, not the caller's: a recording of attn-tiled at N = 512 holds millions of
// deltas and takes 50-70 ms to free, a frame and more lost on the UI thread. Any thread.
void release_recording(std::shared_ptr<const Recording> rec);

class RecordJob {
 public:
  RecordJob() = default;
  ~RecordJob();
  RecordJob(const RecordJob&) = delete;
  RecordJob& operator=(const RecordJob&) = delete;

  // Starts recording r on a thread with `how` (empty: core's record() on the CPU). A job still
  // running is cancelled and left to end on its own thread, its result unused: the caller never
  // waits for it, since a GPU dispatch under way cannot stop before it ends.
  void start(Resolved r, std::uint64_t ticket, RecordFn how = {});
  void cancel();
  bool running() const { return run_ && !run_->finished.load(); }
  bool busy() const { return run_ != nullptr; }
  // Working toward a result that will be used: busy and not cancelled (a cancelled thread may
  // still be finishing its current step).
  bool active() const { return busy() && !run_->cancel.load(); }
  float progress() const { return run_ ? run_->progress.load() : 0.0f; }
  double seconds() const;  // since start

  // When the thread has finished: joins it and hands over the result (or the error message,
  // empty when it was cancelled). False while still running or when idle.
  bool collect(std::shared_ptr<Recording>& rec, std::string& error, bool& cancelled,
               std::uint64_t& ticket);

 private:
  // One recording's thread. The thread writes the result, then sets `finished`; the owner
  // reads the result only after that, and joins.
  struct Run {
    std::thread thread;
    std::atomic<bool> cancel{false};
    std::atomic<bool> finished{false};
    std::atomic<float> progress{0.0f};
    std::shared_ptr<Recording> result;
    std::string error;
    bool cancelled = false;
    std::uint64_t ticket = 0;
    double started = 0;
  };
  void reap();  // joins the superseded runs that have ended
  std::unique_ptr<Run> run_;
  std::vector<std::unique_ptr<Run>> superseded_;
};

}  // namespace flashstep::ui
