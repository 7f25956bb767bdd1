#!/usr/bin/env bash
# Packs flashstep, the GPU tests and the GPU benchmark with the shared libraries they need, so
# that they run on a GPU server that has a driver and nothing else (no glvnd, GLFW or X11
# libraries, no apt, no internet): copy OUT_DIR there and run OUT_DIR/run.sh.
#
#   scripts/gpu-bundle.sh [BUILD_DIR] [OUT_DIR]      (defaults: build, gpu-bundle)
#
# It does not build. OUT_DIR: bin/ (the programs), lib/ (their libraries under their sonames),
# run.sh (version, GPU tests, GPU benchmark; results in OUT_DIR/results) and README.txt.
set -euo pipefail

build=${1:-build}
out=${2:-gpu-bundle}
bins=(flashstep tests/test_gpu bench/bench_gpu)

for b in "${bins[@]}"; do
  if [ ! -x "$build/$b" ]; then
    echo "gpu-bundle: $build/$b is missing; build it first: cmake --build $build --target flashstep test_gpu bench_gpu" >&2
    exit 2
  fi
done

# Libraries the host must supply, never carried:
# - glibc (loader, libc, libm, libpthread, ...): it must match the host's kernel interface and
#   the loader that runs the programs; a bundled libc under the host's ld.so breaks.
# - libstdc++ and libgcc_s: every Ubuntu/Debian has them (apt needs them), and the host's are at
#   least as new as this build's where glibc is (Ubuntu 24.04: GCC 14's, Debian 12: GCC 12's).
#   Carrying ours would shadow the host's newer ones for the GPU driver loaded into the same
#   process, which may need symbol versions ours lacks.
# - The GPU driver: glvnd vendor libraries (libEGL_mesa, libGLX_nvidia, ...), Mesa's and
#   NVIDIA's own libraries. Only the host's driver knows its GPU; glvnd loads it by its JSON.
host_supplied() {
  case "$1" in
    linux-vdso.so.* | linux-gate.so.* | ld-linux*.so.* | libc.so.* | libm.so.* | libmvec.so.* | \
      libpthread.so.* | libdl.so.* | librt.so.* | libresolv.so.* | libutil.so.* | libanl.so.* | \
      libnss_*.so.* | libthread_db.so.*) return 0 ;;
    libstdc++.so.* | libgcc_s.so.*) return 0 ;;
    libEGL_*.so.* | libGLX_*.so.* | libGLESv1_CM_*.so.* | libGLESv2_*.so.* | libglapi.so.* | \
      libgallium*.so* | *_dri.so | libgbm.so.* | libdrm*.so.* | libLLVM*.so* | libnvidia-*.so* | \
      libcuda.so.*) return 0 ;;
  esac
  return 1
}

declare -A carry  # soname -> path on this machine

# Adds what `ldd FILE` lists to `carry`, less what the host supplies.
add_deps() {
  local line name path
  while IFS= read -r line; do
    line=${line#"${line%%[![:space:]]*}"}
    case "$line" in
      *" => not found"*)
        echo "gpu-bundle: $1 needs ${line%% *}, which is not installed here; install it and run again" >&2
        exit 2 ;;
      *" => "/*) name=${line%% *}; path=${line#* => }; path=${path%% (*} ;;
      *) continue ;;  # linux-vdso, the loader, "statically linked"
    esac
    host_supplied "$name" || carry[$name]=$path
  done < <(ldd "$1")
}

for b in "${bins[@]}"; do add_deps "$build/$b"; done

# glvnd's dispatch libraries: libepoxy dlopens libEGL.so.1, then libGL.so.1 (which needs
# libGLX.so.0) or libOpenGL.so.0 for the GL functions, so ldd does not list them; a bare server
# lacks them. glvnd passes the calls on to the host's vendor library (libEGL_nvidia, found by
# its JSON). They are looked for next to libepoxy, the same machine's build.
glvnd=(libEGL.so.1 libGLdispatch.so.0 libOpenGL.so.0 libGL.so.1 libGLX.so.0)
if [ -z "${carry[libepoxy.so.0]:-}" ]; then
  echo "gpu-bundle: $build/flashstep does not link libepoxy.so.0, so glvnd's libraries cannot be located" >&2
  exit 2
fi
libdir=$(dirname "${carry[libepoxy.so.0]}")
for g in "${glvnd[@]}"; do
  if [ ! -e "$libdir/$g" ]; then
    echo "gpu-bundle: $libdir/$g is missing; install glvnd's libraries (Debian: apt-get install libegl1 libopengl0 libgl1 libglx0 libgldispatch0)" >&2
    exit 2
  fi
  carry[$g]=$libdir/$g
  add_deps "$libdir/$g"
done

# A fresh OUT_DIR, removing only an earlier bundle (never some other folder given by mistake).
if [ -e "$out" ]; then
  if [ ! -f "$out/run.sh" ] || [ ! -d "$out/lib" ]; then
    echo "gpu-bundle: $out exists and is not a bundle; remove it or name another OUT_DIR" >&2
    exit 2
  fi
  rm -rf "$out"
fi
mkdir -p "$out/bin" "$out/lib" "$out/results"
for b in "${bins[@]}"; do cp "$build/$b" "$out/bin/"; done
# -L: the real file under its soname (what the loader asks for), not a dangling symlink.
for name in "${!carry[@]}"; do cp -L "${carry[$name]}" "$out/lib/$name"; done

native=""
if grep -q '^FLASHSTEP_NATIVE:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null; then
  cpu=$(grep -m1 '^model name' /proc/cpuinfo | sed 's/.*: //')
  native="Built with -march=native on \"${cpu:-this CPU}\": the server's CPU needs the same
instruction sets (an \"Illegal instruction\" says it has not). A portable build:
cmake -S . -B build -DFLASHSTEP_NATIVE=OFF, then scripts/gpu-bundle.sh again.
"
  echo "gpu-bundle: warning: $build was configured with FLASHSTEP_NATIVE=ON (-march=native); the bundle runs only on a CPU with this one's instruction sets" >&2
fi

# The oldest host it runs on: the newest glibc and libstdc++ symbol versions it asks for.
needs=""
if command -v objdump >/dev/null; then
  symbols=$(objdump -T "$out"/bin/* "$out"/lib/* 2>/dev/null || true)
  glibc=$(grep -o 'GLIBC_[0-9.]*[0-9]' <<<"$symbols" | sort -uV | tail -n1 || true)
  glibcxx=$(grep -o 'GLIBCXX_[0-9.]*[0-9]' <<<"$symbols" | sort -uV | tail -n1 || true)
  needs="It needs the host's glibc with ${glibc:-?} and libstdc++ with ${glibcxx:-?} (Ubuntu 22.04 and later have both)."
fi

cat >"$out/run.sh" <<'EOF'
#!/usr/bin/env bash
# FlashStep's GPU checks, run from this folder with nothing installed: flashstep --version, the
# GPU tests, then the GPU benchmark (Google Benchmark flags given to run.sh go to it, e.g.
# --benchmark_filter=tiled). ./run.sh --quick: the version and the tests only, and flags after
# it go to the tests (doctest's, e.g. --test-case='*backward*').
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
quick=0
if [ "${1:-}" = --quick ]; then quick=1; shift; fi

# The bundle's libraries first; the host keeps glibc, libstdc++ and its GPU driver.
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# The CLI tests start flashstep: this copy, not the path it was built at.
export FLASHSTEP_EXE="$here/bin/flashstep"
results="$here/results"
mkdir -p "$results"

# glvnd's libEGL finds the driver through a vendor JSON. Where the driver came without one but
# libEGL_nvidia is installed, one is written here; otherwise say what to set.
if [ -z "${__EGL_VENDOR_LIBRARY_FILENAMES:-}${__EGL_VENDOR_LIBRARY_DIRS:-}" ] &&
   ! compgen -G '/etc/glvnd/egl_vendor.d/*.json' >/dev/null &&
   ! compgen -G '/usr/share/glvnd/egl_vendor.d/*.json' >/dev/null; then
  nvidia=$({ ldconfig -p || /sbin/ldconfig -p; } 2>/dev/null | grep -o '/[^ ]*/libEGL_nvidia\.so\.0$' | head -n1 || true)
  if [ -n "$nvidia" ]; then
    printf '{"file_format_version": "1.0.0", "ICD": {"library_path": "%s"}}\n' "$nvidia" >"$results/10_nvidia.json"
    export __EGL_VENDOR_LIBRARY_FILENAMES="$results/10_nvidia.json"
    echo "run.sh: no EGL vendor JSON on this host; using $results/10_nvidia.json for $nvidia"
  else
    echo "run.sh: warning: no EGL vendor JSON in /usr/share/glvnd/egl_vendor.d or /etc/glvnd/egl_vendor.d; set __EGL_VENDOR_LIBRARY_FILENAMES to the driver's (e.g. 10_nvidia.json)" >&2
  fi
fi

failed=()
# step NAME LOG COMMAND...: runs COMMAND, its output on the terminal and in LOG.
step() {
  local name=$1 log=$2 rc=0
  shift 2
  echo "run.sh: $name"
  "$@" 2>&1 | tee "$log" || rc=$?
  if [ "$rc" -ne 0 ]; then
    failed+=("$name")
    echo "run.sh: $name failed (exit $rc); its output is in $log" >&2
    # 132: SIGILL, the usual sign of a -march=native build on a different CPU.
    if [ "$rc" -eq 132 ]; then echo "run.sh: illegal instruction: this bundle was built for another CPU (see README.txt)" >&2; fi
  fi
  return 0
}

step "flashstep --version" "$results/version.txt" "$here/bin/flashstep" --version
# --version exits 0 without a context too; it names how it got one, "(context: egl-device)".
if [ ${#failed[@]} -eq 0 ] && ! grep -q '(context: ' "$results/version.txt"; then
  failed+=("OpenGL context")
  echo "run.sh: flashstep found no OpenGL 4.3 context (see $results/version.txt and README.txt)" >&2
fi
if [ ${#failed[@]} -eq 0 ]; then
  if [ "$quick" -eq 1 ]; then
    step "GPU tests" "$results/test_gpu.log" "$here/bin/test_gpu" "$@"
  else
    step "GPU tests" "$results/test_gpu.log" "$here/bin/test_gpu"
  fi
  if [ "$quick" -eq 0 ]; then
    rm -f "$results/BENCHMARKS-gpu.md"
    step "GPU benchmark" "$results/bench_gpu.log" "$here/bin/bench_gpu" --markdown "$results/BENCHMARKS-gpu.md" "$@"
  fi
else
  echo "run.sh: the tests and the benchmark were not run" >&2
fi

echo "run.sh: results in $results"
if [ ${#failed[@]} -ne 0 ]; then
  echo "run.sh: failed: ${failed[*]}" >&2
  exit 1
fi
echo "run.sh: all passed"
EOF
chmod +x "$out/run.sh"

cat >"$out/README.txt" <<EOF
FlashStep GPU bundle: flashstep, its GPU tests (test_gpu) and its GPU benchmark (bench_gpu),
with the shared libraries they need (lib/), so that they run on a GPU server without
installing anything. Made by scripts/gpu-bundle.sh from $(basename "$(cd "$build" && pwd)")/ on $(date -u +%Y-%m-%d).

Run:  ./run.sh           version, GPU tests, GPU benchmark (extra arguments go to bench_gpu)
      ./run.sh --quick   version and GPU tests only (extra arguments go to test_gpu)
Results go to results/: version.txt, test_gpu.log, bench_gpu.log, BENCHMARKS-gpu.md.
The exit status is nonzero when a step fails.

The host supplies glibc, libstdc++ and its GPU driver: OpenGL 4.3 through EGL's device
platform, e.g. NVIDIA's libEGL_nvidia.so.0 with its glvnd vendor JSON (10_nvidia.json in
/usr/share/glvnd/egl_vendor.d). If that JSON is not found, set
__EGL_VENDOR_LIBRARY_FILENAMES=/path/to/10_nvidia.json (run.sh writes one itself when it
finds libEGL_nvidia.so.0 but no JSON). No display or X server is needed.
$native
$needs
Libraries carried: $(printf '%s\n' "${!carry[@]}" | sort | tr '\n' ' ')
EOF

size=$(du -sh "$out" | cut -f1)
echo "gpu-bundle: wrote $out ($size, ${#carry[@]} libraries); copy it to the GPU server and run $out/run.sh there"
