// Opening a scenario file off the UI thread: reading (up to kMaxReadBytes) and parsing a large
// file takes seconds, which would freeze the window. The job reads in chunks (progress by
// bytes), parses with a cancel check, and checks the file against the window's limits; the
// frame loop then applies the parsed document on the UI thread (apply_document). A small file
// goes the same way and is simply done by the next frame.
#pragma once

#include "core/scenario_json.h"

#include <atomic>
#include <mutex>
#include <string>
#include <thread>

namespace flashstep::ui {

class OpenJob {
 public:
  OpenJob() = default;
  ~OpenJob();
  OpenJob(const OpenJob&) = delete;
  OpenJob& operator=(const OpenJob&) = delete;

  // Starts reading `path`; a job still running is cancelled first.
  void start(std::string path);
  void cancel() { cancel_.store(true); }
  bool busy() const { return thread_.joinable(); }
  bool active() const { return busy() && !cancel_.load(); }
  const std::string& path() const { return path_; }
  // What it is doing, for the status bar: "reading 12.0 of 50.0 MB", "parsing 50.0 MB".
  std::string activity() const;
  float progress() const { return progress_.load(); }  // 0..1 over reading, then parsing
  double seconds() const;

  struct Result {
    bool ok = false;
    bool cancelled = false;
    std::string error;  // why it cannot be opened, naming the file
    ScenarioDocument doc;
  };
  // When the thread has finished: joins it and hands over the result. False otherwise.
  bool collect(Result& out);

 private:
  void run();
  std::thread thread_;
  std::string path_;
  std::atomic<bool> cancel_{false}, finished_{false}, parsing_{false};
  std::atomic<float> progress_{0.0f};
  std::atomic<long long> size_{0}, read_{0};
  std::mutex mutex_;
  Result result_;
  double started_ = 0;
};

}  // namespace flashstep::ui
