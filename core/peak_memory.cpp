#include "core/peak_memory.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <unistd.h>

namespace flashstep {

static std::int64_t status_kib(const char* key) {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return 0;
  char line[256];
  std::int64_t kib = 0;
  const std::size_t len = std::strlen(key);
  while (std::fgets(line, sizeof line, f))
    if (std::strncmp(line, key, len) == 0) {
      kib = std::strtoll(line + len, nullptr, 10);
      break;
    }
  std::fclose(f);
  return kib * 1024;
}

std::int64_t resident_bytes() { return status_kib("VmRSS:"); }
std::int64_t peak_resident_bytes() { return status_kib("VmHWM:"); }

bool reset_peak_resident() {
  std::FILE* f = std::fopen("/proc/self/clear_refs", "w");
  if (!f) return false;
  const bool ok = std::fputs("5", f) >= 0;
  return std::fclose(f) == 0 && ok;
}

std::int64_t physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<std::int64_t>(pages) * page : 0;
}

PeakProbe::PeakProbe() : base_(0), reset_ok_(reset_peak_resident()) { base_ = resident_bytes(); }

std::int64_t PeakProbe::peak_extra() const { return std::max<std::int64_t>(0, peak_resident_bytes() - base_); }

}  // namespace flashstep
