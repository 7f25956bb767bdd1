// libFuzzer target: the vector input parser, then the engines on what it accepts (small).
#include "core/engine.h"
#include "core/scenario.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    flashstep::Scenario s;
    s.x = flashstep::parse_rows(text);
    if (s.x.size() * s.x[0].size() > 256) return 0;
    for (flashstep::Algorithm a : {flashstep::Algorithm::naive, flashstep::Algorithm::online}) {
      s.algorithm = a;
      flashstep::record(s);
    }
  } catch (const flashstep::InputError&) {
  }
  return 0;
}
