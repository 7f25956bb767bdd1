// The lecturer's pointer and pen in presentation mode: a laser dot that follows the mouse and
// strokes drawn by dragging while the pen is on (L). Points are fractions (0..1) of the view's
// width and height, so a stroke lands on the same element in the window and in an export of the
// view at another size. Strokes belong to the step they were drawn on: they clear on the next
// step and when presentation mode ends. No ImGui here (tests/app/test_pen.cpp).
#pragma once

#include <string>
#include <vector>

namespace flashstep::ui {

struct PenPoint {
  float x = 0, y = 0;  // fractions of the view, 0..1
};
using PenStroke = std::vector<PenPoint>;

struct Pen {
  // A point closer than this to the last one of its stroke (a fraction of the view) is not kept.
  static constexpr float kMinMove = 0.002f;
  bool on = false;  // L: dragging draws
  std::vector<PenStroke> strokes;
  bool drawing = false;  // a stroke under way (the button is down)
  bool pointer = false;  // the mouse is over the view: the laser dot is drawn at `at`
  PenPoint at;
  // The window's mouse in presentation mode, in screen units, kept before ImGui is told there
  // is no pointer (frame.cpp: prepare_input); `live` only in the window's own frames, never in
  // an export, which draws the strokes but no dot.
  struct Mouse {
    float x = 0, y = 0;
    bool valid = false, down = false;
  } mouse;
  bool live = false;
  // Whether the strokes belong to the playhead (step, part): an export that moves the
  // playhead draws them on their own step only.
  bool shows_at(int step, int part) const { return step == step_ && part == part_; }

  void toggle() {
    on = !on;
    drawing = false;
  }
  void press(PenPoint p);  // the button goes down over the view with the pen on: a new stroke
  void drag(PenPoint p);   // the button is held: the stroke goes on to p
  void release() { drawing = false; }
  void clear() {
    strokes.clear();
    drawing = false;
  }
  // Per frame: the playhead (step, part) and whether the app presents. The strokes clear when
  // the playhead moves; leaving presentation mode clears them and puts the pen down.
  void observe(int step, int part, bool presenting);

  // "x,y x,y …" (fractions 0..1 of the view, at least two points) into a stroke: "" or the
  // problem in one line.
  static std::string parse_stroke(const std::string& text, PenStroke& out);

 private:
  static std::string parse_points(const std::string& text, PenStroke& out);
  int step_ = -2, part_ = -2;
  bool presenting_ = false;
};

}  // namespace flashstep::ui
