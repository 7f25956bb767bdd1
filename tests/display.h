// Whether the test has a display to open windows on (./build.sh test provides Xvfb); without
// one, the cases that need a window skip themselves.
#pragma once

#include <cstdlib>

inline bool have_display() { return std::getenv("DISPLAY") || std::getenv("WAYLAND_DISPLAY"); }
