// fp16 rounding in the shaders (common.glsl's round_fp16, which every fp16 operation goes
// through) against Eigen::half, the CPU engine's fp16, bit for bit: normal numbers with ties to
// even, subnormals, the overflow to inf from 65520, signed zeros, inf and NaN. The driver's own
// packHalf2x16 is not trusted: the GLSL spec leaves its rounding and overflow open.
#include "gpu_context.h"

#include "gpu/program.h"

#include <Eigen/Core>

#include <cstdio>
#include <cstring>
#include <limits>

namespace {

float from_bits(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
std::uint32_t bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

}  // namespace

TEST_CASE("fp16 rounding in the shaders equals Eigen::half bit for bit, ties, subnormals and overflow included") {
  using namespace flashstep::gpu;
  gpu_test::engine();  // the context
  // Every exponent from below fp16's smallest subnormal to above its largest finite value, with
  // the mantissas where rounding decides (just below, at and above each halfway point of the
  // 13 bits fp16 drops, and of the subnormals' wider drops) and random ones; both signs.
  std::vector<float> in;
  std::mt19937 rng(7);
  for (std::uint32_t e = 95; e <= 145; ++e)
    for (std::uint32_t sign : {0u, 0x80000000u}) {
      std::vector<std::uint32_t> mant = {0, 1, 0x7FFFFF, 0x7FFFFE};
      for (std::uint32_t shift = 13; shift <= 24; ++shift) {
        const std::uint32_t half = 1u << (shift - 1);
        for (std::uint32_t k : {0u, 1u, 2u, 3u, 0x155u})
          for (std::int32_t d : {-1, 0, 1}) mant.push_back(((k << shift) + half + static_cast<std::uint32_t>(d)) & 0x7FFFFF);
      }
      for (int i = 0; i < 64; ++i) mant.push_back(rng() & 0x7FFFFF);
      for (std::uint32_t m : mant) in.push_back(from_bits(sign | (e << 23) | m));
    }
  for (float f : {0.0f, -0.0f, 65504.0f, 65519.996f, 65520.0f, -65520.0f, 1e-30f, -1e-30f,
                  std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                  std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::denorm_min()})
    in.push_back(f);

  const std::string source = std::string("#version 430\n#define PREC PREC_FP16\n") +
                             std::string(shader_source("common.glsl")) + R"(
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer In { float x[]; };
layout(std430, binding = 1) writeonly buffer Out { float y[]; };
uniform int n;
void main() {
  int i = int(gl_GlobalInvocationID.x);
  if (i < n) y[i] = R(x[i]);
}
)";
  Program p = compile_compute("round_fp16 test", source);
  Buffer bin(in), bout(in.size() * sizeof(float));
  p.use();
  p.set("n", static_cast<int>(in.size()));
  bin.bind(0);
  bout.bind(1);
  glDispatchCompute(static_cast<GLuint>((in.size() + 63) / 64), 1, 1);
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT | GL_SHADER_STORAGE_BARRIER_BIT);
  const std::vector<float> out = bout.read<float>(in.size());
  int wrong = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const float want = static_cast<float>(Eigen::half(in[i]));
    const bool same = std::isnan(want) ? std::isnan(out[i]) : bits(out[i]) == bits(want);
    if (!same && ++wrong <= 10) {
      char hex[16];
      std::snprintf(hex, sizeof hex, "%08x", bits(in[i]));
      MESSAGE("x = " << in[i] << " (bits " << hex << "): shader " << out[i] << ", Eigen::half " << want);
    }
  }
  INFO(in.size() << " values");
  CHECK(wrong == 0);
}
