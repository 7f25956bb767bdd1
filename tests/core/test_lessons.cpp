// Lessons as data (assets/lessons/, core/lessons.h): every shipped lesson loads, numbered by
// the files' places, and a bad lesson file is refused with one message naming the file and the field.
#include "core/lessons.h"
#include "core/engine.h"
#include "core/scenario_json.h"

#include <doctest/doctest.h>

#include <limits>
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

const char* const kGood = R"({"id": "online", "place": 30, "title": "Online softmax", "summary": "m and l in one sweep.",
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
  return {{"assets/lessons/online.json", online_text}};
}

}  // namespace

TEST_CASE("every shipped lesson loads: numbered by their places, titles without numbers, presets that run") {
  const std::vector<Lesson>& all = lessons();
  REQUIRE(all.size() == embedded_lesson_files().size());  // one file per lesson
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
  CHECK(l.number == 0);  // numbers come from the places of all the lessons
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
      {good_with("title", R"("3. Online softmax")"), {"online.json: \"title\"", "starts with a number", "\"place\""}},
      {good_with("place", ""), {"online.json: no \"place\""}},
      {good_with("place", "2.5"), {"online.json: \"place\" is 2.5, not a whole number"}},
      {good_with("place", "0"), {"online.json: \"place\" is 0, not a whole number"}},
      {good_with("place", R"("3")"), {"online.json: \"place\" is \"3\", not a whole number"}},
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

TEST_CASE("the lessons are taught in the order of their places, each place one lesson's, and a new one goes in between alone") {
  const LessonFile online{"assets/lessons/online.json", kGood};  // place 30
  CHECK(contains(load_error({}), "no lesson files"));
  auto copy = [](const std::string& id, int place) {
    std::string t = good_with("place", std::to_string(place));
    t.replace(t.find("\"online\""), 8, "\"" + id + "\"");
    return LessonFile{"assets/lessons/" + id + ".json", t};
  };
  const LessonFile safe = copy("safe", 20), naive = copy("naive", 10);
  // The files come in any order; the places order them.
  const std::vector<Lesson> three = load_lessons({online, naive, safe});
  REQUIRE(three.size() == 3);
  CHECK(three[0].id == "naive");
  CHECK(three[1].id == "safe");
  CHECK(three[2].id == "online");
  CHECK(three[2].heading() == "3. Online softmax");
  // A lesson at 25 goes between the 20th and the 30th with no other file touched, and the
  // numbers after it move on by one.
  const std::vector<Lesson> four = load_lessons({online, naive, safe, copy("chunked", 25)});
  REQUIRE(four.size() == 4);
  CHECK(four[2].id == "chunked");
  CHECK(four[2].number == 3);
  CHECK(four[3].id == "online");
  CHECK(four[3].number == 4);
  // Two lessons at one place: which goes first would be chance. Both files are named.
  const std::string twice = load_error({online, naive, copy("safe", 30)});
  CHECK(contains(twice, "\"place\" = 30 is also"));
  CHECK(contains(twice, "online.json"));
  CHECK(contains(twice, "safe.json"));
  CHECK(twice.find('\n') == std::string::npos);
}

TEST_CASE("the shipped lessons' places leave room between them for new lessons") {
  const std::vector<Lesson>& all = lessons();
  for (std::size_t i = 1; i < all.size(); ++i) {
    CAPTURE(all[i].id);
    CHECK(all[i].place - all[i - 1].place >= 2);  // a lesson fits in between
  }
}

TEST_CASE("a sentence names a lesson by its id, so its number follows the teaching order") {
  const Lesson* online = find_lesson("attn-online");
  REQUIRE(online);
  CHECK(lesson_ref("attn-online") == "lesson " + std::to_string(online->number));

  // A lesson inserted before it moves it one place on, and the reference with it.
  std::vector<LessonFile> files = embedded_lesson_files();
  REQUIRE(!files.empty());
  const std::string folder = files.front().name.substr(0, files.front().name.rfind('/') + 1);
  files.push_back({folder + "inserted.json",
                   R"({"id": "inserted", "place": 1, "title": "An inserted lesson", "summary": "First of all.",
                      "tab": "lesson", "backend": "cpu", "scenario": {"algorithm": "safe", "input": [[1, 2]]}})"});
  const std::vector<Lesson> longer = load_lessons(files);
  CHECK(lesson_ref("attn-online", longer) == "lesson " + std::to_string(online->number + 1));
  CHECK(lesson_ref("no-such-lesson", longer) == "the lesson no-such-lesson");

  // The sentence that points to attn-online's preset names it through the reference.
  Scenario s;
  s.algorithm = Algorithm::naive;
  s.x = {{-std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()}};
  const Recording rec = record(s);
  bool pointed = false;
  for (const Step& st : rec.steps)
    if (contains(st.text, "a row with no finite score")) {
      pointed = true;
      CHECK(contains(st.text, "see " + lesson_ref("attn-online") + "'s preset"));
    }
  CHECK(pointed);
}
