// The parameters of a run, each declared once (core/params.cpp): its key in scenario files and
// run's JSON, its command-line flag, its type and range, its default, which algorithms take it
// (a predicate on the algorithm's row) and its help. Everything that handles parameters asks
// this list rather than naming them: resolve()'s range checks and refusals (core/scenario.cpp),
// scenario files (core/scenario_json.cpp), the command line and its --help (app/cli_args.cpp),
// the Inputs panel and its model (app/ui/model/inputs.*, app/ui/panels/panel_inputs.cpp), the
// Recording and run's JSON (`"params"`), and the Compare tab's and the memory panel's
// comparable runs. Adding a parameter is its line in params.cpp plus the engines and shaders
// that use it, which read it with param(r.scenario, "key").
//
// Format 1's parameters (block_rows, block_cols, sram, chunks) keep their named fields in
// Scenario, which engines and lessons use, and are written to every scenario file, as they
// always were. A parameter declared since lives in Scenario::params, is written only where it
// differs from its default (so old files, and the corpus tests/data/scenarios-v1, stay
// byte-stable), and a value other than its default is refused for an algorithm that does not
// take it.
//
// The algorithm's inputs and their shape (x or Q, K, V, rows, n, d, seed) are not parameters:
// the algorithm's row says which inputs it takes. Precision, scale and the causal mask stay
// fields of their own: each is a choice with a form of its own on every surface (the scale is
// "none", "sqrt" or a number, shown as a temperature 1/T; the mask is a value of core's Mask).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace flashstep {

struct AlgorithmInfo;
struct Scenario;
enum class Algorithm;

enum class ParamType {
  integer,  // a whole number in [lo, hi]
  flag,     // on or off: true/false in files, a flag without value on the command line
};

// Values of the parameters a Scenario or a Recording carries by key (declared since format 1).
using ParamValues = std::map<std::string, long long, std::less<>>;

struct ParamDecl {
  std::string key;    // scenario files and run's JSON: "chunks"
  std::string flag;   // the command line: "--chunks"
  std::string name;   // refusals: "chunks = 0: must be at least 1"
  std::string label;  // the Inputs panel's field: "workers n_w"
  std::string help;   // the command line's --help (and the panel's (?) unless panel_help)
  std::string panel_help;  // the Inputs panel's (?); empty: help
  ParamType type = ParamType::integer;
  long long lo = 0, hi = 1;     // the values allowed (a flag: 0 and 1); files: at most kMaxElements
  long long def = 0;            // the value when none is given
  bool zero_is_auto = false;    // 0 is allowed too and means "worked out" (Br, Bc from M)
  bool (*takes)(const AlgorithmInfo&) = nullptr;  // which algorithms take it
  // The command line's refusal for an algorithm that does not take it: "<flag> sets <sets> of
  // <the algorithms that take it>; <algorithm> <lacks>". Empty: "the <name>", "does not take it".
  std::string sets, lacks;
  // Format 1's parameters: the Scenario field that holds it. nullptr: Scenario::params.
  int Scenario::*member = nullptr;
  bool own_widget = false;  // the Inputs panel draws it in a group of its own (the tiles)
};

// Every parameter, in the order files, the command line and the Inputs panel list them.
const std::vector<ParamDecl>& params();
// The declaration of `key`, or nullptr.
const ParamDecl* find_param(std::string_view key);

bool takes(Algorithm a, const ParamDecl& p);
// "attn-tiled, attn-tiled-v2": the algorithms that take p.
std::string takers(const ParamDecl& p);

// The value of p in s: its field, its entry in s.params, or its default.
long long param_value(const Scenario& s, const ParamDecl& p);
void set_param(Scenario& s, const ParamDecl& p, long long value);
// For engines: the value of the parameter `key` in s. Throws std::logic_error for a key that is
// not declared (a typo in an engine, not a user's mistake).
long long param(const Scenario& s, std::string_view key);

// Whether `value` is allowed for p; empty when it is, otherwise one line naming p:
// "chunks = 0: must be at least 1".
std::string param_range_error(const ParamDecl& p, long long value);
// resolve()'s checks of the parameters s's algorithm takes (ranges), and of a parameter declared
// since format 1 that it does not take but s sets. Throws InputError naming the parameter.
void check_params(const Scenario& s);
// The values a recording keeps: every parameter declared since format 1 that s's algorithm
// takes (format 1's have fields of their own in the Recording).
ParamValues taken_params(const Scenario& s);

// A parameter added to the list for the lifetime of this object, for tests: what a line in
// params.cpp declares, without a line there. Not thread-safe: make it before anything else runs.
class ScopedParam {
 public:
  explicit ScopedParam(ParamDecl p);
  ~ScopedParam();
  ScopedParam(const ScopedParam&) = delete;
  ScopedParam& operator=(const ScopedParam&) = delete;

 private:
  std::string key_;
};

}  // namespace flashstep
