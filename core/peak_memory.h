// Peak resident memory of this process, for "how much extra memory did that need" figures.
// Linux only: reads /proc/self/status and resets the high-water mark via /proc/self/clear_refs.
#pragma once

#include <cstdint>

namespace flashstep {

std::int64_t resident_bytes();       // VmRSS now
std::int64_t peak_resident_bytes();  // VmHWM since the last reset
bool reset_peak_resident();          // false where the kernel refuses
std::int64_t physical_memory_bytes();  // RAM of this machine (sysconf); 0 when unknown

// Measures the peak extra resident memory of what runs between construction and peak_extra().
class PeakProbe {
 public:
  PeakProbe();
  std::int64_t peak_extra() const;  // bytes above the resident size at construction
  bool reliable() const { return reset_ok_; }

 private:
  std::int64_t base_;
  bool reset_ok_;
};

}  // namespace flashstep
