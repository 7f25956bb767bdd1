// A Scenario as JSON: what a lecturer prepares before class and what the app's scenario files
// hold. Reading checks every field and names the one that is wrong (InputError); it never
// trusts sizes or types from the file.
//
//   {"algorithm": "attn-tiled", "precision": "fp32", "scale": "sqrt" | "none" | 0.5,
//    "causal": false, "input": [[3, 2, 5, 1]], "q": [[...]], "k": [[...]], "v": [[...]],
//    "rows": 1, "n": 8, "d": 4, "seed": 1, "block_rows": 0, "block_cols": 0, "sram": 0,
//    "chunks": 4, ...}
// then each parameter declared since format 1 (core/params.h), written only where it is not its
// default. Every key is optional (defaults as in Scenario); matrix entries may be the strings "inf",
// "-inf", "nan".
#pragma once

#include "core/report.h"
#include "core/scenario.h"

#include <atomic>
#include <string>

namespace flashstep {

Json scenario_to_json(const Scenario& s);
// j[key] as a list of rows of numbers; errors start with `context` ("scenario", a file name).
std::vector<std::vector<double>> matrix_from_json(const Json& j, const char* key, const std::string& context);
Scenario scenario_from_json(const Json& j);  // throws InputError naming the field

// A scenario file: the scenario plus what the app shows of it.
//   {"flashstep_scenario": 1, "lesson": "attn-tiled", "backend": "cpu", "playhead": 12,
//    "scenario": {...}, "layout": {...}}
// A bare scenario object is read as a document with defaults around it.
inline constexpr int kScenarioVersion = 1;

struct ScenarioDocument {
  std::string lesson;          // lesson id, may be empty
  std::string backend = "cpu";
  int playhead = 0;            // step index
  Scenario scenario;
  Json layout = Json::object();  // the app's panel layout, kept as it is
};

Json document_to_json(const ScenarioDocument& doc);
ScenarioDocument document_from_json(const Json& j);
// Parses the text of a scenario file; a file that is not JSON, has a newer version or a bad
// field gives an InputError that says which.
ScenarioDocument parse_document(const std::string& text);
// The same, stopping with Cancelled (core/engine.h) soon after *cancel turns true: a 50 MB file
// parsed off the UI thread can be given up.
ScenarioDocument parse_document(const std::string& text, const std::atomic<bool>* cancel);

}  // namespace flashstep
