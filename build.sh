#!/usr/bin/env bash
# FlashStep's one entry point for people and CI.
#   ./build.sh app [ARGS...]  install what is missing, build (Release), start the app
#   ./build.sh test           install what is missing, build (Release), run every test
#   ./build.sh build          install what is missing and build, nothing else
# Environment: BUILD_DIR (default build), JOBS (default: number of cores).
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
    run_display ctest --test-dir "$build_dir" --output-on-failure -j "$jobs" "$@"
    ;;
  build)
    build
    ;;
  *)
    echo "usage: ./build.sh app|test|build" >&2
    exit 2
    ;;
esac
