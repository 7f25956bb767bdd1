#include "core/lessons.h"

#include "core/report.h"
#include "core/scenario_json.h"
#include "core/text.h"

#include <algorithm>
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
  check_keys(f, j, {"id", "title", "summary", "tab", "backend", "scenario"});
  Lesson l;
  l.id = text_field(f, j, "id");
  if (base_name(f.name) != l.id + ".json")
    fail(f, "\"id\" = \"" + l.id + "\" but the file is " + base_name(f.name) + "; name it " + l.id + ".json");
  l.title = text_field(f, j, "title");
  // "3. Online softmax" would be shown as "3. 3. Online softmax", and go wrong on the next reorder.
  const std::size_t after_digits = l.title.find_first_not_of("0123456789");
  if (after_digits > 0 && after_digits != std::string::npos && l.title[after_digits] == '.')
    fail(f, "\"title\" = \"" + l.title + "\" starts with a number; lesson numbers come from "
            "assets/lessons/order.json");
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
  return l;
}

std::vector<Lesson> load_lessons(const std::vector<LessonFile>& files) {
  const auto order_file = std::find_if(files.begin(), files.end(),
                                       [](const LessonFile& f) { return base_name(f.name) == "order.json"; });
  if (order_file == files.end()) throw InputError("assets/lessons/order.json is missing: it lists the lessons in teaching order");
  const LessonFile& of = *order_file;
  const Json order = parse_json(of);
  if (!order.is_object()) fail(of, "expected a JSON object {\"order\": [\"naive\", ...]}");
  check_keys(of, order, {"order"});
  if (!order.contains("order") || !order["order"].is_array() || order["order"].empty())
    fail(of, "\"order\" must be a list of lesson ids, first taught first");

  const std::string folder = of.name.substr(0, of.name.size() - std::string("order.json").size());
  std::vector<Lesson> out;
  std::set<std::string> listed;
  for (std::size_t i = 0; i < order["order"].size(); ++i) {
    const Json& id = order["order"][i];
    if (!id.is_string()) fail(of, strf("\"order\" entry %zu is %s, not a lesson id", i + 1, shown(id).c_str()));
    const std::string name = folder + id.get<std::string>() + ".json";
    if (!listed.insert(id.get<std::string>()).second)
      fail(of, "\"order\" lists \"" + id.get<std::string>() + "\" twice");
    const auto file = std::find_if(files.begin(), files.end(), [&](const LessonFile& f) { return f.name == name; });
    if (file == files.end()) fail(of, "\"order\" lists \"" + id.get<std::string>() + "\", which has no file " + name);
    Lesson l = parse_lesson(*file);
    l.number = static_cast<int>(i) + 1;
    out.push_back(std::move(l));
  }
  for (const LessonFile& f : files)
    if (&f != &of && listed.count(base_name(f.name).substr(0, base_name(f.name).size() - 5)) == 0)
      fail(f, "not in " + of.name + "; add its id there, where it is taught");
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

}  // namespace flashstep
