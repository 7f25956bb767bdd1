// For the programs that run test_fast's and test_nonfinite's checks on the fast kernels compiled
// for one instruction set (tests/CMakeLists.txt: test_fast_sse2, test_fast_avx2). Before any
// test runs, a CPU without that instruction set leaves with 77, which ctest reports as skipped;
// and a test checks that the kernels linked are that instruction set's, not core's own.
#include "core/fast.h"

#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>

namespace {

bool cpu_has_it() {
  __builtin_cpu_init();  // the CPU's features are read by a constructor that may not have run yet
#if FLASHSTEP_ISA_FLOATS == 8
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return true;  // SSE2 is part of x86-64
#endif
}

const bool kRunnable = [] {
  if (!cpu_has_it()) {
    std::printf("skipped: this CPU lacks %s, which these fast kernels were compiled for\n", FLASHSTEP_ISA_NAME);
    std::exit(77);
  }
  return true;
}();

}  // namespace

TEST_CASE("the fast kernels under test are the " FLASHSTEP_ISA_NAME " ones") {
  CHECK(kRunnable);
  CHECK(flashstep::fast::vector_floats() == FLASHSTEP_ISA_FLOATS);
}
