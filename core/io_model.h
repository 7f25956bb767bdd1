// The IO model of core/io_counters.h as formulas: what a run of `r` counts, computed without
// running it. The engines count as they go; tests/core/test_io_model.cpp checks that both
// agree for every algorithm, shape and mask, and the fast kernels (which count nothing)
// report these totals.
#pragma once

#include "core/io_counters.h"
#include "core/scenario.h"

namespace flashstep {

// The counts of a run of r: its algorithm's formula (AlgorithmInfo::io).
IoCounters expected_io(const Resolved& r);

// The formulas, one per algorithm; the algorithm table (core/algorithms.cpp) points at them.
IoCounters io_naive(const Resolved& r);
IoCounters io_safe(const Resolved& r);
IoCounters io_online(const Resolved& r);
IoCounters io_logsumexp(const Resolved& r);
IoCounters io_chunked(const Resolved& r);
IoCounters io_attn_naive(const Resolved& r);
IoCounters io_attn_online(const Resolved& r);
IoCounters io_attn_tiled(const Resolved& r);
IoCounters io_attn_tiled_v2(const Resolved& r);
IoCounters io_attn_backward(const Resolved& r);
IoCounters io_attn_flash_backward(const Resolved& r);

}  // namespace flashstep
