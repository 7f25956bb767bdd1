#!/usr/bin/env bash
# scripts/gpu-bundle.sh end to end, as on a bare GPU server: bundles BUILD_DIR into a temporary
# folder, then runs the bundle with an empty environment and no display (EGL only; here Mesa's
# llvmpipe is the host's driver) and checks that its own libraries are the ones loaded.
#   tests/gpu_bundle_test.sh BUILD_DIR
set -euo pipefail

build=${1:?usage: tests/gpu_bundle_test.sh BUILD_DIR}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/flashstep-gpu-bundle.XXXXXX")
bundle=$tmp/bundle
# Kept when the test fails, to look at; removed when it passes.
cleanup() {
  local rc=$?
  if [ "$rc" -eq 0 ] || [ ! -e "$bundle" ]; then
    rm -rf "$tmp"
  else
    echo "gpu_bundle_test: the bundle is kept in $bundle" >&2
  fi
}
trap cleanup EXIT
fail() {
  echo "gpu_bundle_test: $*" >&2
  exit 1
}

"$root/scripts/gpu-bundle.sh" "$build" "$bundle"
[ -x "$bundle/run.sh" ] || fail "the bundle has no run.sh"
[ -f "$bundle/README.txt" ] || fail "the bundle has no README.txt"

# The program alone, with nothing from this shell but the bundle's library path.
version=$(env -i PATH=/usr/bin:/bin LD_LIBRARY_PATH="$bundle/lib" "$bundle/bin/flashstep" --version)
echo "$version"
case "$version" in
  *"context: egl-device"* | *"context: egl-surfaceless"*) ;;
  *) fail "flashstep --version from the bundle did not get an EGL context: $version" ;;
esac

# Linked libraries: each resolves in the bundle, except glibc, libstdc++ and libgcc_s (the
# host's by design). Checked for the programs and for the bundled libraries themselves.
for f in "$bundle"/bin/* "$bundle"/lib/*; do
  while read -r name _ path _; do
    case "$name" in
      libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | librt.so.* | libstdc++.so.6 | libgcc_s.so.1) ;;
      *) case "$path" in
           "$bundle/lib/"*) ;;
           not) fail "$(basename "$f") needs $name, which neither the bundle nor the host has" ;;
           *) fail "$(basename "$f") loads $name from $path, not from the bundle" ;;
         esac ;;
    esac
  done < <(env -i LD_LIBRARY_PATH="$bundle/lib" ldd "$f" | grep ' => ')
done
ldd_flashstep=$(env -i LD_LIBRARY_PATH="$bundle/lib" ldd "$bundle/bin/flashstep")
for lib in libepoxy.so.0 libglfw.so.3; do
  grep -q "$lib => $bundle/lib/$lib" <<<"$ldd_flashstep" || fail "ldd does not resolve $lib in the bundle"
done

# libEGL.so.1 and libGLdispatch.so.0 are dlopened by libepoxy at run time, so ldd cannot show
# them: the loader's own trace (LD_DEBUG=libs) says which file each one was.
trace=$(env -i LD_DEBUG=libs LD_LIBRARY_PATH="$bundle/lib" "$bundle/bin/flashstep" --version 2>&1 >/dev/null)
for lib in libEGL.so.1 libGLdispatch.so.0; do
  grep -q "calling init: $bundle/lib/$lib\$" <<<"$trace" || fail "$lib was not loaded from the bundle"
done
# No library the bundle carries may come from the host instead.
for f in "$bundle"/lib/*; do
  name=$(basename "$f")
  if grep "calling init: .*/$name\$" <<<"$trace" | grep -qv "calling init: $bundle/lib/"; then
    fail "$name was loaded from the host, not from the bundle"
  fi
done

# The one command a GPU server runs (--quick: version and GPU tests, no benchmark), with a sample
# of the GPU tests: every shader compiled, every algorithm run by the bundle's own flashstep, the
# backward step by step, and a context from EGL with no display. The Release suite runs all of
# test_gpu already; all of it again here, in one process, took 60-90 s of the suite's time.
sample="every embedded shader compiles*,run --backend gpu works for every algorithm*"
sample+=",*backward recordings equal the CPU's step by step*,with no display at all*"
env -i PATH=/usr/bin:/bin "$bundle/run.sh" --quick --test-case="$sample" || fail "run.sh --quick failed"
for f in version.txt test_gpu.log; do [ -s "$bundle/results/$f" ] || fail "run.sh wrote no results/$f"; done
grep -q "Status: SUCCESS" "$bundle/results/test_gpu.log" || fail "the GPU test log does not say SUCCESS"
grep -q "test cases: *4 | *4 passed" "$bundle/results/test_gpu.log" ||
  fail "the GPU test log does not say that the sample's 4 test cases passed"

echo "gpu_bundle_test: passed"
