#!/usr/bin/env bash
# Installs the Debian 12 packages FlashStep needs, only those that are missing.
# Idempotent: a second run installs nothing and prints one line.
set -euo pipefail

packages=(
  build-essential cmake pkg-config git
  libimgui-dev libglfw3-dev libepoxy-dev libeigen3-dev
  doctest-dev libbenchmark-dev nlohmann-json3-dev libcli11-dev
  libstb-dev libgif-dev
  glslang-tools
  clang libclang-rt-14-dev libomp-14-dev
  xvfb xauth libgl1-mesa-dri libglx-mesa0 mesa-utils xdotool libx11-dev
  libegl-dev libegl-mesa0
  fonts-dejavu-core
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages are installed"
  exit 0
fi

echo "setup: installing ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  sudo=(sudo -n)
elif command -v sudo >/dev/null 2>&1 && [ -t 0 ]; then
  sudo=(sudo)
else
  echo "setup: these packages are missing and installing them needs root: ${missing[*]}" >&2
  echo "setup: run this script as root, or install them with: sudo apt-get install ${missing[*]}" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -q
"${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
