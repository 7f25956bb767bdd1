// A recording the window lets go of is freed off the UI thread (app/ui/model/record_job.h): one
// of attn-tiled at N = 512 holds millions of deltas, and freeing it took 50-70 ms of a frame.
#include "app/ui/model/app_state.h"
#include "core/engine.h"

#include <doctest/doctest.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <new>
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

TEST_CASE("release: what was measured on a recording is not taken for a new one at the freed one's address") {
  // Both recordings in one place, as an allocator may give a freed block to the next.
  alignas(Recording) static unsigned char place[sizeof(Recording)];
  const auto in_place = [] {
    return std::shared_ptr<const Recording>(new (place) Recording(), [](const Recording* p) { p->~Recording(); });
  };
  auto first = in_place();
  const RecordingKey key(first);
  CHECK(key.is(first));
  CHECK_FALSE(key.expired());
  AppState::PresentedRoom room;
  room.at(first, 1920, 1000, 1.5f).need = 700;
  CHECK(room.at(first, 1920, 1000, 1.5f).need == 700);  // the same recording and window: kept
  first.reset();
  CHECK(key.expired());  // what was kept for it can go
  const auto second = in_place();
  REQUIRE(static_cast<const void*>(second.get()) == static_cast<const void*>(place));
  CHECK_FALSE(key.is(second));
  CHECK(room.at(second, 1920, 1000, 1.5f).need == 0);  // measured again
  CHECK(RecordingKey(second).is(second));
}
