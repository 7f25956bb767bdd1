// Animated steps: the move of the playhead from step a to step b = a ± 1, drawn in between for
// a moment so that a rescale, a tile loaded from HBM or a merge is seen happening rather than
// popping. No ImGui here (tests/app/test_transition.cpp).
//
// The views draw a move from recorded values only: the Cursor's state at b (the step shown)
// and a second Cursor's at a (kept here, seeking in the same Recording, never a copy of it),
// mixed by the move's progress. A move lasts 0.6 of a step's time while playing, within
// 150–400 ms (shorter when faster), and 250 ms when stepping by hand. There is none when
// steps come faster than 150 ms apart (key repeat, fast play), when the playhead jumps or
// walks the parts of a step, or when View ▸ Animate steps is off. `shot` and `gif` draw exact
// steps; `gif --tween K` holds a move at fixed progress for its in-between frames (hold()).
#pragma once

#include "core/recording.h"

#include <cmath>
#include <memory>
#include <vector>

namespace flashstep::ui {

// What a view gets while a move is under way: the state at the step left and how far the move
// has gone (eased, 0 at the step left, 1 at the step shown).
struct Tween {
  const State* from = nullptr;  // the state after step from_step (the initial state for −1)
  int from_step = -1;
  float t = 1.0f;
  bool forward() const;  // the move is one step ahead (a load, a merge happening)
  int to_step = 0;
};

// A value drawn between `a` (at the step left) and `b` (at the step shown): finite values
// mixed; anything else (a value not yet defined, ∞, nan) is shown as it is at the nearer end.
double tween_value(bool a_defined, double a, bool b_defined, double b, float t, bool* defined = nullptr);

// Smoothstep: slow out of a, slow into b.
float ease(double progress);

// The frames of an animation of steps `from`..`to` with `tween` in-between frames per move
// (gif --tween, the export dialog): each step's own frame (between = false), and before each
// step after the first, the move into it from the step before at progress j/(tween + 1).
struct TweenFrame {
  int step = 0;
  bool between = false;
  double progress = 1.0;
};
inline constexpr int kMaxTween = 30;  // in-between frames per step
std::vector<TweenFrame> tween_frames(int from, int to, int tween);

class Transition {
 public:
  static constexpr double kMinSeconds = 0.15, kMaxSeconds = 0.4, kByHandSeconds = 0.25;
  // How long a move lasts while playing at `steps_per_second`: 0.6 of a step within
  // [kMinSeconds, kMaxSeconds]; 0 (no move) when a step lasts less than kMinSeconds.
  static double seconds_playing(double steps_per_second);

  bool enabled = true;  // View ▸ Animate steps (settings.json "animate_steps")

  // Per frame, once the keys have moved the playhead: where it is (`step`, `part`; −1: the
  // whole step), the clock in seconds, whether the timeline plays and at what speed. A change
  // of playhead starts, replaces or ends a move as the rules above say; a new recording ends it.
  void observe(const std::shared_ptr<const Recording>& rec, int step, int part, double now, bool playing,
               double steps_per_second);
  // A move from step `from` to `to` held at raw progress `progress` (0..1) until stop():
  // the in-between frames of `gif --tween`.
  void hold(const std::shared_ptr<const Recording>& rec, int from, int to, double progress);
  void stop();

  bool active() const { return active_; }
  int from() const { return from_; }
  int to() const { return to_; }
  double progress() const { return progress_; }  // raw, 0..1
  double seconds() const { return duration_; }   // of the move under way
  // The move to draw when the playhead shows `step` (whole): null when none is under way.
  const Tween* tween_at(int step, int part = -1) const;

 private:
  void begin(const std::shared_ptr<const Recording>& rec, int from, int to);
  std::shared_ptr<const Recording> rec_;  // the recording the second cursor seeks in
  std::unique_ptr<Cursor> from_cursor_;
  Tween tween_;
  const Recording* seen_rec_ = nullptr;
  int seen_step_ = -1, seen_part_ = -1;
  double last_change_ = -1e9;
  bool active_ = false, held_ = false;
  int from_ = -1, to_ = -1;
  double start_ = 0, duration_ = 0, progress_ = 0;
};

}  // namespace flashstep::ui
