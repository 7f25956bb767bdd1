// libFuzzer target: the command line. The input is split on '\0' and '\n' into arguments,
// parsed with the same CLI11 definitions as `flashstep` (app/cli_args.h), and for `run` turned
// into a checked Scenario and run settings and resolved. Nothing is recorded, drawn or written,
// and the files --scenario and --qkv name are not read. A usage error, a bad value or a parse
// error is an answer; anything else (a crash, another exception, undefined behaviour) a finding.
// A run whose random input is over the cap of tests/fuzz/fuzz_limits.h stops before resolve().
#include "app/cli_args.h"
#include "core/engine.h"
#include "tests/fuzz/fuzz_limits.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> args{"flashstep"};
  std::string arg;
  for (std::size_t i = 0; i < size; ++i) {
    const char c = static_cast<char>(data[i]);
    if (c == '\0' || c == '\n') {
      args.push_back(arg);
      arg.clear();
    } else {
      arg += c;
    }
  }
  if (!arg.empty()) args.push_back(arg);
  if (args.size() > 64) return 0;
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());

  CLI::App app{"flashstep"};
  app.set_version_flag("--version", "flashstep");
  flashstep::CliOptions o;
  const flashstep::Commands cmd = flashstep::define_cli(app, o, "view, memory");
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
    flashstep::finish_gui_options(app, o.gui);
    if (!cmd.run->parsed()) return 0;
    const flashstep::Scenario s = flashstep::run_scenario(o.run, *cmd.run, flashstep::FileAccess::skip);
    flashstep::run_settings(o.run);
    // Sizes up to kMaxElements are valid but take seconds and gigabytes to generate: the
    // fuzzer is after the checks, not big inputs.
    if (flashstep::fuzz::too_costly(s)) return 0;
    const flashstep::Resolved r = flashstep::resolve(s);
    (void)flashstep::estimate_recording_bytes(r);
  } catch (const CLI::ParseError&) {
  } catch (const flashstep::UsageError&) {
  } catch (const flashstep::InputError&) {
  }
  return 0;
}
