#!/usr/bin/env bash
# FlashStep's one entry point for people and CI.
#   ./build.sh app [ARGS...]  install what is missing, build (Release), start the app
#   ./build.sh test           install what is missing, build, run every test: the Release suite,
#                             then, built with clang's AddressSanitizer + UBSan (at -O1 with line
#                             tables: scripts/sanitizer-build.sh), the fuzzers (all at once, each
#                             FUZZ_SECONDS of one core, default 60: scripts/fuzz.sh) and the
#                             whole suite again, its long sweeps sampled
#                             (FLASHSTEP_TEST_SAMPLE=1: tests/sample.h)
#   ./build.sh quick-test     the Release suite only
#   ./build.sh build          install what is missing and build, nothing else
# Environment: BUILD_DIR (default build), ASAN_BUILD_DIR (default build-asan), JOBS (default:
# number of cores).
set -euo pipefail
cd "$(dirname "$0")"

cmd=${1:-app}
shift || true
build_dir=${BUILD_DIR:-build}
jobs=${JOBS:-$(nproc)}

run_display() {
  # Runs "$@" with a display: the user's own, or a virtual one when there is none.
  if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then
    "$@"
  else
    xvfb-run -a -s "-screen 0 1920x1080x24" "$@"
  fi
}

build() {
  scripts/setup.sh
  cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release
  cmake --build "$build_dir" -j "$jobs"
}

case "$cmd" in
  app)
    build
    exec "$build_dir/flashstep" "$@"
    ;;
  test)
    build
    echo "== Release suite"
    run_display ctest --test-dir "$build_dir" --output-on-failure -j "$jobs" "$@"
    echo "== The sanitizer build (clang, AddressSanitizer + UndefinedBehaviorSanitizer, fuzzers)"
    asan_dir=${ASAN_BUILD_DIR:-build-asan}
    ASAN_BUILD_DIR=$asan_dir JOBS=$jobs scripts/sanitizer-build.sh
    echo "== Fuzzers"
    ASAN_BUILD_DIR=$asan_dir scripts/fuzz.sh "${FUZZ_SECONDS:-60}"
    echo "== AddressSanitizer + UndefinedBehaviorSanitizer suite (the long sweeps sampled: tests/sample.h)"
    # The GL driver stack keeps some allocations until exit: tests/lsan.supp names it.
    # The long sweeps run whole in the Release suite above; here a sample meets each case once.
    FLASHSTEP_TEST_SAMPLE=1 ASAN_OPTIONS=detect_leaks=1 \
      LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp:print_suppressions=0 \
      UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
      run_display ctest --test-dir "$asan_dir" --output-on-failure -j "$jobs" "$@"
    ;;
  quick-test)
    build
    run_display ctest --test-dir "$build_dir" --output-on-failure -j "$jobs" "$@"
    ;;
  build)
    build
    ;;
  *)
    echo "usage: ./build.sh app|test|quick-test|build" >&2
    exit 2
    ;;
esac
