// Scenario files: what is saved is what is loaded, and every kind of bad file is refused with
// a message that names the problem.
#include "core/engine.h"
#include "core/lessons.h"
#include "core/scenario_json.h"

#include <doctest/doctest.h>

#include <cmath>

using namespace flashstep;

namespace {

// Equal element by element, a nan matching a nan.
bool same(const MatrixRM& a, const MatrixRM& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols()) return false;
  for (Eigen::Index i = 0; i < a.size(); ++i)
    if (!(a.data()[i] == b.data()[i] || (std::isnan(a.data()[i]) && std::isnan(b.data()[i])))) return false;
  return true;
}

}  // namespace

TEST_CASE("every lesson's scenario survives a save and a load, and records the same") {
  for (const Lesson& lesson : lessons()) {
    CAPTURE(lesson.id);
    ScenarioDocument doc;
    doc.lesson = lesson.id;
    doc.playhead = 3;
    doc.scenario = lesson.scenario;
    doc.layout = {{"panels", {"vector", "memory"}}};
    const ScenarioDocument back = parse_document(document_to_json(doc).dump());
    CHECK(back.lesson == lesson.id);
    CHECK(back.playhead == 3);
    CHECK(back.layout == doc.layout);
    const Recording a = record(doc.scenario), b = record(back.scenario);
    REQUIRE(a.step_count() == b.step_count());
    CHECK(same(a.output(), b.output()));
    CHECK(a.io == b.io);
  }
}

TEST_CASE("non-finite inputs and every parameter round-trip") {
  Scenario s;
  s.algorithm = Algorithm::chunked;
  s.precision = Precision::bf16;
  s.scale_mode = ScaleMode::value;
  s.scale_value = 0.25;
  s.x = {{1, INFINITY, -INFINITY, NAN}, {1, 2, 3, 4}};
  s.chunks = 3;
  s.seed = 12345678901234ull;
  const Scenario back = scenario_from_json(Json::parse(scenario_to_json(s).dump()));
  CHECK(back.algorithm == Algorithm::chunked);
  CHECK(back.precision == Precision::bf16);
  CHECK(back.scale_mode == ScaleMode::value);
  CHECK(back.scale_value == 0.25);
  CHECK(back.chunks == 3);
  CHECK(back.seed == 12345678901234ull);
  REQUIRE(back.x.size() == 2);
  CHECK(std::isinf(back.x[0][1]));
  CHECK(back.x[0][2] < 0);
  CHECK(std::isnan(back.x[0][3]));
}

TEST_CASE("bad scenario files are refused with a message naming the problem") {
  struct Case {
    const char* text;
    const char* mentions;
  };
  const Case cases[] = {
      {"", "empty"},
      {"this is not JSON", "not JSON"},
      {"{\"n\": 1e999}", "not usable JSON"},
      {"{\"algorithm\": \"online\",", "not JSON"},
      {"[1, 2, 3]", "object"},
      {"{\"algorithm\": \"quick\"}", "quick"},
      {"{\"algorithm\": 3}", "algorithm"},
      {"{\"precision\": \"fp8\"}", "fp8"},
      {"{\"scale\": \"banana\"}", "scale"},
      {"{\"scale\": \"inf\"}", "scale"},
      {"{\"causal\": \"yes\"}", "causal"},
      {"{\"input\": \"3,2,5\"}", "input"},
      {"{\"input\": [1, 2, 3]}", "row 1"},
      {"{\"input\": [[1, \"x\", 3]]}", "value 2"},
      {"{\"input\": [[1, null]]}", "value 2"},
      {"{\"input\": []}", "\"input\" is empty"},  // not a random input in disguise
      {"{\"algorithm\": \"attn-naive\", \"q\": [], \"k\": [], \"v\": []}", "\"q\" is empty"},
      {"{\"n\": -1}", "\"n\""},
      {"{\"n\": \"8\"}", "\"n\""},
      {"{\"n\": 1.5}", "\"n\""},
      {"{\"d\": 0}", "\"d\""},
      {"{\"seed\": -4}", "seed"},
      {"{\"chunks\": 0}", "chunks"},
      {"{\"block_rows\": -2}", "block_rows"},
      {"{\"sram\": 1e12}", "sram"},
      {"{\"algorithm\": \"attn-naive\", \"q\": [[1]], \"k\": [[1]]}", "\"v\""},
      {"{\"flashstep_scenario\": 99, \"scenario\": {}}", "newer"},
      {"{\"flashstep_scenario\": \"1\", \"scenario\": {}}", "version"},
      {"{\"flashstep_scenario\": 1, \"lesson\": \"nope\"}", "\"nope\" is not a lesson"},
      {"{\"flashstep_scenario\": 1, \"scenario\": {}, \"backend\": \"tpu\"}", "tpu"},
      {"{\"flashstep_scenario\": 1, \"scenario\": {}, \"playhead\": -1}", "playhead"},
      {"{\"flashstep_scenario\": 1, \"scenario\": {}, \"layout\": 5}", "layout"},
      {"{\"flashstep_scenario\": 1, \"scenario\": [1]}", "object"},
      // A misspelt key is refused by name, not left out for its default.
      {"{\"algorithm\": \"attn-tiled\", \"br\": 16}", "\"br\" is not a field; use algorithm"},
      {"{\"flashstep_scenario\": 1, \"scenario\": {\"Block_rows\": 2}}", "\"Block_rows\" is not a field"},
      {"{\"flashstep_scenario\": 1, \"scenario\": {}, \"play_head\": 3}", "\"play_head\" is not a field; use flashstep_scenario"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    try {
      parse_document(c.text);
      FAIL("accepted");
    } catch (const InputError& e) {
      CHECK(std::string(e.what()).find(c.mentions) != std::string::npos);
    }
  }
}

TEST_CASE("every key of a scenario file is optional: without \"scenario\", the lesson's own example") {
  for (const Lesson& l : lessons()) {
    CAPTURE(l.id);
    const ScenarioDocument doc = parse_document("{\"flashstep_scenario\": 1, \"lesson\": \"" + l.id + "\"}");
    CHECK(doc.lesson == l.id);
    CHECK(doc.backend == l.backend);
    CHECK(scenario_to_json(doc.scenario) == scenario_to_json(l.scenario));
  }
  // A backend named in the file wins over the lesson's.
  CHECK(parse_document("{\"flashstep_scenario\": 1, \"lesson\": \"cpu-vs-gpu\", \"backend\": \"cpu\"}").backend == "cpu");
  // No lesson and no scenario: the defaults, as a bare {} gives them.
  const Scenario defaults;
  for (const char* text : {"{\"flashstep_scenario\": 1}", "{\"flashstep_scenario\": 1, \"playhead\": 3}", "{}"}) {
    CAPTURE(text);
    CHECK(scenario_to_json(parse_document(text).scenario) == scenario_to_json(defaults));
  }
  CHECK(parse_document("{\"flashstep_scenario\": 1, \"playhead\": 3}").playhead == 3);
}
