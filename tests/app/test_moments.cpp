// What the window shows belongs to its moment: the status line says what is true now (not a
// recording that ended, not an input error that was fixed, not a message from another lesson),
// pictures never carry it, and each lesson opens on its own view, whatever the last one showed.
#include "tests/app/drive.h"
#include "tests/app/headless.h"

#include "app/ui/model/app_state.h"
#include "app/ui/model/record_job.h"
#include "core/engine.h"
#include "core/lessons.h"

#include <doctest/doctest.h>

#include <chrono>
#include <thread>

using namespace flashstep;
using namespace flashstep::ui;

namespace {

// A background recording of the attention lesson at the window's largest N: long enough that
// the window records it on a thread.
void start_background_recording(AppState& app) {
  app.background_allowed = true;
  app.inputs.N = kMaxAttentionN;
  app.inputs.d = 64;
  app.inputs_changed();
}


bool says(const AppState& app, std::string_view words) {
  return app.status_line().text.find(words) != std::string::npos;
}

}  // namespace

TEST_CASE("status line: \"recording…\" is shown while the job runs and gone once it has ended") {
  AppState app;
  app.background_allowed = false;
  REQUIRE(app.open_lesson("attn-online"));
  start_background_recording(app);
  REQUIRE(app.job.busy());
  CHECK(says(app, "in the background"));
  wait_for_job(app);
  app.tick(0.0);
  REQUIRE_FALSE(app.job.busy());
  CHECK_FALSE(says(app, "in the background"));
  CHECK(app.played.rec->n == kMaxAttentionN);
}

TEST_CASE("status line: a recording superseded by a lesson switch leaves no \"recording…\" behind") {
  AppState app;
  app.background_allowed = false;
  REQUIRE(app.open_lesson("attn-online"));
  start_background_recording(app);
  REQUIRE(app.job.busy());
  app.background_allowed = false;
  REQUIRE(app.open_lesson("online"));  // records at once and cancels the job
  wait_for_job(app);
  CHECK_FALSE(says(app, "in the background"));
  CHECK_FALSE(says(app, "Recorded"));
}

TEST_CASE("status line: an input error is shown while the form is not in use, and gone once it is fixed") {
  AppState app;
  app.background_allowed = false;
  REQUIRE(app.open_lesson("online"));
  CHECK_FALSE(edit_vector_text(app.inputs, "3,,5"));
  app.inputs_changed();
  REQUIRE_FALSE(app.input_error.empty());
  CHECK(app.status_line().severity == Severity::error);
  CHECK(says(app, "value 2 of row 1 is empty"));

  CHECK(edit_vector_text(app.inputs, "3, 5"));
  app.inputs_changed();
  CHECK(app.input_error.empty());
  CHECK(app.status_line().text.empty());
  // The log keeps it.
  bool logged = false;
  for (const LogEntry& e : app.log) logged |= e.text.find("value 2 of row 1 is empty") != std::string::npos;
  CHECK(logged);
}

TEST_CASE("status line: a message of one lesson is not shown in the next") {
  AppState app;
  app.background_allowed = false;
  REQUIRE(app.open_lesson("online"));
  app.note(Severity::warning, "a note about the online lesson");
  CHECK(says(app, "a note about the online lesson"));
  REQUIRE(app.open_lesson("safe"));
  CHECK_FALSE(says(app, "a note about the online lesson"));
}

TEST_CASE("status line: an exported picture has no status bar, the window has") {
  Headless h;
  AppState app;
  app.background_allowed = false;
  REQUIRE(app.open_lesson("online"));
  CHECK_FALSE(edit_vector_text(app.inputs, "3,,5"));
  app.inputs_changed();
  REQUIRE_FALSE(app.status_line().text.empty());
  h.frame(app);
  CHECK(Headless::drawn("##status"));
  FrameOptions picture;
  picture.keyboard = false;
  picture.picture = true;
  h.frame(app, picture);
  CHECK_FALSE(Headless::drawn("##status"));
}

TEST_CASE("tabs: each lesson opens on its own tab, whatever tab the previous lesson was left on") {
  // A GPU backend that records on the CPU: the CPU-vs-GPU lesson then opens on Compare, as in
  // the window with a GPU.
  GpuBackend fake;
  fake.record = [](const Resolved& r, const RecordOptions& opt) { return record(r, opt); };
  set_gpu_backend(fake);
  for (const Lesson& from : lessons()) {
    for (Tab left_on : {Tab::lesson, Tab::steps, Tab::compare, Tab::overflow_lab}) {
      AppState app;
      app.background_allowed = false;
      REQUIRE(app.open_lesson(from.id));
      app.tab = left_on;
      for (const Lesson& to : lessons()) {
        CAPTURE(from.id);
        CAPTURE(tab_name(left_on));
        CAPTURE(to.id);
        REQUIRE(app.open_lesson(to.id));
        CHECK(tab_name(app.tab) == to.tab);
        CHECK(app.tab_changed);
        app.tab = left_on;
        REQUIRE(app.open_lesson(from.id));
        app.tab = left_on;
      }
    }
  }
  set_gpu_backend({});
}

TEST_CASE("tabs: the CPU-vs-GPU lesson without a GPU opens on its CPU run, not on an empty comparison") {
  set_gpu_backend({});
  AppState app;
  app.background_allowed = false;
  REQUIRE(app.open_lesson("cpu-vs-gpu"));
  CHECK(app.tab == Tab::lesson);
}

TEST_CASE("tabs: moving the timeline in a lab lesson shows the recording it steps") {
  Headless h;
  for (const Lesson& l : lessons()) {
    const std::optional<Tab> t = parse_tab(l.tab);
    if (t != Tab::scale_lab && t != Tab::measure_lab && t != Tab::overflow_lab) continue;
    CAPTURE(l.id);
    AppState app;
    app.background_allowed = false;
    REQUIRE(app.open_lesson(l.id));
    h.frame(app);
    REQUIRE(app.tab == *t);
    h.press(app, GLFW_KEY_RIGHT);
    CHECK(app.tab == Tab::lesson);
    CHECK(app.timeline.playhead() == 1);
    CHECK(app.played.cursor->position() == 1);
  }
}
