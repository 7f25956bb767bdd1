// libFuzzer target: the command line. The input is split on '\0' and '\n' into arguments,
// parsed with the same CLI11 definitions as `flashstep` (app/cli_args.h), and for `run` turned
// into a checked Scenario and run settings and resolved. Nothing is recorded, drawn or written,
// and the files --scenario and --qkv name are not read. A usage error, a bad value or a parse
// error is an answer; anything else (a crash, another exception, undefined behaviour) a finding.
#include "app/cli_args.h"
#include "core/engine.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace {

// Elements of the random input resolve() would generate; 0 when the input is given, a size is
// not positive or the shape is over kMaxElements (resolve() refuses those before generating).
long long random_elements(const flashstep::Scenario& s) {
  if (s.n <= 0 || s.d <= 0 || s.rows <= 0) return 0;
  if (flashstep::is_attention(s.algorithm)) {
    if (!s.q.empty() || static_cast<long long>(s.n) * s.d > flashstep::kMaxElements) return 0;
    return 3ll * s.n * s.d;  // Q, K and V
  }
  if (!s.x.empty() || static_cast<long long>(s.rows) * s.n > flashstep::kMaxElements) return 0;
  return static_cast<long long>(s.rows) * s.n;
}

}  // namespace

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
    if (random_elements(s) > (1 << 16)) return 0;
    const flashstep::Resolved r = flashstep::resolve(s);
    (void)flashstep::estimate_recording_bytes(r);
  } catch (const CLI::ParseError&) {
  } catch (const flashstep::UsageError&) {
  } catch (const flashstep::InputError&) {
  }
  return 0;
}
