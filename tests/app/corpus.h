// The scenario-file corpus (tests/data/scenarios-v1/): files written by today's and earlier
// versions of the window must keep opening the same way after every issue.
//
// Each NAME.json there has a NAME.expected beside it: what opening the file gave when the file
// was added, in a form that is the same on every machine:
//   "parsed":    the document as core reads it (core/scenario_json), written back canonically;
//   "opened":    the document the window writes back after opening it (File ▸ Save): lesson,
//                backend, playhead (clamped), scenario and layout;
//   "recording": the recording's algorithm, backend, step count, pass names and step labels.
// No floating-point results: they may differ in the last bits from one CPU to another.
//
// tests/app/corpus_expect.cpp writes the .expected files once, when a file joins the corpus;
// tests/app/test_corpus.cpp compares and never writes.
#pragma once

#include "app/files.h"
#include "app/ui/model/app_state.h"
#include "app/ui/model/document.h"
#include "core/algorithms.h"
#include "core/scenario_json.h"

#include <string>

namespace flashstep::corpus {

// What opening `path` in a fresh window gives. An error (the file does not open) is returned as
// {"error": message}, so a corpus file that stops opening shows why.
inline Json expectation(const std::string& path) {
  std::string text, error;
  if (!read_file(path, text, error)) return Json{{"error", error}};
  Json out = Json::object();
  try {
    out["parsed"] = document_to_json(parse_document(text));
  } catch (const InputError& e) {
    return Json{{"error", std::string(e.what())}};
  }
  ui::AppState app;
  app.background_allowed = false;  // record on this thread, so the recording is there at once
  if (!ui::open_document(app, path)) return Json{{"error", app.status}};
  out["opened"] = document_to_json(ui::make_document(app));
  const Recording& rec = *app.played.rec;
  Json labels = Json::array();
  for (const Step& s : rec.steps) labels.push_back(s.label);
  out["recording"] = {{"algorithm", std::string(algorithm_id(rec.algorithm))},
                      {"backend", rec.backend},
                      {"steps", rec.step_count()},
                      {"passes", rec.pass_names},
                      {"labels", labels}};
  return out;
}

inline std::string expected_path(const std::string& scenario_path) {
  return scenario_path.substr(0, scenario_path.size() - std::string(".json").size()) + ".expected";
}

}  // namespace flashstep::corpus
