#include "app/ui/model/record_job.h"

#include <chrono>
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

}  // namespace

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

RecordJob::~RecordJob() {
  cancel();
  join();
}

void RecordJob::join() {
  if (thread_.joinable()) thread_.join();
}

void RecordJob::cancel() { cancel_.store(true); }

double RecordJob::seconds() const { return busy() ? now_seconds() - started_ : 0.0; }

void RecordJob::start(Resolved r, std::uint64_t ticket) {
  cancel();
  join();
  cancel_.store(false);
  finished_.store(false);
  progress_.store(0.0f);
  result_.reset();
  error_.clear();
  cancelled_ = false;
  ticket_ = ticket;
  started_ = now_seconds();
  thread_ = std::thread([this, r = std::move(r)] {
    RecordOptions opt;
    opt.cancel = &cancel_;
    opt.progress = &progress_;
    std::shared_ptr<Recording> rec;
    std::string error;
    bool cancelled = false;
    try {
      rec = std::make_shared<Recording>(record(r, opt));
    } catch (const Cancelled&) {
      cancelled = true;
    } catch (const std::bad_alloc&) {
      error = "out of memory while recording: use a smaller N or input";
    } catch (const std::exception& e) {
      error = e.what();
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      result_ = std::move(rec);
      error_ = std::move(error);
      cancelled_ = cancelled;
    }
    finished_.store(true);
  });
}

bool RecordJob::collect(std::shared_ptr<Recording>& rec, std::string& error, bool& cancelled,
                        std::uint64_t& ticket) {
  if (!thread_.joinable() || !finished_.load()) return false;
  join();
  std::lock_guard<std::mutex> lock(mutex_);
  rec = std::move(result_);
  error = std::move(error_);
  cancelled = cancelled_;
  ticket = ticket_;
  return true;
}

}  // namespace flashstep::ui
