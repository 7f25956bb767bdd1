// How the fast kernels are run on this machine (core/fast.h): the tile sizes for its caches
// (kernel_blocks) and a warm-up of every core before a timed run.
#include "core/fast.h"

#include <algorithm>
#include <chrono>
#include <cstdint>

#include <unistd.h>

namespace flashstep::fast {

void warm_up(double seconds) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
#pragma omp parallel
  {
    volatile float sink = 1.0f;
    while (std::chrono::steady_clock::now() < end)
      for (int k = 0; k < 1000; ++k) sink = sink * 0.999f + 0.001f;
  }
}

KernelBlocks kernel_blocks(int N, int d, const TileShape& tile) {
  KernelBlocks b;
  static const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);  // asked once: the Measure lab asks every frame
  b.l2_bytes = l2 > 0 ? l2 : 512 * 1024;
  auto bytes = [d, &tile](std::int64_t Br, std::int64_t Bc) {
    return static_cast<std::int64_t>(sizeof(float)) *
           (tile.query_tiles * Br * d + tile.key_tiles * Bc * d + tile.score_tiles * Br * Bc);
  };
  std::int64_t Br = tile.kernel_rows, Bc = 128;
  while (bytes(Br, Bc) > b.l2_bytes / 2 && (Br > 8 || Bc > 8)) (Bc >= Br ? Bc : Br) /= 2;
  while (Br > 16 && (N + Br - 1) / Br < threads()) Br /= 2;
  b.Br = static_cast<int>(std::min<std::int64_t>(Br, N));
  b.Bc = static_cast<int>(std::min<std::int64_t>(Bc, N));
  b.tile_bytes = bytes(b.Br, b.Bc);
  return b;
}

}  // namespace flashstep::fast
