// Driving the window's AppState from a test, without a window: a lesson opened at a step, the
// background job waited for, a file written as the app writes it.
#pragma once

#include "app/files.h"
#include "app/ui/model/app_state.h"

#include <doctest/doctest.h>

#include <chrono>
#include <string>
#include <thread>

namespace flashstep::ui {

// The lesson `lesson` at `step`, recorded on the calling thread.
inline void open_at(AppState& app, const char* lesson, int step) {
  app.background_allowed = false;
  REQUIRE(app.open_lesson(lesson));
  REQUIRE(app.timeline.count() >= 8);
  app.seek(step);
}

// Ticks the window until its background job has ended (at most 30 s), then once more so that
// what the job made is taken in.
inline void wait_for_job(AppState& app) {
  for (int i = 0; i < 6000 && app.job.busy(); ++i) {
    app.tick(0.0);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  app.tick(0.0);
}

// Writes `text` to `path` as the app writes its files.
inline void write(const std::string& path, const std::string& text) { REQUIRE(write_file_atomic(path, text).empty()); }

}  // namespace flashstep::ui
