// libFuzzer target: the scenario file loader, then resolve() on what it accepts, unless its
// random input is over the cap of tests/fuzz/fuzz_limits.h.
#include "core/engine.h"
#include "core/scenario_json.h"
#include "tests/fuzz/fuzz_limits.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const flashstep::ScenarioDocument doc = flashstep::parse_document(text);
    // Valid sizes up to kMaxElements take seconds to generate under the sanitizers.
    if (flashstep::fuzz::too_costly(doc.scenario)) return 0;
    const flashstep::Resolved r = flashstep::resolve(doc.scenario);
    // Record only what is small: the fuzzer is after the loader and the checks, not big runs.
    if (flashstep::estimate_recording_bytes(r) < (1 << 20)) flashstep::record(r);
  } catch (const flashstep::InputError&) {
  }
  return 0;
}
