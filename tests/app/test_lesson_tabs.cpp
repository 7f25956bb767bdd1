// The tab a lesson opens on comes from its file (assets/lessons/<id>.json, "tab"), never from
// its id; each tab has one name, in lesson files, scenario files and `--panel` alike.
#include "app/ui/model/app_state.h"
#include "app/ui/model/document.h"
#include "app/ui/panels/frame.h"
#include "core/lessons.h"

#include <doctest/doctest.h>

using namespace flashstep;
using namespace flashstep::ui;

TEST_CASE("each lesson opens on the tab its file names, and leaving a lab lesson leaves the lab") {
  for (const Lesson& l : lessons()) {
    CAPTURE(l.id);
    AppState app;
    app.background_allowed = false;
    REQUIRE(app.open_lesson(l.id));
    // No GPU backend in this test: the CPU-vs-GPU lesson shows its CPU run on the lesson's view
    // (tests/app/test_moments.cpp opens it with one).
    const bool gpu_lesson_without_gpu = l.backend == "gpu";
    CHECK(tab_name(app.tab) == (gpu_lesson_without_gpu ? "lesson" : l.tab));
    if (app.tab == Tab::scale_lab) CHECK(app.scale_lab.d == l.scenario.d);
    app.open_lesson(0);
    CHECK(app.tab == parse_tab(lessons().front().tab));
  }
}

TEST_CASE("every tab has one name: lesson files, scenario files and --panel use it, and it reads back") {
  for (const auto& named : kTabNames) {
    const auto tab = named.first;
    const auto name = named.second;
    CAPTURE(name);
    CHECK(parse_tab(name) == tab);
    CHECK(tab_name(tab) == name);
    if (tab != Tab::lesson) CHECK(is_panel_name(std::string(name)));  // the lesson's tab is the panel "view"
  }
  for (std::string_view t : kLessonTabs) CHECK(parse_tab(t).has_value());
  CHECK_FALSE(parse_tab("measure").has_value());  // the old name is read in scenario files only
}

TEST_CASE("a scenario file's old tab name \"measure\" opens the Measure lab and is saved as \"measure-lab\"") {
  for (const char* written : {"measure", "measure-lab"}) {
    CAPTURE(written);
    AppState app;
    app.background_allowed = false;
    ScenarioDocument doc;
    doc.lesson = "online";
    doc.scenario.algorithm = Algorithm::online;
    doc.layout = {{"tab", written}};
    std::string error;
    REQUIRE_MESSAGE(apply_document(app, doc, error), error);
    CHECK(app.tab == Tab::measure_lab);
    CHECK(layout_json(app)["tab"] == "measure-lab");
  }
  AppState app;
  ScenarioDocument doc;
  doc.layout = {{"tab", "measuring"}};
  std::string error;
  CHECK_FALSE(apply_document(app, doc, error));
  CHECK(error == "scenario file: \"layout.tab\" = \"measuring\": use lesson, steps, compare, overflow-lab, "
                 "scale-lab or measure-lab");
}
