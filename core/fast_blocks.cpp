// How the fast kernels are run on this machine (core/fast.h): the tile sizes for its caches
// (kernel_blocks), how far ahead long rows are read for its CPU (read_ahead_floats) and a warm-up
// of every core before a timed run.
#include "core/fast.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <stdexcept>

#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

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

std::int64_t read_ahead_floats_for(std::string_view vendor) {
  return vendor == "GenuineIntel" ? kReadAheadIntel : kReadAheadOther;
}

std::string cpu_vendor() {
#if defined(__x86_64__) || defined(__i386__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(0, &eax, &ebx, &ecx, &edx) == 0) return {};
  char vendor[12];  // leaf 0: the vendor's 12 characters in EBX, EDX, ECX
  std::memcpy(vendor, &ebx, 4);
  std::memcpy(vendor + 4, &edx, 4);
  std::memcpy(vendor + 8, &ecx, 4);
  return std::string(vendor, 12);
#else
  return {};
#endif
}

namespace {
// The distance in use: the CPU's, asked once, until a benchmark sets another.
std::atomic<std::int64_t>& read_ahead_setting() {
  static std::atomic<std::int64_t> floats{read_ahead_floats_for(cpu_vendor())};
  return floats;
}
}  // namespace

std::int64_t read_ahead_floats() { return read_ahead_setting().load(std::memory_order_relaxed); }

void set_read_ahead_floats(std::int64_t floats) {
  if (floats < 16 || floats > 8192 || floats % 16 != 0)
    throw std::invalid_argument("read-ahead distance " + std::to_string(floats) +
                                " floats: give a multiple of 16 (a cache line) from 16 to 8192");
  read_ahead_setting().store(floats, std::memory_order_relaxed);
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
