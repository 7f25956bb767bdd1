// Each lesson keeps its work while others are visited: opened again it shows its own recording
// at once, without recording it again, and never another lesson's under its name; the
// recordings kept stay within a memory budget, and one let go is said in the status line.
#include "tests/app/drive.h"
#include "app/ui/model/app_state.h"
#include "app/ui/model/inputs.h"

#include <doctest/doctest.h>

#include <chrono>
#include <thread>

using namespace flashstep;
using namespace flashstep::ui;

namespace {


// Online softmax over 90,000 values: 180,000 steps, recorded in the background.
void record_large(AppState& app) {
  set_vector(app.inputs, {random_vector(90000, 3)});
  app.inputs_edited();
  REQUIRE(app.job.active());
  wait_for_job(app);
  REQUIRE(app.played.rec->step_count() == 180000);
}

}  // namespace

TEST_CASE("lessons: a lesson opened again shows its own recording at once, not recorded again") {
  AppState app;
  REQUIRE(app.open_lesson("online"));
  record_large(app);
  app.seek(1234);
  const std::shared_ptr<const Recording> online = app.played.rec;
  REQUIRE(app.open_lesson("safe"));
  wait_for_job(app);
  const std::shared_ptr<const Recording> safe = app.played.rec;
  REQUIRE(safe->algorithm == Algorithm::safe);
  REQUIRE(app.open_lesson("online"));
  // Before any frame: online's own recording and playhead, nothing recording.
  CHECK_FALSE(app.job.active());
  CHECK(app.played.rec == online);
  CHECK(app.scenario.algorithm == Algorithm::online);
  CHECK(app.scenario.x[0].size() == 90000);
  CHECK(app.timeline.count() == 180000);
  CHECK(app.timeline.playhead() == 1234);
  CHECK(app.played.cursor->position() == 1234);
  CHECK(app.input_error.empty());
  // And safe's, small as it is, is kept too.
  REQUIRE(app.open_lesson("safe"));
  CHECK(app.played.rec == safe);
  // Undo still works from the kept state: back to online's example.
  REQUIRE(app.open_lesson("online"));
  CHECK(app.undo_inputs());
  CHECK(app.scenario.x == lessons()[static_cast<std::size_t>(app.lesson)].scenario.x);
}

TEST_CASE("lessons: past the memory budget the recording left longest ago is let go, said so, and recorded again without showing another lesson's") {
  AppState app;
  REQUIRE(app.open_lesson("online"));
  record_large(app);
  app.seek(1234);
  const std::size_t bytes = app.played.rec->memory_bytes();
  app.kept_budget = bytes - 1;  // too small for online's recording
  REQUIRE(app.open_lesson("safe"));
  wait_for_job(app);
  CHECK(app.kept.at("online").rec == nullptr);
  const std::string said = app.status_line().text;
  CHECK(said.find("Lesson 3 (online) let go of its recording") != std::string::npos);
  CHECK(said.find("records again when opened") != std::string::npos);
  REQUIRE(app.open_lesson("online"));
  // Recorded again in the background; until it arrives nothing of safe's is drawn under
  // online's name: no steps, online's algorithm and scenario.
  REQUIRE(app.job.active());
  CHECK(app.played.rec->algorithm == Algorithm::online);
  CHECK(app.played.rec->step_count() == 0);
  CHECK(app.timeline.empty());
  CHECK(app.scenario.algorithm == Algorithm::online);
  CHECK(app.scenario.x[0].size() == 90000);
  CHECK(app.played.step() == nullptr);
  wait_for_job(app);
  CHECK(app.played.rec->step_count() == 180000);
  CHECK(app.timeline.playhead() == 1234);

  // Within the budget nothing is let go; the oldest goes first when two do not fit.
  app.kept_budget = std::size_t{1} << 40;
  REQUIRE(app.open_lesson("safe"));  // online's kept
  REQUIRE(app.open_lesson("chunked"));  // safe's kept too
  CHECK(app.kept.at("online").rec != nullptr);
  CHECK(app.kept.at("safe").rec != nullptr);
  app.kept_budget = app.kept.at("safe").bytes + app.kept.at("online").bytes - 1;
  REQUIRE(app.open_lesson("naive"));  // chunked left last: online, left first, goes
  CHECK(app.kept.at("online").rec == nullptr);
  CHECK(app.kept.at("safe").rec != nullptr);
  CHECK(app.kept.at("chunked").rec != nullptr);
}
