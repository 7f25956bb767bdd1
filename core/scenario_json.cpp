#include "core/scenario_json.h"

#include "core/engine.h"
#include "core/lessons.h"
#include "core/text.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace flashstep {
namespace {

Json matrix_json(const std::vector<std::vector<double>>& m) {
  Json out = Json::array();
  for (const auto& row : m) {
    Json r = Json::array();
    for (double v : row) r.push_back(number_json(v));
    out.push_back(std::move(r));
  }
  return out;
}

std::string shown(const Json& v) {
  std::string s = v.dump();
  return s.size() > 40 ? s.substr(0, 37) + "..." : s;
}

double number_from(const Json& v, const std::string& context, const std::string& where) {
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
    if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
  }
  throw InputError(context + ": " + where + " is " + shown(v) + ", not a number");
}

}  // namespace

std::vector<std::vector<double>> matrix_from_json(const Json& j, const char* key, const std::string& context) {
  if (!j.contains(key)) throw InputError(context + ": no \"" + key + "\" matrix");
  const Json& m = j[key];
  if (!m.is_array()) throw InputError(context + ": \"" + key + "\" must be a list of rows");
  // Check the size before converting anything, so a huge file fails fast and cheaply.
  std::size_t total = 0;
  for (const Json& row : m) total += row.is_array() ? row.size() : 1;
  if (total > static_cast<std::size_t>(kMaxElements))
    throw InputError(strf("%s: \"%s\" has %zu values; the limit is %d", context.c_str(), key, total, kMaxElements));
  std::vector<std::vector<double>> out;
  for (std::size_t r = 0; r < m.size(); ++r) {
    if (!m[r].is_array())
      throw InputError(strf("%s: \"%s\" row %zu must be a list of numbers", context.c_str(), key, r + 1));
    std::vector<double> row;
    for (std::size_t c = 0; c < m[r].size(); ++c)
      row.push_back(number_from(m[r][c], context, strf("\"%s\" row %zu value %zu", key, r + 1, c + 1)));
    out.push_back(std::move(row));
  }
  return out;
}

namespace {

long long int_from(const Json& j, const char* key, long long fallback, long long lo, long long hi) {
  if (!j.contains(key)) return fallback;
  const Json& v = j[key];
  if (!v.is_number_integer() && !(v.is_number_float() && std::floor(v.get<double>()) == v.get<double>()))
    throw InputError(std::string("scenario: \"") + key + "\" is " + shown(v) + ", not a whole number");
  const double x = v.get<double>();
  if (x < lo || x > hi)
    throw InputError(strf("scenario: \"%s\" = %s is out of range %lld..%lld", key, num(x).c_str(), lo, hi));
  return static_cast<long long>(x);
}

void refuse_unknown_keys(const Json& j, const std::vector<std::string>& keys, const char* what) {
  for (const auto& item : j.items()) {
    if (std::find(keys.begin(), keys.end(), item.key()) != keys.end()) continue;
    std::string list;
    for (const std::string& k : keys) list += (list.empty() ? "" : ", ") + k;
    throw InputError(std::string(what) + ": \"" + item.key() + "\" is not a field; use " + list);
  }
}

std::string string_from(const Json& j, const char* key, const std::string& fallback) {
  if (!j.contains(key)) return fallback;
  if (!j[key].is_string()) throw InputError(std::string("scenario: \"") + key + "\" is " + shown(j[key]) + ", not a string");
  return j[key].get<std::string>();
}

}  // namespace

Json scenario_to_json(const Scenario& s) {
  Json j;
  j["algorithm"] = std::string(algorithm_id(s.algorithm));
  j["precision"] = std::string(precision_name(s.precision));
  switch (s.scale_mode) {
    case ScaleMode::none: j["scale"] = "none"; break;
    case ScaleMode::inv_sqrt_d: j["scale"] = "sqrt"; break;
    case ScaleMode::value: j["scale"] = number_json(s.scale_value); break;
  }
  j["causal"] = s.causal;
  if (!s.x.empty()) j["input"] = matrix_json(s.x);
  if (!s.q.empty()) {
    j["q"] = matrix_json(s.q);
    j["k"] = matrix_json(s.k);
    j["v"] = matrix_json(s.v);
  }
  // The backward's dO, only when given: files without it keep their bytes.
  if (!s.d_o.empty()) j["do"] = matrix_json(s.d_o);
  j["rows"] = s.rows;
  j["n"] = s.n;
  j["d"] = s.d;
  j["seed"] = s.seed;
  // Format 1's parameters always; a newer one only where it is not its default, so that the
  // files of older versions are written back as they were.
  for (const ParamDecl& p : params()) {
    const long long v = param_value(s, p);
    if (!p.member && v == p.def) continue;
    if (p.type == ParamType::flag) j[p.key] = v != 0;
    else j[p.key] = v;
  }
  return j;
}

Scenario scenario_from_json(const Json& j) {
  if (!j.is_object()) throw InputError("scenario: expected a JSON object {\"algorithm\": ..., ...}");
  // Only the keys it knows: a misspelt one ("br" for "block_rows") would otherwise be left out
  // and the default taken in its place.
  {
    std::vector<std::string> keys = {"algorithm", "precision", "scale", "causal", "input", "q", "k",
                                     "v", "do", "rows", "n", "d", "seed"};
    for (const ParamDecl& p : params()) keys.push_back(p.key);
    refuse_unknown_keys(j, keys, "scenario");
  }
  Scenario s;
  const std::string algo = string_from(j, "algorithm", std::string(algorithm_id(s.algorithm)));
  const auto a = parse_algorithm(algo);
  if (!a) throw InputError("scenario: \"algorithm\" = \"" + algo + "\" is not one of " + algorithm_id_list());
  s.algorithm = *a;
  const std::string prec = string_from(j, "precision", "fp32");
  const auto p = parse_precision(prec);
  if (!p) throw InputError("scenario: \"precision\" = \"" + prec + "\": use fp64, fp32, fp16 or bf16");
  s.precision = *p;
  if (j.contains("scale")) {
    const Json& v = j["scale"];
    if (v == "none") {
      s.scale_mode = ScaleMode::none;
    } else if (v == "sqrt") {
      s.scale_mode = ScaleMode::inv_sqrt_d;
    } else if (v.is_number() && std::isfinite(v.get<double>())) {
      s.scale_mode = ScaleMode::value;
      s.scale_value = v.get<double>();
    } else {
      throw InputError("scenario: \"scale\" is " + shown(v) + "; use \"none\", \"sqrt\" or a finite number");
    }
  }
  if (j.contains("causal")) {
    if (!j["causal"].is_boolean()) throw InputError("scenario: \"causal\" is " + shown(j["causal"]) + ", not true or false");
    s.causal = j["causal"].get<bool>();
  }
  // Given means given: an empty matrix is refused, not taken for "random input from the seed".
  auto given_matrix = [&](const char* key) {
    auto m = matrix_from_json(j, key, "scenario");
    if (m.empty())
      throw InputError(std::string("scenario: \"") + key + "\" is empty; leave it out for a random input "
                       "from the seed");
    return m;
  };
  if (j.contains("input")) s.x = given_matrix("input");
  const bool any_qkv = j.contains("q") || j.contains("k") || j.contains("v");
  if (any_qkv) {
    for (const char* key : {"q", "k", "v"})
      if (!j.contains(key)) throw InputError(std::string("scenario: has Q, K, V but no \"") + key + "\"");
    s.q = given_matrix("q");
    s.k = given_matrix("k");
    s.v = given_matrix("v");
  }
  if (j.contains("do")) s.d_o = given_matrix("do");
  s.rows = static_cast<int>(int_from(j, "rows", s.rows, 1, kMaxElements));
  s.n = static_cast<int>(int_from(j, "n", s.n, 1, kMaxElements));
  s.d = static_cast<int>(int_from(j, "d", s.d, 1, kMaxElements));
  if (j.contains("seed")) {
    if (!j["seed"].is_number_unsigned()) throw InputError("scenario: \"seed\" is " + shown(j["seed"]) + ", not a whole number >= 0");
    s.seed = j["seed"].get<std::uint64_t>();
  }
  for (const ParamDecl& p : params()) {
    if (!j.contains(p.key)) continue;
    if (p.type == ParamType::flag) {
      if (!j[p.key].is_boolean())
        throw InputError("scenario: \"" + p.key + "\" is " + shown(j[p.key]) + ", not true or false");
      set_param(s, p, j[p.key].get<bool>() ? 1 : 0);
    } else {
      // No whole number in a file exceeds kMaxElements (an input's size).
      set_param(s, p, int_from(j, p.key.c_str(), 0, p.zero_is_auto ? std::min(0LL, p.lo) : p.lo,
                               std::min<long long>(p.hi, kMaxElements)));
    }
  }
  return s;
}

Json document_to_json(const ScenarioDocument& doc) {
  Json j;
  j["flashstep_scenario"] = kScenarioVersion;
  j["lesson"] = doc.lesson;
  j["backend"] = doc.backend;
  j["playhead"] = doc.playhead;
  j["scenario"] = scenario_to_json(doc.scenario);
  j["layout"] = doc.layout;
  return j;
}

ScenarioDocument document_from_json(const Json& j) {
  if (!j.is_object()) throw InputError("scenario file: expected a JSON object");
  ScenarioDocument doc;
  if (!j.contains("flashstep_scenario") && !j.contains("scenario")) {
    doc.scenario = scenario_from_json(j);  // a bare scenario
    return doc;
  }
  if (j.contains("flashstep_scenario")) {
    const Json& v = j["flashstep_scenario"];
    if (!v.is_number_integer()) throw InputError("scenario file: \"flashstep_scenario\" (the version) is " + shown(v) + ", not a whole number");
    if (v.get<long long>() > kScenarioVersion)
      throw InputError(strf("scenario file: written by a newer FlashStep (version %lld); this one reads version %d",
                            v.get<long long>(), kScenarioVersion));
    if (v.get<long long>() < 1) throw InputError("scenario file: version " + shown(v) + " is not valid");
  }
  // After the version: a newer version's fields are its own.
  refuse_unknown_keys(j, {"flashstep_scenario", "lesson", "backend", "playhead", "scenario", "layout"},
                      "scenario file");
  doc.lesson = string_from(j, "lesson", "");
  doc.backend = string_from(j, "backend", "cpu");
  if (doc.backend != "cpu" && doc.backend != "gpu")
    throw InputError("scenario file: \"backend\" = \"" + doc.backend + "\": use cpu or gpu");
  doc.playhead = static_cast<int>(int_from(j, "playhead", 0, 0, std::numeric_limits<int>::max()));
  if (j.contains("scenario")) {
    doc.scenario = scenario_from_json(j["scenario"]);
  } else if (!doc.lesson.empty()) {
    // Every key is optional: without "scenario", the lesson's own example (and its backend
    // unless the file names one); with neither, the defaults, as in a bare {}.
    const auto& all = lessons();
    const auto it = std::find_if(all.begin(), all.end(), [&](const Lesson& l) { return l.id == doc.lesson; });
    if (it == all.end())
      throw InputError("scenario file: \"lesson\" = \"" + doc.lesson +
                       "\" is not a lesson of this version, and there is no \"scenario\" instead");
    doc.scenario = it->scenario;
    if (!j.contains("backend")) doc.backend = it->backend;
  }
  if (j.contains("layout")) {
    if (!j["layout"].is_object()) throw InputError("scenario file: \"layout\" must be an object");
    doc.layout = j["layout"];
  }
  return doc;
}

ScenarioDocument parse_document(const std::string& text) { return parse_document(text, nullptr); }

ScenarioDocument parse_document(const std::string& text, const std::atomic<bool>* cancel) {
  Json j;
  try {
    if (cancel) {
      // Asked at every value the parser finishes: a cancel stops it within microseconds.
      j = Json::parse(text, [cancel](int, Json::parse_event_t, Json&) {
        if (cancel->load(std::memory_order_relaxed)) throw Cancelled();
        return true;
      });
    } else {
      j = Json::parse(text);
    }
  } catch (const Json::parse_error& e) {
    if (text.find_first_not_of(" \t\r\n") == std::string::npos) throw InputError("scenario file is empty");
    throw InputError(strf("scenario file is not JSON (syntax error at byte %zu)", e.byte));
  } catch (const Json::exception& e) {
    // A number too large for a double (out_of_range 406), and anything else the parser refuses.
    throw InputError(std::string("scenario file is not usable JSON: ") + e.what());
  }
  return document_from_json(j);
}

}  // namespace flashstep
