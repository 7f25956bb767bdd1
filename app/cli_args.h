// The command line's definitions without the work: every option of `flashstep`, `run`,
// `lessons`, `shot` and `gif` on one CLI::App, and what `run` makes of its options (a checked
// Scenario and run settings) without running an engine, opening a window or writing a file.
// main_cli (app/cli.cpp) and the CLI fuzzer (tests/fuzz/fuzz_cli.cpp) use the same definitions.
// No GL, GLFW or ImGui here: the fuzzer links this with flashstep_core and CLI11 only.
#pragma once

#include "app/export/commands.h"
#include "app/gui.h"
#include "core/engine.h"
#include "core/scenario.h"

#include <CLI/CLI.hpp>

#include <map>
#include <stdexcept>
#include <string>

namespace flashstep {

// A bad argument or file: reported as one line, exit status 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// `flashstep run`'s options as given (strings where a value is checked later).
struct RunOptions {
  std::string algo, scenario, input, qkv, d_o, precision = "fp32", scale = "none", backend = "cpu",
                                steps = "all", output = "all", json = "-";
  int n = 8, d = 4, rows = 1, repeat = 1;
  // Every parameter of core/params.h by key, each bound to its flag (a flag: 1 when given).
  std::map<std::string, long long, std::less<>> params;
  int heads = 1;  // attention with --steps none: H independent heads (core/heads.h)
  double memory_budget_mib = kDefaultMemoryBudget / 1048576.0;
  long long seed = 1;
  bool causal = false;
  std::string compare;  // "cpu,gpu": run on both backends and print how far apart they are
  std::string gl = "auto";  // how the GPU backend's context is made: auto, egl or glfw
};

// Every command's options, bound to the CLI::App by define_cli().
struct CliOptions {
  GuiOptions gui;  // no command: the window
  RunOptions run;
  ShotOptions shot;
  GifOptions gif;
};

// The subcommands define_cli() added; after parsing, ->parsed() says which one was given.
struct Commands {
  CLI::App* run = nullptr;
  CLI::App* lessons = nullptr;
  CLI::App* shot = nullptr;
  CLI::App* gif = nullptr;
};

// Adds every option and subcommand to `app`, writing into `o` when parsed. `panels` lists the
// names `--panel` takes, for its help text. The --version flag is the caller's (main_cli's
// asks the GPU for its driver).
Commands define_cli(CLI::App& app, CliOptions& o, const std::string& panels);

// What a parse leaves for the window: --width/--height given on the command line win over the
// saved window size.
void finish_gui_options(const CLI::App& app, GuiOptions& gui);

// Whether `run` reads the files its options name (--scenario, --qkv). The fuzzer skips them:
// a skipped --scenario stands for a file with default fields, a skipped --qkv for none.
enum class FileAccess { read, skip };

// The scenario of a run: the --scenario file if there is one, then every option given on the
// command line on top (`cmd` is the run subcommand, which knows what was given). Throws
// UsageError (a bad option or file) or InputError (a bad value the parsers found).
Scenario run_scenario(const RunOptions& o, const CLI::App& cmd, FileAccess files = FileAccess::read);

// The run's settings beyond the scenario, checked.
struct RunSettings {
  bool gpu = false;                    // --backend gpu
  bool keep_steps = true;              // --steps all
  bool keep_output = true;             // --output all
  long long memory_budget = 0;         // bytes
  std::string compare_a, compare_b;    // --compare a,b; empty when not comparing
};
RunSettings run_settings(const RunOptions& o);  // throws UsageError

// "none", "sqrt" (or "1/sqrt(d)") or a finite number; throws UsageError otherwise.
ScaleMode parse_scale(const std::string& text, double& value);

}  // namespace flashstep
