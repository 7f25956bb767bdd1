// This machine's memory, for the checks that refuse a run before it allocates more than there
// is. (What a kernel itself uses is counted where it allocates: core/workspace.h.)
#pragma once

#include <cstdint>

namespace flashstep {

std::int64_t physical_memory_bytes();  // RAM of this machine (sysconf); 0 when unknown

}  // namespace flashstep
