// One hidden OpenGL context and GPU engine per test process, created on first use: EGL's, which
// needs no display, where it works, else a hidden GLFW window (Xvfb: ./build.sh test). Without
// any context they fail with the reason, they do not skip.
#pragma once

#include "core/engine.h"
#include "gpu/gpu_engine.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace gpu_test {

inline flashstep::gpu::Engine& engine() {
  static std::string error;
  static std::unique_ptr<flashstep::gpu::HiddenContext> context =
      flashstep::gpu::HiddenContext::create(error);
  if (!context) FAIL("no OpenGL 4.3 context for the GPU tests: " << error);
  static flashstep::gpu::Engine gpu;
  return gpu;
}

// The scenario recorded on the GPU (`keep_steps`: with its steps, or the output alone).
inline flashstep::Recording on_gpu(const flashstep::Scenario& s, bool keep_steps = true) {
  flashstep::RecordOptions opt;
  opt.keep_steps = keep_steps;
  return engine().record(flashstep::resolve(s), opt);
}

// rows x n standard-normal scores times `spread`, with a few large outliers (+-30) so the
// softmax is far from uniform and the running max moves late in the row.
inline std::vector<std::vector<double>> scores_with_outliers(int rows, int n, std::uint64_t seed,
                                                             double spread = 3.0) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_int_distribution<int> where(0, n - 1);
  std::vector<std::vector<double>> x(static_cast<std::size_t>(rows), std::vector<double>(static_cast<std::size_t>(n)));
  for (auto& row : x) {
    for (double& v : row) v = spread * normal(gen);
    for (int k = 0; k < 3; ++k) row[static_cast<std::size_t>(where(gen))] = k == 1 ? -30.0 : 30.0 + k;
  }
  return x;
}

}  // namespace gpu_test
