#include "app/gpu_worker.h"

#include "gpu/context.h"
#include "gpu/gpu_engine.h"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

namespace flashstep {

// ---- GpuWorker ------------------------------------------------------------------------------

std::unique_ptr<GpuWorker> GpuWorker::start(GLFWwindow* window, std::string& error) {
  std::unique_ptr<GpuWorker> w(new GpuWorker());
  // Creating the shared context makes it current here: the window's goes back at once, so the
  // worker can take the new one.
  w->context_ = gpu::HiddenContext::create(error, window);
  glfwMakeContextCurrent(window);
  if (!w->context_) return nullptr;
  // The engine is made on the worker, with the context current there; start() waits for it, so
  // a driver that refuses says so now rather than at the first recording.
  std::promise<std::string> made;
  std::future<std::string> made_result = made.get_future();
  GpuWorker* self = w.get();
  // The worker runs at the window's own priority. At a lower one (it once ran at nice 10, which
  // every thread it starts inherits) any other busy process on the machine took the CPU from it
  // and a recording crawled for minutes; the window stays responsive without that, since it
  // waits for the worker's results and never for the worker itself.
  w->thread_ = std::thread([self, made = std::move(made)]() mutable {
    self->context_->make_current();
    try {
      self->engine_ = std::make_unique<gpu::Engine>();
    } catch (const std::exception& e) {
      self->context_->release();
      made.set_value(e.what());
      return;
    }
    made.set_value("");
    self->loop();
  });
  error = made_result.get();
  if (!error.empty()) {
    w->thread_.join();
    return nullptr;
  }
  return w;
}

GpuWorker::~GpuWorker() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  context_.reset();  // a GLFW window: destroyed on the main thread, now that no thread has it
}

void GpuWorker::loop() {
  for (;;) {
    std::shared_ptr<Task> task;
    bool stopping = false;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) break;  // stopping, nothing left
      task = queue_.front();
      queue_.pop_front();
      stopping = stopping_;
    }
    const std::atomic<bool>* cancel = task->opt.cancel;
    try {
      // Superseded while it waited (or the window is closing): nothing to run.
      if (stopping || (cancel && cancel->load())) throw Cancelled();
      task->result.set_value(engine_->record(*task->r, task->opt));
    } catch (...) {
      task->result.set_exception(std::current_exception());
    }
  }
  // The engine's GL objects go while its context is current, then the context is handed back.
  engine_.reset();
  context_->release();
}

Recording GpuWorker::record(const Resolved& r, const RecordOptions& opt) {
  auto task = std::make_shared<Task>(Task{&r, opt, {}});
  std::future<Recording> result = task->result.get_future();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) throw Cancelled();
    queue_.push_back(task);
  }
  wake_.notify_one();
  return result.get();
}

// ---- WindowGpu ------------------------------------------------------------------------------

WindowGpu::WindowGpu(GLFWwindow* window, std::string& note) {
  const gpu::GlInfo info = gpu::gl_info();
  if (!info.has_compute()) {
    note = gpu::needs_compute_message(info);
    return;
  }
  try {
    engine_ = std::make_unique<gpu::Engine>();
  } catch (const std::exception& ex) {
    note = std::string("GPU backend unavailable: ") + ex.what();
    return;
  }
  std::string why;
  worker_ = GpuWorker::start(window, why);
  if (!worker_)
    note = "GPU recordings are made on the window's thread, which waits for them: no second "
           "OpenGL context sharing the window's could be made (" + why + ").";
  gpu::Engine* e = engine_.get();
  GpuWorker* w = worker_.get();
  ui::GpuBackend backend;
  backend.record = [e](const Resolved& r, const RecordOptions& o) { return e->record(r, o); };
  backend.unsupported = [e](const Resolved& r) { return e->unsupported(r, true); };
  backend.device = info.renderer;
  if (w) backend.record_background = [w](const Resolved& r, const RecordOptions& o) { return w->record(r, o); };
  ui::set_gpu_backend(std::move(backend));
}

WindowGpu::~WindowGpu() {
  if (!engine_) return;
  ui::set_gpu_backend({});
  worker_.reset();
  engine_.reset();  // its GL objects go while the window's context still exists
}

}  // namespace flashstep
