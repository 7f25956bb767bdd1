// shaders/mask.glsl against core's Mask (core/mask.h): for every mask, the same key runs, cells
// and tile kinds on the GPU as on the CPU, over several N, Br and Bc, so a mask written once for
// each cannot say two things.
#include "gpu_context.h"

#include "core/mask.h"
#include "gpu/program.h"

#include <string>
#include <vector>

TEST_CASE("mask.glsl classifies every tile, cell and key run as core's Mask does") {
  using namespace flashstep;
  using namespace flashstep::gpu;
  gpu_test::engine();  // the context
  const std::string body = R"(
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer In { int q[]; };
layout(std430, binding = 1) writeonly buffer Out { int o[]; };
uniform int count;
uniform int N;
void main() {
  int t = int(gl_GlobalInvocationID.x);
  if (t >= count) return;
  int r0 = q[4 * t], nr = q[4 * t + 1], c0 = q[4 * t + 2], nc = q[4 * t + 3];
  o[4 * t] = tile_kind(r0, nr, c0, nc);
  o[4 * t + 1] = visible(r0, c0) ? 1 : 0;
  o[4 * t + 2] = key_begin(r0);
  o[4 * t + 3] = key_end(r0, N);
}
)";
  int compared = 0;
  for (Mask::Kind kind : {Mask::Kind::none, Mask::Kind::causal})
    for (int N : {1, 5, 16, 37}) {
      CAPTURE(static_cast<int>(kind));
      CAPTURE(N);
      const Mask mask(kind, N, N);
      // Every tile of several block shapes, the 1 x 1 ones being every cell.
      std::vector<int> in;
      for (int Br : {1, 3, 8})
        for (int Bc : {1, 4, 16})
          for (int r0 = 0; r0 < N; r0 += Br)
            for (int c0 = 0; c0 < N; c0 += Bc) in.insert(in.end(), {r0, std::min(Br, N - r0), c0, std::min(Bc, N - c0)});
      const int n = static_cast<int>(in.size() / 4);
      const std::string source = "#version 430\n#define MASK " + std::to_string(static_cast<int>(kind)) + "\n" +
                                 std::string(shader_source("common.glsl")) + "\n" +
                                 std::string(shader_source("mask.glsl")) + body;
      Program p = compile_compute("mask test", source);
      Buffer bin(in), bout(in.size() * sizeof(int));
      p.use();
      p.set("count", n);
      p.set("N", N);
      bin.bind(0);
      bout.bind(1);
      dispatch(groups_for(n, 64));
      const std::vector<int> out = bout.read<int>(in.size());
      int wrong = 0;
      for (int t = 0; t < n; ++t) {
        const int r0 = in[4 * t], nr = in[4 * t + 1], c0 = in[4 * t + 2], nc = in[4 * t + 3];
        const Mask::KeyRange keys = mask.keys(r0);
        // TILE_EMPTY, TILE_PARTIAL, TILE_FULL are 0, 1, 2 as TileKind's empty, partial, full.
        const bool same = out[4 * t] == static_cast<int>(mask.tile(r0, nr, c0, nc)) &&
                          out[4 * t + 1] == (mask.visible(r0, c0) ? 1 : 0) && out[4 * t + 2] == keys.begin &&
                          out[4 * t + 3] == keys.end;
        if (!same && ++wrong <= 5)
          MESSAGE("tile rows " << r0 << "+" << nr << ", keys " << c0 << "+" << nc << ": GPU " << out[4 * t] << " "
                               << out[4 * t + 1] << " [" << out[4 * t + 2] << ", " << out[4 * t + 3] << ")");
        ++compared;
      }
      CHECK(wrong == 0);
    }
  CHECK(compared > 1000);
}
