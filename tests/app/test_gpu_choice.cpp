// The Inputs panel's GPU choice, from the model alone (no window): open where the window has a
// GPU backend and the algorithm a GPU engine, disabled with the reason otherwise.
#include "app/ui/model/record_job.h"
#include "core/algorithms.h"

#include <doctest/doctest.h>

#include <string>

using namespace flashstep;
using namespace flashstep::ui;

namespace {

// A backend that records on the CPU, standing in for the window's GPU.
GpuBackend stand_in() {
  return GpuBackend([](const Resolved& r, const RecordOptions& o) { return record(r, o); },
                    [](const Resolved&) { return std::string(); }, "Stand-in GPU");
}

}  // namespace

TEST_CASE("a CPU-only algorithm shows the GPU choice disabled, and says why") {
  const GpuBackend gpu = stand_in();
  for (const AlgorithmInfo& row : algorithm_table()) {
    CAPTURE(std::string(row.id));
    AlgorithmInfo cpu_only = row;
    cpu_only.gpu = false;
    const GpuChoice off = gpu_choice(cpu_only, gpu);
    CHECK_FALSE(off.enabled);
    CHECK(off.reason == std::string(row.id) + " has no GPU engine: it runs on the CPU only (--backend cpu).");
    if (row.gpu) {
      const GpuChoice on = gpu_choice(row, gpu);
      CHECK(on.enabled);
      CHECK(on.reason == "OpenGL compute shaders on Stand-in GPU");
    }
    // Without a GPU backend in the window, no algorithm has the choice.
    const GpuChoice none = gpu_choice(row, GpuBackend());
    CHECK_FALSE(none.enabled);
    CHECK(none.reason.find("no OpenGL 4.3 compute context") != std::string::npos);
  }
}

TEST_CASE("inputs asking for the GPU run there only where the choice is open") {
  Inputs in;
  in.algorithm = Algorithm::attn_tiled_v2;
  in.backend = Backend::gpu;
  set_gpu_backend(GpuBackend());
  CHECK_FALSE(runs_on_gpu(in));
  set_gpu_backend(stand_in());
  CHECK(runs_on_gpu(in) == info(in.algorithm).gpu);
  in.backend = Backend::cpu;
  CHECK_FALSE(runs_on_gpu(in));
  set_gpu_backend(GpuBackend());
}
