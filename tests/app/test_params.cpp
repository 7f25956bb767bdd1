// The parameter list (core/params.h): a parameter declared here, in the test alone, goes through
// scenario files, the command line, resolve()'s refusals, the Inputs form, the Recording, run's
// JSON, the comparable runs of the memory panel and the shaders' defines without any of that code
// naming it; and every parameter of the list does the same.
#include "app/cli_args.h"
#include "app/ui/model/app_state.h"
#include "app/ui/model/inputs.h"
#include "app/ui/views/view_logic.h"
#include "core/algorithms.h"
#include "core/engine.h"
#include "core/params.h"
#include "core/report.h"
#include "core/scenario_json.h"
#include "gpu/kernels.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>

using namespace flashstep;

namespace {

bool attention_only(const AlgorithmInfo& a) { return a.family == Family::attention; }
bool tiled_only(const AlgorithmInfo& a) { return a.takes_blocks; }

// A window size that the attention algorithms take (as a sliding-window mask would be).
ParamDecl window_decl() {
  ParamDecl p;
  p.key = "test_window", p.flag = "--test-window", p.name = "test window w", p.label = "window w";
  p.help = "Keys a query sees, in a test";
  p.lo = 1, p.hi = 64, p.def = 8;
  p.takes = attention_only;
  return p;
}

// An on/off choice that the tiled algorithms take (as a deterministic variant would be).
ParamDecl exact_decl() {
  ParamDecl p;
  p.key = "test_exact", p.flag = "--test-exact", p.name = "test exact", p.label = "exact";
  p.help = "An on/off choice, in a test";
  p.type = ParamType::flag, p.lo = 0, p.hi = 1, p.def = 0;
  p.takes = tiled_only;
  return p;
}

std::string refusal(const Scenario& s) {
  try {
    resolve(s);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::string file_refusal(const std::string& text) {
  try {
    scenario_from_json(Json::parse(text));
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// `run ARGS` parsed and made into a scenario, as main_cli does (no files read).
Scenario cli_scenario(const std::string& args) {
  CLI::App app;
  CliOptions o;
  const Commands cmd = define_cli(app, o, "view");
  app.parse("run " + args, false);
  return run_scenario(o.run, *cmd.run, FileAccess::skip);
}

std::string cli_refusal(const std::string& args) {
  try {
    cli_scenario(args);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

std::string cli_help() {
  CLI::App app;
  CliOptions o;
  const Commands cmd = define_cli(app, o, "view");
  return cmd.run->help();
}

}  // namespace

TEST_CASE("params: one declared only in a test is written, read, parsed, checked and kept") {
  const ScopedParam window_scope(window_decl());
  const ScopedParam exact_scope(exact_decl());
  const ParamDecl& window = *find_param("test_window");
  const ParamDecl& exact = *find_param("test_exact");

  Scenario s;
  s.algorithm = Algorithm::attn_tiled;
  s.n = 8, s.d = 2, s.seed = 3;

  // Files: a default is not written (old files stay as they were), a value is, and reads back.
  const Json plain = scenario_to_json(s);
  CHECK_FALSE(plain.contains("test_window"));
  CHECK_FALSE(plain.contains("test_exact"));
  set_param(s, window, 5);
  set_param(s, exact, 1);
  const Json j = scenario_to_json(s);
  CHECK(j["test_window"] == 5);
  CHECK(j["test_exact"] == true);
  const Scenario back = scenario_from_json(j);
  CHECK(param(back, "test_window") == 5);
  CHECK(param(back, "test_exact") == 1);
  CHECK(param(scenario_from_json(plain), "test_window") == 8);
  CHECK(file_refusal(R"({"algorithm": "attn-tiled", "test_window": 65})") ==
        "scenario: \"test_window\" = 65 is out of range 1..64");
  CHECK(file_refusal(R"({"algorithm": "attn-tiled", "test_window": "wide"})") ==
        "scenario: \"test_window\" is \"wide\", not a whole number");
  CHECK(file_refusal(R"({"algorithm": "attn-tiled", "test_exact": 1})") ==
        "scenario: \"test_exact\" is 1, not true or false");

  // resolve(): out of range, or given to an algorithm that does not take it: one line naming it.
  Scenario bad = s;
  set_param(bad, window, 0);
  CHECK(refusal(bad) == "test window w = 0: must be at least 1");
  set_param(bad, window, 65);
  CHECK(refusal(bad) == "test window w = 65: must be at most 64");
  Scenario softmax;
  softmax.algorithm = Algorithm::online;
  set_param(softmax, window, 5);
  CHECK(refusal(softmax) == "test window w = 5: applies to attn-naive, attn-online, attn-tiled, attn-tiled-v2 "
                            "only, not to online");
  set_param(softmax, window, 8);  // its default: nothing given
  CHECK(refusal(softmax).empty());

  // The command line: the flag from the declaration, its help, its value, its refusals.
  const std::string help = cli_help();
  CHECK(help.find("--test-window") != std::string::npos);
  CHECK(help.find("Keys a query sees, in a test") != std::string::npos);
  CHECK(help.find("--test-exact") != std::string::npos);
  const Scenario parsed = cli_scenario("--algo attn-tiled --n 8 --d 2 --test-window 12 --test-exact");
  CHECK(param(parsed, "test_window") == 12);
  CHECK(param(parsed, "test_exact") == 1);
  CHECK(param(cli_scenario("--algo attn-tiled"), "test_exact") == 0);
  CHECK(cli_refusal("--algo online --test-window 12") ==
        "--test-window sets the test window w of attn-naive, attn-online, attn-tiled, attn-tiled-v2; online "
        "does not take it");
  CHECK(cli_refusal("--algo attn-naive --test-exact") ==
        "--test-exact sets the test exact of attn-tiled, attn-tiled-v2, attn-flash-backward; attn-naive does not take it");
  Scenario too_wide = cli_scenario("--algo attn-tiled --test-window 100");
  CHECK(refusal(too_wide) == "test window w = 100: must be at most 64");

  // The Recording keeps it, run's JSON reports it, and a comparable run of another algorithm
  // that takes it has it too.
  const Recording rec = record(resolve(s));
  CHECK(rec.params.at("test_window") == 5);
  CHECK(rec.params.at("test_exact") == 1);
  const Json report = recording_json(rec, false, false);
  CHECK(report["params"]["test_window"] == 5);
  CHECK(report["params"]["test_exact"] == true);
  CHECK(param(ui::comparable(rec, Algorithm::attn_naive).scenario, "test_window") == 5);
  CHECK(param(ui::comparable(rec, Algorithm::attn_naive).scenario, "test_exact") == 0);  // not taken
  Scenario online;
  online.algorithm = Algorithm::online;
  const Recording softmax_rec = record(resolve(online));
  CHECK(softmax_rec.params.empty());
  CHECK_FALSE(recording_json(softmax_rec, false, false).contains("params"));

  // The shaders see it as a define, PARAM_<KEY>, and only where the algorithm takes it.
  const gpu::Defines defines = gpu::common_defines(resolve(s), false);
  CHECK(std::count(defines.begin(), defines.end(), std::make_pair(std::string("PARAM_TEST_WINDOW"), std::string("5"))) == 1);
  CHECK(std::count(defines.begin(), defines.end(), std::make_pair(std::string("PARAM_TEST_EXACT"), std::string("1"))) == 1);
  Scenario naive = s;
  naive.algorithm = Algorithm::attn_naive;
  set_param(naive, exact, 0);
  for (const auto& [name, value] : gpu::common_defines(resolve(naive), false)) CHECK(name != "PARAM_TEST_EXACT");

  // The Inputs form: opened from a scenario, edited, and made into a scenario again; an
  // algorithm that does not take it gets its default.
  ui::Inputs in = ui::inputs_from(s);
  CHECK(ui::form_param(in, window) == 5);
  ui::set_form_param(in, window, 9);
  CHECK(param(ui::scenario_from(in), "test_window") == 9);
  CHECK(param(ui::scenario_from(in), "test_exact") == 1);
  in.algorithm = Algorithm::attn_online;
  CHECK(param(ui::scenario_from(in), "test_window") == 9);
  CHECK(param(ui::scenario_from(in), "test_exact") == 0);
  ui::Inputs edited = ui::inputs_from(s);
  ui::set_form_param(edited, window, 6);
  CHECK(edited != ui::inputs_from(s));  // the undo history sees the change

  // The window: a value out of range is refused with the declaration's name, and the last
  // valid recording stays.
  ui::AppState app;
  app.background_allowed = false;
  REQUIRE(app.open_lesson("attn-tiled"));
  const auto before = app.played.rec;
  ui::set_form_param(app.inputs, window, 0);
  app.inputs_changed();
  CHECK(app.input_error == "test window w = 0: must be at least 1");
  CHECK(app.played.rec == before);
  ui::set_form_param(app.inputs, window, 4);
  app.inputs_changed();
  CHECK(app.input_error.empty());
  CHECK(app.played.rec->params.at("test_window") == 4);
}

TEST_CASE("params: every declared parameter goes through files, the command line and resolve()") {
  for (const ParamDecl& p : params()) {
    CAPTURE(p.key);
    // An algorithm that takes it, and one that does not (if any).
    const AlgorithmInfo* taker = nullptr;
    const AlgorithmInfo* other = nullptr;
    for (const AlgorithmInfo& a : algorithm_table()) {
      if (takes(a.algorithm, p) && !taker) taker = &a;
      if (!takes(a.algorithm, p) && !other) other = &a;
    }
    REQUIRE(taker);
    REQUIRE(p.lo < p.hi);
    const long long value = p.def == p.lo ? p.lo + 1 : p.lo;  // allowed, not the default
    Scenario s;
    s.algorithm = taker->algorithm;
    set_param(s, p, value);
    CHECK(param_value(scenario_from_json(scenario_to_json(s)), p) == value);

    const std::string id(taker->id);
    const std::string arg = p.type == ParamType::flag ? p.flag : p.flag + " " + std::to_string(value);
    CHECK(param_value(cli_scenario("--algo " + id + " " + arg), p) == value);
    if (other)
      CHECK(cli_refusal("--algo " + std::string(other->id) + " " + arg).rfind(p.flag + " sets ", 0) == 0);

    // Below its range (0 means "worked out" where zero_is_auto): one line naming it.
    const long long below = p.zero_is_auto && p.lo - 1 == 0 ? -1 : p.lo - 1;
    set_param(s, p, below);
    const std::string why = refusal(s);
    CHECK(why.rfind(p.name + " = " + std::to_string(below) + ": must be at least ", 0) == 0);
    CHECK(why.find('\n') == std::string::npos);
  }
}

TEST_CASE("params: format 1's refusals keep their words") {
  CHECK(cli_refusal("--algo online --chunks 3") == "--chunks sets the workers of chunked; online has none");
  CHECK(cli_refusal("--algo attn-naive --block-rows 2") ==
        "--block-rows sets the tiles of attn-tiled, attn-tiled-v2, attn-flash-backward; attn-naive has no tiles");
  CHECK(cli_refusal("--algo attn-naive --sram 64") ==
        "--sram sets the tiles of attn-tiled, attn-tiled-v2, attn-flash-backward; attn-naive has no tiles");
  Scenario s;
  s.algorithm = Algorithm::chunked;
  s.chunks = 0;
  CHECK(refusal(s) == "chunks = 0: must be at least 1");
  s.algorithm = Algorithm::attn_tiled;
  s.block_cols = -2;
  CHECK(refusal(s) == "block cols Bc = -2: must be at least 1");
  s.block_cols = 0;
  s.sram = -1;
  CHECK(refusal(s) == "sram M = -1: must be at least 1");
  // Format 1's keys are written whatever their value, as they always were.
  const Json j = scenario_to_json(Scenario{});
  for (const char* key : {"block_rows", "block_cols", "sram", "chunks"}) CHECK(j.contains(key));
}
