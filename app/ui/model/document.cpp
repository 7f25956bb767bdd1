#include "app/ui/model/document.h"

#include "app/files.h"
#include "app/settings.h"
#include "core/lessons.h"

#include <algorithm>
#include <optional>

namespace flashstep::ui {

namespace {

// The panel flags by name, for both directions.
template <class Flags, class F>
void each_panel(Flags& f, F&& fn) {
  fn("lessons", f.lessons);
  fn("inputs", f.inputs);
  fn("view", f.view);
  fn("explanation", f.explanation);
  fn("pseudocode", f.pseudocode);
  fn("memory", f.memory);
  fn("timeline", f.timeline);
  fn("status", f.status);
  fn("log", f.log);
}

// Reads what it knows of the layout and ignores the rest (a layout is a convenience: an
// older or newer app's keys must not stop the scenario from opening). Wrong types are errors.
void read_layout(const Json& layout, PanelFlags& panels, Tab& tab, std::optional<Algorithm>& a,
                 std::optional<Algorithm>& b) {
  if (layout.contains("panels")) {
    const Json& p = layout["panels"];
    if (!p.is_object()) throw InputError("scenario file: \"layout.panels\" must be an object");
    each_panel(panels, [&](const char* name, bool& flag) {
      if (!p.contains(name)) return;
      if (!p[name].is_boolean())
        throw InputError(std::string("scenario file: \"layout.panels.") + name + "\" must be true or false");
      flag = p[name].get<bool>();
    });
  }
  if (layout.contains("tab")) {
    if (!layout["tab"].is_string()) throw InputError("scenario file: \"layout.tab\" must be a string");
    const std::string t = layout["tab"].get<std::string>();
    // Files written before issue 22 call the Measure tab "measure"; it is read as "measure-lab".
    const std::optional<Tab> parsed = t == "measure" ? Tab::measure_lab : parse_tab(t);
    if (!parsed) {
      std::string names;
      const std::size_t n = std::size(kTabNames);
      for (std::size_t i = 0; i < n; ++i)
        names += (i == 0 ? "" : i + 1 == n ? " or " : ", ") + std::string(kTabNames[i].second);
      throw InputError("scenario file: \"layout.tab\" = \"" + t + "\": use " + names);
    }
    tab = *parsed;
  }
  if (layout.contains("compare")) {
    const Json& c = layout["compare"];
    if (!c.is_object()) throw InputError("scenario file: \"layout.compare\" must be an object");
    for (auto [key, algo] : {std::pair<const char*, std::optional<Algorithm>*>{"a", &a}, {"b", &b}}) {
      if (!c.contains(key)) continue;
      const auto parsed = c[key].is_string() ? parse_algorithm(c[key].get<std::string>()) : std::nullopt;
      if (!parsed)
        throw InputError(std::string("scenario file: \"layout.compare.") + key + "\" must be one of " +
                         algorithm_id_list());
      *algo = *parsed;
    }
  }
}

}  // namespace

Json layout_json(const AppState& app) {
  Json panels = Json::object();
  each_panel(app.panels, [&](const char* name, const bool& flag) { panels[name] = flag; });
  Json j = Json::object();
  j["panels"] = panels;
  j["tab"] = std::string(tab_name(app.tab));
  j["compare"] = {{"a", std::string(algorithm_id(app.compare.a))}, {"b", std::string(algorithm_id(app.compare.b))}};
  return j;
}

ScenarioDocument make_document(const AppState& app) {
  ScenarioDocument doc;
  doc.lesson = app.current_lesson().id;
  doc.backend = app.played.rec->backend == "gpu" ? "gpu" : "cpu";
  doc.playhead = std::max(app.timeline.playhead(), 0);
  doc.scenario = app.scenario;  // the one recorded, not a half-typed form
  doc.layout = layout_json(app);
  return doc;
}

bool apply_document(AppState& app, const ScenarioDocument& doc, std::string& error) {
  // Everything is checked before anything changes.
  int index = app.lesson;
  if (!doc.lesson.empty()) {
    const auto& all = lessons();
    const auto it = std::find_if(all.begin(), all.end(), [&](const Lesson& l) { return l.id == doc.lesson; });
    if (it == all.end()) {
      error = "scenario file: \"lesson\" = \"" + doc.lesson + "\" is not a lesson of this version";
      return false;
    }
    index = static_cast<int>(it - all.begin());
  } else {
    // A bare scenario (as `flashstep run` takes): the first lesson of its algorithm.
    const auto& all = lessons();
    const auto it = std::find_if(all.begin(), all.end(),
                                 [&](const Lesson& l) { return l.scenario.algorithm == doc.scenario.algorithm; });
    if (it != all.end()) index = static_cast<int>(it - all.begin());
  }
  const bool gpu = doc.backend == "gpu" && gpu_backend();
  // Before anything is built from the file: a 58-byte file can ask for 2^56 random values.
  if (std::string why = window_limits(doc.scenario); !why.empty()) {
    error = "scenario file: " + why;
    return false;
  }
  Inputs in = inputs_from(doc.scenario, gpu ? Backend::gpu : Backend::cpu);
  if (std::string why = app.check(in); !why.empty()) {
    error = "scenario file: " + why;
    return false;
  }
  PanelFlags panels = app.panels;
  Tab tab = app.tab;
  // The pair the file names; else the lesson's own (open_lesson_with sets it).
  std::optional<Algorithm> ca, cb;
  const bool has_tab = doc.layout.is_object() && doc.layout.contains("tab");
  try {
    if (doc.layout.is_object()) read_layout(doc.layout, panels, tab, ca, cb);
  } catch (const InputError& e) {
    error = e.what();
    return false;
  }

  // On the CPU the recording is made now, so the playhead can be placed; on the GPU it comes from
  // the GPU worker (where the window has one), and the playhead is placed when it arrives.
  const bool background = app.background_allowed;
  app.background_allowed = background && gpu;
  app.open_lesson_with(index, in);  // the lesson's own work stays a Ctrl+Z away
  app.background_allowed = background;
  app.panels = panels;
  if (has_tab && tab != app.tab) {
    app.tab = tab;
    app.tab_changed = true;
  }
  if (ca) app.compare.a = *ca;
  if (cb) app.compare.b = *cb;
  app.compare.dirty = true;
  app.place_playhead(doc.playhead);
  if (doc.backend == "gpu" && !gpu)
    app.note(Severity::warning, "The scenario asks for the GPU backend, which is not available here: it runs on the CPU.");
  return true;
}

Json kept_to_json(const AppState& app) {
  Json list = Json::array();
  for (const auto& [id, k] : app.kept) {
    ScenarioDocument doc;
    doc.lesson = id;
    doc.backend = k.inputs.backend == Backend::gpu ? "gpu" : "cpu";
    doc.playhead = k.playhead;
    doc.scenario = scenario_from(k.inputs);
    list.push_back(document_to_json(doc));
  }
  return Json{{"lessons", list}};
}

void kept_from_json(AppState& app, const Json& j, std::vector<std::string>& notices) {
  if (!j.is_object() || !j.contains("lessons") || !j["lessons"].is_array()) {
    notices.push_back("the lessons' kept inputs were not restored: the file holds no \"lessons\" list");
    return;
  }
  for (const Json& item : j["lessons"]) {
    try {
      const ScenarioDocument doc = document_from_json(item);
      const auto& all = lessons();
      if (std::none_of(all.begin(), all.end(), [&](const Lesson& l) { return l.id == doc.lesson; }))
        throw InputError("\"" + doc.lesson + "\" is not a lesson of this version");
      if (std::string why = window_limits(doc.scenario); !why.empty()) throw InputError(why);
      const Inputs in = inputs_from(doc.scenario, doc.backend == "gpu" ? Backend::gpu : Backend::cpu);
      if (std::string why = app.check(in); !why.empty()) throw InputError(why);
      if (doc.lesson != app.current_lesson().id) {
        AppState::Kept& k = app.kept[doc.lesson];
        k = {};
        k.inputs = in;
        k.playhead = std::max(doc.playhead, 0);
      }
    } catch (const std::exception& e) {
      notices.push_back(std::string("a lesson's kept inputs were not restored: ") + e.what());
    }
  }
  ++app.kept_generation;
}

namespace {
void remember(AppState& app, const std::string& path) {
  app.document_path = path;
  add_recent(app.recent_files, path);
}
}  // namespace

bool save_document(AppState& app, const std::string& path) {
  const std::string text = document_to_json(make_document(app)).dump(2) + "\n";
  if (std::string err = write_file_atomic(path, text); !err.empty()) {
    app.note(Severity::error, "Not saved: " + err);
    return false;
  }
  app.note(Severity::info, "Saved the scenario to " + path);
  remember(app, path);
  return true;
}

namespace {

bool apply_opened(AppState& app, const std::string& path, const ScenarioDocument& doc) {
  std::string error;
  if (!apply_document(app, doc, error)) {
    app.note(Severity::error, "Not opened: " + path + ": " + error + " (the current work stays open)");
    return false;
  }
  app.note(Severity::info, "Opened " + path);
  remember(app, path);
  return true;
}

}  // namespace

bool open_document(AppState& app, const std::string& path) {
  std::string text, error;
  if (!read_file(path, text, error)) {
    app.note(Severity::error, "Not opened: " + error + " (the current work stays open)");
    return false;
  }
  ScenarioDocument doc;
  try {
    doc = parse_document(text);
  } catch (const InputError& e) {
    app.note(Severity::error, "Not opened: " + path + ": " + e.what() + " (the current work stays open)");
    return false;
  }
  return apply_opened(app, path, doc);
}

void begin_open_document(AppState& app, const std::string& path) {
  if (app.opening.active())
    app.note(Severity::warning, "Opening " + app.opening.path() + " was cancelled: " + path + " is opened instead.");
  app.opening.start(path);
}

bool poll_open_document(AppState& app) {
  OpenJob::Result r;
  if (!app.opening.collect(r)) return false;
  if (r.cancelled) return false;  // said when it was cancelled
  if (!r.ok) {
    app.note(Severity::error, "Not opened: " + r.error + " (the current work stays open)");
    return false;
  }
  return apply_opened(app, app.opening.path(), r.doc);
}

}  // namespace flashstep::ui
