// A recording the window lets go of is freed off the UI thread (app/ui/model/record_job.h): one
// of attn-tiled at N = 512 holds millions of deltas, and freeing it took 50-70 ms of a frame.
#include "app/ui/model/app_state.h"
#include "core/engine.h"

#include <doctest/doctest.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

using namespace flashstep;
using namespace flashstep::ui;

namespace {

// Where and whether a recording was freed, told by its deleter (shared: the deleter may run
// after a failed wait has left the test).
struct Freed {
  std::mutex mutex;
  std::condition_variable done;
  bool freed = false;
  std::thread::id on;
};

std::shared_ptr<const Recording> watched(const std::shared_ptr<Freed>& f) {
  return std::shared_ptr<const Recording>(new Recording(record(Scenario{})), [f](const Recording* p) {
    delete p;
    std::lock_guard<std::mutex> lock(f->mutex);
    f->freed = true;
    f->on = std::this_thread::get_id();
    f->done.notify_all();
  });
}

}  // namespace

TEST_CASE("release: a recording replaced in the view is freed, and not on the thread that replaced it") {
  auto f = std::make_shared<Freed>();
  Played played;
  played.set(watched(f));
  played.set(std::make_shared<const Recording>(record(Scenario{})));
  std::unique_lock<std::mutex> lock(f->mutex);
  REQUIRE(f->done.wait_for(lock, std::chrono::seconds(60), [&] { return f->freed; }));
  CHECK(f->on != std::this_thread::get_id());
}
