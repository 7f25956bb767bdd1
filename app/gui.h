// The window: GLFW + OpenGL + Dear ImGui, drawing the panels of app/ui/ every frame.
#pragma once

#include <string>

namespace flashstep {

struct GuiOptions {
  std::string lesson;         // lesson id to open; empty: the first one
  std::string scenario;       // scenario file to open (as File ▸ Open); empty: none
  int quit_after_frames = 0;  // > 0: render that many frames, then exit (smoke tests)
  int width = 1280, height = 800;  // window size
  bool size_given = false;         // --width/--height given: they win over the saved size
  // > 0: play the lesson for that many frames as fast as possible (no vsync), one step per
  // frame, and print the frame times. Attention lessons run at N = bench_n, d = bench_d,
  // unless a scenario file gives the inputs.
  int bench_frames = 0;
  int bench_n = 128, bench_d = 64;
};

int run_gui(const GuiOptions& opt);

}  // namespace flashstep
