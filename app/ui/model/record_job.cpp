#include "app/ui/model/record_job.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <new>

namespace flashstep::ui {

namespace {

GpuBackend& gpu_slot() {
  static GpuBackend backend;
  return backend;
}

double now_seconds() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

// The thread that frees recordings let go of (release_recording), one after another; started
// with the first, ended at exit once its queue is empty.
class Releaser {
 public:
  Releaser() = default;
  Releaser(const Releaser&) = delete;
  Releaser& operator=(const Releaser&) = delete;
  ~Releaser() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_one();
    if (thread_.joinable()) thread_.join();
  }
  void release(std::shared_ptr<const Recording> rec) {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(std::move(rec));
    if (!thread_.joinable()) thread_ = std::thread([this] { loop(); });
    wake_.notify_one();
  }

 private:
  void loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;
      std::shared_ptr<const Recording> rec = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      rec.reset();  // freed here, with the queue open to the next
      lock.lock();
    }
  }
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::shared_ptr<const Recording>> queue_;
  std::thread thread_;
  bool stopping_ = false;
};

}  // namespace

void release_recording(std::shared_ptr<const Recording> rec) {
  // Held elsewhere too (the other side of Compare, an undo step): dropping this reference frees
  // nothing.
  if (!rec || rec.use_count() > 1) return;
  static Releaser releaser;
  releaser.release(std::move(rec));
}

double estimate_record_seconds(const Resolved& r) {
  const RecordingSize size = estimate_recording(r);
  return static_cast<double>(size.steps) * 2e-6 + static_cast<double>(size.deltas) * 8e-8;
}

double estimate_record_bytes(const Resolved& r) {
  // A step carries its sentence, label and regions (~250 bytes); a delta is 32 bytes.
  const RecordingSize size = estimate_recording(r);
  return static_cast<double>(size.steps) * 250.0 + static_cast<double>(size.deltas) * 32.0;
}

void set_gpu_backend(GpuBackend backend) { gpu_slot() = std::move(backend); }
const GpuBackend& gpu_backend() { return gpu_slot(); }

GpuChoice gpu_choice(const AlgorithmInfo& row, const GpuBackend& backend) {
  if (!backend)
    return {false, "not available yet: this window has no OpenGL 4.3 compute context (off-screen pictures "
                   "always use the CPU)."};
  if (std::string why = no_gpu_engine(row); !why.empty()) return {false, why + "."};
  return {true, "OpenGL compute shaders on " + backend.device};
}

bool runs_on_gpu(const Inputs& in) {
  return in.backend == Backend::gpu && gpu_choice(info(in.algorithm), gpu_backend()).enabled;
}

RecordJob::~RecordJob() {
  cancel();
  for (auto& run : superseded_) run->cancel.store(true);
  if (run_) run_->thread.join();
  for (auto& run : superseded_) run->thread.join();
}

void RecordJob::reap() {
  superseded_.erase(std::remove_if(superseded_.begin(), superseded_.end(),
                                   [](const std::unique_ptr<Run>& run) {
                                     if (!run->finished.load()) return false;
                                     run->thread.join();
                                     release_recording(std::move(run->result));
                                     return true;
                                   }),
                    superseded_.end());
}

void RecordJob::cancel() {
  if (run_) run_->cancel.store(true);
}

double RecordJob::seconds() const { return run_ ? now_seconds() - run_->started : 0.0; }

void RecordJob::start(Resolved r, std::uint64_t ticket, RecordFn how) {
  reap();
  if (run_) {
    run_->cancel.store(true);
    superseded_.push_back(std::move(run_));
  }
  run_ = std::make_unique<Run>();
  run_->ticket = ticket;
  run_->started = now_seconds();
  Run* run = run_.get();
  run->thread = std::thread([run, r = std::move(r), how = std::move(how)] {
    RecordOptions opt;
    opt.cancel = &run->cancel;
    opt.progress = &run->progress;
    try {
      run->result = std::make_shared<Recording>(how ? how(r, opt) : record(r, opt));
    } catch (const Cancelled&) {
      run->cancelled = true;
    } catch (const std::bad_alloc&) {
      run->error = "out of memory while recording: use a smaller N or input";
    } catch (const std::exception& e) {
      run->error = e.what();
    }
    run->finished.store(true);
  });
}

bool RecordJob::collect(std::shared_ptr<Recording>& rec, std::string& error, bool& cancelled,
                        std::uint64_t& ticket) {
  reap();
  if (!run_ || !run_->finished.load()) return false;
  run_->thread.join();
  rec = std::move(run_->result);
  error = std::move(run_->error);
  cancelled = run_->cancelled;
  ticket = run_->ticket;
  run_.reset();
  return true;
}

}  // namespace flashstep::ui
