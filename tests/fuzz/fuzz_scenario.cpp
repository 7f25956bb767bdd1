// libFuzzer target: the scenario file loader, then resolve() on what it accepts.
#include "core/engine.h"
#include "core/scenario_json.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const flashstep::ScenarioDocument doc = flashstep::parse_document(text);
    const flashstep::Resolved r = flashstep::resolve(doc.scenario);
    // Record only what is small: the fuzzer is after the loader and the checks, not big runs.
    if (flashstep::estimate_recording_bytes(r) < (1 << 20)) flashstep::record(r);
  } catch (const flashstep::InputError&) {
  }
  return 0;
}
