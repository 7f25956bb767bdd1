// The GPU table (gpu/kernels.h) against core's algorithm table: no GL context needed.
#include "core/algorithms.h"
#include "gpu/gpu_engine.h"
#include "gpu/kernels.h"

#include <doctest/doctest.h>

#include <string>

using namespace flashstep;

TEST_CASE("an algorithm has a GPU row exactly when core's row says it has a GPU engine") {
  for (Algorithm a : kAllAlgorithms) {
    CAPTURE(std::string(algorithm_id(a)));
    CHECK(info(a).gpu == gpu::has_gpu_engine(a));
    const gpu::GpuRow* row = gpu::gpu_row(a);
    if (!row) continue;
    // Every row answers every question the engine asks.
    CHECK(row->algorithm == a);
    CHECK(static_cast<bool>(row->record));
    CHECK(static_cast<bool>(row->largest_buffer));
    CHECK(static_cast<bool>(row->least_loop_iterations));
    CHECK(static_cast<bool>(row->refuses));
    CHECK(std::string(row->loop_hint).find("use ") == 0);
  }
}

TEST_CASE("an algorithm without a GPU engine is refused in one line that names it") {
  for (const AlgorithmInfo& row : algorithm_table()) {
    CAPTURE(std::string(row.id));
    AlgorithmInfo cpu_only = row;
    cpu_only.gpu = false;
    const std::string why = no_gpu_engine(cpu_only);
    CHECK(why == std::string(row.id) + " has no GPU engine: it runs on the CPU only (--backend cpu)");
    CHECK(why.find('\n') == std::string::npos);
    if (row.gpu) CHECK(no_gpu_engine(row).empty());
  }
}
