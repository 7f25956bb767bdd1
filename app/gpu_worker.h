// The window's GPU backend (ui::GpuBackend): the gpu/ engine on the window's own context for
// recordings made on the UI thread (a scenario file being opened, which places its playhead at
// once), and a worker thread with a context of its own, sharing the window's objects, for every
// other GPU recording, so that llvmpipe or a driver busy with a large recording never freezes
// the window.
#pragma once

#include "app/ui/model/record_job.h"

#include <condition_variable>
#include <deque>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

struct GLFWwindow;

namespace flashstep {

namespace gpu {
class Engine;
class HiddenContext;
}  // namespace gpu

// Records on a thread of its own, in a hidden context that shares the window's objects, with a
// gpu::Engine made on that thread.
//
// One thread for the backend's whole life rather than one per recording, because:
//  - a context may be current on one thread at a time: one thread that runs one recording after
//    another is that rule by construction, and a superseded recording still finishing its
//    dispatch cannot race the next one, which waits in the queue;
//  - the engine compiles each shader on first use and keeps it (llvmpipe takes a good part of a
//    second for one), and it needs its context current for its whole life;
//  - the hidden context is a GLFW window, which only the main thread may create and destroy:
//    the worker borrows it (make_current) for its life and gives it back (release) at the end.
class GpuWorker {
 public:
  // On the main thread, with `window`'s context current (it stays current). nullptr, and
  // `error` set to one line, when no shared context or no engine can be made.
  static std::unique_ptr<GpuWorker> start(GLFWwindow* window, std::string& error);
  // On the main thread, once nothing calls record() any more: recordings still queued end
  // Cancelled, the one running finishes, the engine goes on the worker, the context here.
  ~GpuWorker();
  GpuWorker(const GpuWorker&) = delete;
  GpuWorker& operator=(const GpuWorker&) = delete;

  // Any thread: records r on the worker and returns when it is done, after the recordings asked
  // for before it. Throws what gpu::Engine::record throws, and Cancelled when *opt.cancel is set
  // before the recording starts (a newer one superseded it while it waited) or while it builds
  // its steps.
  Recording record(const Resolved& r, const RecordOptions& opt);

 private:
  // Held by the caller and by the queue, then the worker: the promise outlives set_value.
  struct Task {
    const Resolved* r;
    RecordOptions opt;  // its pointers are the caller's, who waits for the result
    std::promise<Recording> result;
  };
  GpuWorker() = default;
  void loop();

  std::unique_ptr<gpu::HiddenContext> context_;
  std::unique_ptr<gpu::Engine> engine_;  // made, used and destroyed on the worker
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::shared_ptr<Task>> queue_;
  bool stopping_ = false;
};

// The window's GPU backend, registered with ui::set_gpu_backend while it lives:
//   record             the engine on the window's context, on the UI thread (which has it current);
//   record_background  a GpuWorker;
//   unsupported        the window's engine's limits (the same driver as the worker's).
class WindowGpu {
 public:
  // On the main thread with `window`'s context current. Without compute shaders there is no GPU
  // backend, and `note` says why; without a worker (no shared context) GPU recordings are made
  // on the UI thread, and `note` says that.
  WindowGpu(GLFWwindow* window, std::string& note);
  // Unregisters the backend. Every recording made with it must have ended (the AppState and its
  // jobs are gone), and the window's context must be current.
  ~WindowGpu();
  WindowGpu(const WindowGpu&) = delete;
  WindowGpu& operator=(const WindowGpu&) = delete;

  bool available() const { return engine_ != nullptr; }
  bool background() const { return worker_ != nullptr; }

 private:
  std::unique_ptr<gpu::Engine> engine_;
  std::unique_ptr<GpuWorker> worker_;
};

}  // namespace flashstep
