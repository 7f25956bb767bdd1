// Lessons as data (assets/lessons/, core/lessons.h): every shipped lesson loads, numbered by
// order.json, and a bad lesson file is refused with one message naming the file and the field.
#include "core/lessons.h"
#include "core/scenario_json.h"

#include <doctest/doctest.h>

#include <set>
#include <string>
#include <vector>

using namespace flashstep;

namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// The message load_lessons gives for `files`, or "" when they load.
std::string load_error(const std::vector<LessonFile>& files) {
  try {
    load_lessons(files);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

const char* const kGood = R"({"id": "online", "title": "Online softmax", "summary": "m and l in one sweep.",
  "tab": "lesson", "backend": "cpu", "scenario": {"algorithm": "online", "input": [[3, 2, 5, 1]]}})";

// A good lesson file with one field replaced (or removed, when `value` is empty).
std::string good_with(const std::string& key, const std::string& value) {
  Json j = Json::parse(kGood);
  if (value.empty())
    j.erase(key);
  else
    j[key] = Json::parse(value);
  return j.dump();
}

std::vector<LessonFile> folder(const std::string& online_text) {
  return {{"assets/lessons/order.json", R"({"order": ["online"]})"}, {"assets/lessons/online.json", online_text}};
}

}  // namespace

TEST_CASE("every shipped lesson loads: numbered by order.json, titles without numbers, presets that run") {
  const std::vector<Lesson>& all = lessons();
  REQUIRE(all.size() == embedded_lesson_files().size() - 1);  // one file per lesson, and order.json
  std::set<std::string> ids;
  for (std::size_t i = 0; i < all.size(); ++i) {
    const Lesson& l = all[i];
    CAPTURE(l.id);
    CHECK(ids.insert(l.id).second);
    CHECK(l.number == static_cast<int>(i) + 1);
    CHECK(l.heading() == std::to_string(i + 1) + ". " + l.title);
    CHECK(!l.title.empty());
    CHECK(!l.summary.empty());
    CHECK((l.backend == "cpu" || l.backend == "gpu"));
    CHECK(find_lesson(l.id) == &l);
    CHECK_NOTHROW(resolve(l.scenario));
  }
  // The catalogue the README and the worked examples describe.
  CHECK(all.front().heading() == "1. Naive softmax and overflow");
  CHECK(all.front().scenario.precision == Precision::fp16);
  CHECK(find_lesson("measure")->tab == "measure-lab");
  CHECK(find_lesson("scale")->tab == "scale-lab");
  CHECK(find_lesson("scale")->scenario.d == 64);
  CHECK(find_lesson("cpu-vs-gpu")->backend == "gpu");
  CHECK(find_lesson("no-such-lesson") == nullptr);
}

TEST_CASE("a lesson file's scenario is read exactly as a scenario file's") {
  const Lesson l = parse_lesson({"assets/lessons/online.json", kGood});
  CHECK(l.id == "online");
  CHECK(l.number == 0);  // numbers come from order.json
  const Scenario direct = scenario_from_json(Json::parse(kGood)["scenario"]);
  CHECK(scenario_to_json(l.scenario) == scenario_to_json(direct));
}

TEST_CASE("a bad lesson file is refused with one message naming the file and the field") {
  struct Case {
    std::string text;
    std::vector<std::string> said;  // parts the message must contain
  };
  const std::vector<Case> cases = {
      {good_with("scenario", R"({"algorithm": "online", "precision": "fp8"})"),
       {"assets/lessons/online.json: \"scenario.precision\" = \"fp8\": use fp64, fp32, fp16 or bf16"}},
      {good_with("scenario", R"({"algorithm": "flash-5"})"), {"online.json", "\"scenario.algorithm\" = \"flash-5\""}},
      {good_with("scenario", R"({"algorithm": "online", "input": [[1, "x"]]})"),
       {"online.json", "\"scenario.input\" row 1 value 2"}},
      {good_with("scenario", R"({"algorithm": "online", "chunks": 0})"), {"online.json", "\"scenario.chunks\""}},
      {good_with("scenario", R"({"input": [[1, 2]]})"), {"online.json", "no \"scenario.algorithm\""}},
      {good_with("scenario", R"({"algorithm": "attn-naive", "q": [[1, 2]], "k": [[1, 2]], "v": [[1]]})"),
       {"online.json: scenario:", "Q, K, V"}},  // parses, but cannot run
      {good_with("scenario", "[1, 2]"), {"online.json", "\"scenario\" is [1,2], not an object"}},
      {good_with("scenario", ""), {"online.json", "no \"scenario\""}},
      {good_with("tab", R"("measure")"),
       {"online.json: \"tab\" = \"measure\": use lesson, compare, scale-lab, measure-lab or overflow-lab"}},
      {good_with("backend", R"("tpu")"), {"online.json: \"backend\" = \"tpu\": use cpu or gpu"}},
      {good_with("title", R"("3. Online softmax")"), {"online.json: \"title\"", "starts with a number", "order.json"}},
      {good_with("title", "42"), {"online.json: \"title\" is 42, not a string"}},
      {good_with("title", R"("  ")"), {"online.json: \"title\" is empty"}},
      {good_with("summary", ""), {"online.json: no \"summary\""}},
      {good_with("id", R"("safe")"), {"online.json: \"id\" = \"safe\" but the file is online.json"}},
      {good_with("titel", R"("Online")"), {"online.json: \"titel\" is not a field here", "title"}},
      {"{\"id\": \"online\",", {"online.json: not JSON"}},
      {"[1]", {"online.json: expected a JSON object"}},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    const std::string message = load_error(folder(c.text));
    CAPTURE(message);
    REQUIRE(!message.empty());
    CHECK(message.find('\n') == std::string::npos);  // one line
    for (const std::string& part : c.said) CHECK(contains(message, part));
  }
  CHECK(load_error(folder(kGood)).empty());
}

TEST_CASE("order.json lists every lesson file once, and only those") {
  const LessonFile online{"assets/lessons/online.json", kGood};
  CHECK(contains(load_error({online}), "assets/lessons/order.json is missing"));
  CHECK(contains(load_error({{"assets/lessons/order.json", R"({"order": ["online", "online"]})"}, online}),
                 "assets/lessons/order.json: \"order\" lists \"online\" twice"));
  CHECK(contains(load_error({{"assets/lessons/order.json", R"({"order": ["online", "safe"]})"}, online}),
                 "assets/lessons/order.json: \"order\" lists \"safe\", which has no file assets/lessons/safe.json"));
  CHECK(contains(load_error({{"assets/lessons/order.json", R"({"order": []})"}, online}),
                 "assets/lessons/order.json: \"order\" must be a list"));
  CHECK(contains(load_error({{"assets/lessons/order.json", R"({"order": [3]})"}, online}),
                 "assets/lessons/order.json: \"order\" entry 1 is 3, not a lesson id"));
  std::string safe = kGood;
  safe.replace(safe.find("\"online\""), 8, "\"safe\"");
  CHECK(contains(load_error({{"assets/lessons/order.json", R"({"order": ["online"]})"}, online,
                             {"assets/lessons/safe.json", safe}}),
                 "assets/lessons/safe.json: not in assets/lessons/order.json"));
  const std::vector<Lesson> two = load_lessons({{"assets/lessons/order.json", R"({"order": ["safe", "online"]})"},
                                                online, {"assets/lessons/safe.json", safe}});
  REQUIRE(two.size() == 2);
  CHECK(two[0].heading() == "1. Online softmax");  // safe.json is a copy with another id
  CHECK(two[0].id == "safe");
  CHECK(two[1].heading() == "2. Online softmax");
}
