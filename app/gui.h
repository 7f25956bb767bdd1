// The window: GLFW + OpenGL + Dear ImGui.
#pragma once

#include <string>

namespace flashstep {

struct GuiOptions {
  std::string lesson;         // lesson id to open; empty: the first one
  int quit_after_frames = 0;  // > 0: render that many frames, then exit (smoke tests)
};

int run_gui(const GuiOptions& opt);

}  // namespace flashstep
