// The ready-made scenarios in assets/scenarios/: one per lesson, named after it, each one runs
// on the command line and opens in the window (within the window's limits).
#include "app/files.h"
#include "app/ui/model/app_state.h"
#include "app/ui/model/document.h"
#include "core/engine.h"
#include "core/lessons.h"
#include "core/scenario_json.h"

#include <doctest/doctest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <sys/wait.h>

namespace {

std::string asset(const std::string& id) { return std::string(FLASHSTEP_ASSETS) + "/" + id + ".json"; }

// Runs flashstep with `args`; returns the exit status, stdout in `out`, stderr dropped.
int invoke(const std::string& args, std::string& out) {
  out.clear();
  FILE* p = popen((std::string(FLASHSTEP_EXE) + " " + args + " 2>/dev/null").c_str(), "r");
  REQUIRE(p != nullptr);
  std::array<char, 4096> buf{};
  std::size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  const int st = pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

// The lesson ids `flashstep lessons` lists (the first column).
std::vector<std::string> listed_lessons() {
  std::string out;
  REQUIRE(invoke("lessons", out) == 0);
  std::vector<std::string> ids;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) ids.push_back(line.substr(0, line.find('\t')));
  return ids;
}

flashstep::ScenarioDocument read_asset(const std::string& path) {
  std::string text, error;
  REQUIRE_MESSAGE(flashstep::read_file(path, text, error), error);
  return flashstep::parse_document(text);
}

}  // namespace

TEST_CASE("there is a scenario file for every lesson `flashstep lessons` lists, and no other") {
  const std::vector<std::string> ids = listed_lessons();
  REQUIRE(ids.size() == flashstep::lessons().size());
  for (const std::string& id : ids) {
    CAPTURE(id);
    CHECK(std::filesystem::is_regular_file(asset(id)));
  }
  const std::set<std::string> known(ids.begin(), ids.end());
  for (const auto& entry : std::filesystem::directory_iterator(FLASHSTEP_ASSETS)) {
    CAPTURE(entry.path().string());
    CHECK(entry.path().extension() == ".json");
    CHECK(known.count(entry.path().stem().string()) == 1);
  }
}

TEST_CASE("each scenario file names its own lesson and runs with `flashstep run --scenario`") {
  for (const std::string& id : listed_lessons()) {
    CAPTURE(id);
    const flashstep::ScenarioDocument doc = read_asset(asset(id));
    CHECK(doc.lesson == id);
    std::string out;
    REQUIRE(invoke("run --scenario " + asset(id) + " --steps none", out) == 0);
    const auto j = flashstep::Json::parse(out);
    CHECK(j["algorithm"] == std::string(flashstep::algorithm_id(doc.scenario.algorithm)));
    CHECK(j["output"].size() > 0);
  }
}

TEST_CASE("each scenario file opens in the window's state, at its playhead, with a small recording") {
  for (const std::string& id : listed_lessons()) {
    CAPTURE(id);
    const flashstep::ScenarioDocument doc = read_asset(asset(id));
    flashstep::ui::AppState app;
    app.background_allowed = false;
    std::string error;
    REQUIRE_MESSAGE(flashstep::ui::apply_document(app, doc, error), error);
    CHECK(app.current_lesson().id == id);
    CHECK(app.input_error.empty());
    CHECK(app.timeline.playhead() == doc.playhead);
    // Something to step through in class, and few enough steps to step through.
    CHECK(app.timeline.count() >= 5);
    CHECK(app.timeline.count() <= 200);
  }
}

TEST_CASE("the scenario files are good examples: overflow, fp16, 1/sqrt(d) with d = 64, causal tiles") {
  const auto doc = [](const char* id) { return read_asset(asset(id)); };
  const auto naive = doc("naive");
  CHECK(naive.scenario.x == std::vector<std::vector<double>>{{1000, 2000, 3000}});
  CHECK(flashstep::record(naive.scenario).nonfinite == 3);  // exp(1000) is inf in fp32
  const auto safe = doc("safe");
  CHECK(safe.scenario.precision == flashstep::Precision::fp16);
  CHECK(flashstep::record(safe.scenario).nonfinite == 0);  // the same 12 as naive's fp16 preset
  const auto scale = doc("scale");
  CHECK(scale.scenario.scale_mode == flashstep::ScaleMode::inv_sqrt_d);
  CHECK(scale.scenario.d == 64);
  const auto tiled = doc("attn-tiled");
  CHECK(tiled.scenario.causal);
  CHECK(tiled.scenario.n == 16);
  CHECK(tiled.scenario.block_rows > 0);
  CHECK(tiled.scenario.block_cols > 0);
  CHECK(doc("chunked").scenario.chunks == 3);
  CHECK(doc("cpu-vs-gpu").backend == "gpu");
}
