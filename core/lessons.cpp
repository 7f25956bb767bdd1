#include "core/lessons.h"

#include "core/report.h"
#include "core/scenario_json.h"
#include "core/text.h"

#include <algorithm>
#include <map>
#include <set>

namespace flashstep {
namespace {

// Every message starts with the file, then the field as a path into it: a lesson author reads
// one line and knows where to look.
[[noreturn]] void fail(const LessonFile& f, const std::string& what) { throw InputError(f.name + ": " + what); }

std::string shown(const Json& v) {
  std::string s = v.dump();
  return s.size() > 40 ? s.substr(0, 37) + "..." : s;
}

std::string base_name(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

Json parse_json(const LessonFile& f) {
  try {
    return Json::parse(f.text);
  } catch (const Json::parse_error& e) {
    fail(f, strf("not JSON (syntax error at byte %zu)", e.byte));
  } catch (const Json::exception& e) {
    fail(f, std::string("not usable JSON: ") + e.what());
  }
}

// Only the keys it knows: a misspelt key would otherwise be silently left out.
void check_keys(const LessonFile& f, const Json& j, std::initializer_list<const char*> keys) {
  for (const auto& item : j.items()) {
    const std::string& key = item.key();
    if (std::none_of(keys.begin(), keys.end(), [&](const char* k) { return key == k; })) {
      std::string list;
      for (const char* k : keys) list += (list.empty() ? "" : ", ") + std::string(k);
      fail(f, "\"" + key + "\" is not a field here; use " + list);
    }
  }
}

std::string text_field(const LessonFile& f, const Json& j, const char* key) {
  if (!j.contains(key)) fail(f, std::string("no \"") + key + "\"");
  const Json& v = j[key];
  if (!v.is_string()) fail(f, std::string("\"") + key + "\" is " + shown(v) + ", not a string");
  std::string s = v.get<std::string>();
  if (s.find_first_not_of(" \t\r\n") == std::string::npos) fail(f, std::string("\"") + key + "\" is empty");
  return s;
}

std::string one_of(const LessonFile& f, const Json& j, const char* key, const std::vector<std::string>& allowed) {
  const std::string s = text_field(f, j, key);
  if (std::find(allowed.begin(), allowed.end(), s) != allowed.end()) return s;
  std::string list;
  for (std::size_t i = 0; i < allowed.size(); ++i)
    list += (i == 0 ? "" : i + 1 == allowed.size() ? " or " : ", ") + allowed[i];
  fail(f, std::string("\"") + key + "\" = \"" + s + "\": use " + list);
}

// The scenario parser names its fields as `scenario: "precision" ...`; in a lesson file they
// sit inside "scenario", so the path becomes "scenario.precision".
[[noreturn]] void fail_in_scenario(const LessonFile& f, const std::string& message) {
  const std::string prefix = "scenario: \"";
  if (message.compare(0, prefix.size(), prefix) == 0) fail(f, "\"scenario." + message.substr(prefix.size()));
  if (message.compare(0, 10, "scenario: ") == 0) fail(f, message);
  fail(f, "scenario: " + message);
}

}  // namespace

Lesson parse_lesson(const LessonFile& f) {
  const Json j = parse_json(f);
  if (!j.is_object()) fail(f, "expected a JSON object {\"id\": ..., \"title\": ..., ...}");
  check_keys(f, j, {"id", "place", "title", "summary", "tab", "backend", "scenario", "tour"});
  Lesson l;
  l.id = text_field(f, j, "id");
  if (base_name(f.name) != l.id + ".json")
    fail(f, "\"id\" = \"" + l.id + "\" but the file is " + base_name(f.name) + "; name it " + l.id + ".json");
  if (!j.contains("place")) fail(f, "no \"place\": a whole number that orders the lessons (10, 20, ...)");
  const Json& place = j["place"];
  if (!place.is_number_integer() || place.get<long long>() < 1 || place.get<long long>() > 1000000)
    fail(f, "\"place\" is " + shown(place) + ", not a whole number from 1 to 1000000");
  l.place = place.get<int>();
  l.title = text_field(f, j, "title");
  // "3. Online softmax" would be shown as "3. 3. Online softmax", and go wrong on the next reorder.
  const std::size_t after_digits = l.title.find_first_not_of("0123456789");
  if (after_digits > 0 && after_digits != std::string::npos && l.title[after_digits] == '.')
    fail(f, "\"title\" = \"" + l.title + "\" starts with a number; lesson numbers come from "
            "the lessons' \"place\"");
  l.summary = text_field(f, j, "summary");
  l.tab = one_of(f, j, "tab", std::vector<std::string>(std::begin(kLessonTabs), std::end(kLessonTabs)));
  l.backend = one_of(f, j, "backend", {"cpu", "gpu"});
  if (!j.contains("scenario")) fail(f, "no \"scenario\"");
  const Json& s = j["scenario"];
  if (!s.is_object()) fail(f, "\"scenario\" is " + shown(s) + ", not an object like a scenario file's");
  if (!s.contains("algorithm")) fail(f, "no \"scenario.algorithm\"");
  try {
    l.scenario = scenario_from_json(s);
    (void)resolve(l.scenario);  // a preset that cannot run is as wrong as one that does not parse
  } catch (const InputError& e) {
    fail_in_scenario(f, e.what());
  }
  // Every lesson of the catalogue has one (tests/core/test_tour.cpp); a lesson without is shown
  // without a tour.
  if (j.contains("tour")) l.tour = parse_tour(j["tour"], f.name + ": tour");
  return l;
}

std::vector<Lesson> load_lessons(const std::vector<LessonFile>& files) {
  if (files.empty()) throw InputError("no lesson files: assets/lessons/ holds one <id>.json per lesson");
  std::vector<Lesson> out;
  std::map<int, std::string> by_place;
  for (const LessonFile& f : files) {
    Lesson l = parse_lesson(f);
    const auto [it, fresh] = by_place.emplace(l.place, f.name);
    if (!fresh) fail(f, strf("\"place\" = %d is also %s's; give each lesson its own place", l.place, it->second.c_str()));
    out.push_back(std::move(l));
  }
  std::sort(out.begin(), out.end(), [](const Lesson& a, const Lesson& b) { return a.place < b.place; });
  for (std::size_t i = 0; i < out.size(); ++i) out[i].number = static_cast<int>(i) + 1;
  return out;
}

const std::vector<Lesson>& lessons() {
  static const std::vector<Lesson> kLessons = load_lessons(embedded_lesson_files());
  return kLessons;
}

const Lesson* find_lesson(std::string_view id) {
  for (const Lesson& l : lessons())
    if (l.id == id) return &l;
  return nullptr;
}

std::string lesson_ref(std::string_view id, const std::vector<Lesson>& catalogue) {
  for (const Lesson& l : catalogue)
    if (l.id == id) return "lesson " + std::to_string(l.number);
  return "the lesson " + std::string(id);
}

std::string lesson_ref(std::string_view id) { return lesson_ref(id, lessons()); }

}  // namespace flashstep
