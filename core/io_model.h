// The IO model of core/io_counters.h as formulas: what a run of `r` counts, computed without
// running it. The engines count as they go; tests/core/test_io_model.cpp checks that both
// agree for every algorithm, shape and mask, and the fast kernels (which count nothing)
// report these totals.
#pragma once

#include "core/io_counters.h"
#include "core/scenario.h"

namespace flashstep {

IoCounters expected_io(const Resolved& r);

}  // namespace flashstep
