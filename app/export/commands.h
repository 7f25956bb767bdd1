// `flashstep shot` and `flashstep gif`: a lesson or a scenario file rendered to image files
// without a visible window, in an OpenGL context of their own (EGL: no display needed). Where
// that context has compute shaders, a lesson on the GPU backend is recorded on the GPU.
#pragma once

#include <string>
#include <vector>

namespace flashstep {

struct PictureOptions {
  std::string lesson;           // lesson id; exactly one of lesson and scenario is given
  std::string scenario;         // scenario file (as the window saves it)
  std::string theme = "dark";   // dark, light or projector
  std::string panel;            // empty: the whole window
  int width = 1280, height = 800;
  float scale = 1.0f;           // the image is width·scale × height·scale pixels
  bool transparent = false;
  bool present = false;         // presentation mode: the view alone, sizes × 1.5 (P in the window)
  float font_scale = 1.0f;      // the window's font size, 1..3 (Ctrl+= in the window)
  std::string gl = "auto";      // how the OpenGL context is made: auto, egl or glfw
  std::string out;
  // Measure it yourself, which a picture of it times first: its largest N and d (0: the lab's own,
  // 8192 and 64).
  int measure_n = 0, measure_d = 0;
};

struct ShotOptions : PictureOptions {
  std::string step;             // step number from 1 as the window shows it, or "last";
                                // empty: the first, or the scenario file's playhead
  int part = 0;                 // a part of the step (1..parts), 0: the whole step
  bool ask = false;             // Ask me first: the question of --step (or the first), as asked
  std::string answer;           // with ask: the answer typed, and the step shown with it scored
  std::vector<std::string> pen; // strokes over the presented view: "x,y x,y ..." (app/ui/model/pen.h)
  std::string tour_stop;        // a stop of the lesson's tour (1..K), with its text and outline; "": none
};

struct GifOptions : PictureOptions {
  std::string from = "1", to = "last";  // step range, inclusive, numbered from 1
  double fps = 4.0;
  bool parts = false;  // a frame for each part of a step with parts, the last being the whole step
  int tween = 0;       // in-between frames per move from one step to the next (app/ui/model/transition.h)
};

// Exit status as the rest of the command line: 0, 2 with one line on stderr for bad input or
// an unwritable file, 1 for an internal error.
int shot_command(const ShotOptions& o);
int gif_command(const GifOptions& o);

}  // namespace flashstep
