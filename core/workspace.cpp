#include "core/workspace.h"

#include <atomic>

namespace flashstep {
namespace {
std::atomic<std::int64_t> g_current{0}, g_peak{0};
}  // namespace

Workspace::Hold::Hold(std::int64_t bytes) : bytes_(bytes) {
  const std::int64_t now = g_current.fetch_add(bytes_) + bytes_;
  std::int64_t seen = g_peak.load();
  while (now > seen && !g_peak.compare_exchange_weak(seen, now)) {
  }
}

Workspace::Hold::~Hold() { g_current.fetch_sub(bytes_); }

std::int64_t Workspace::peak() { return g_peak.load(); }
std::int64_t Workspace::current() { return g_current.load(); }
void Workspace::reset_peak() { g_peak.store(g_current.load()); }

}  // namespace flashstep
