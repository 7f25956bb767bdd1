// The playhead: where the student is in a Recording and how it moves (step, pass, play at a
// speed). No ImGui here, so every rule is unit-tested without a window
// (tests/app/test_timeline.cpp).
//
// A "segment" is a run of steps with the same pass and the same row: the boundaries
// core::pass_starts() reports. "Next pass" jumps to the next segment, so in a multi-row
// softmax it visits every row's passes in the order the engine ran them.
#pragma once

#include "core/recording.h"

#include <cstdint>
#include <string>
#include <vector>

namespace flashstep::ui {

struct Segment {
  int start = 0;  // first step
  int pass = 1;   // Step::pass of its steps
  int row = -1;   // Step::row of its steps
};

std::vector<Segment> segments_of(const Recording& rec);

class Timeline {
 public:
  // Playback speeds in steps per second; the +/− keys move through them.
  static constexpr double kSpeeds[] = {0.25, 0.5, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024};
  static constexpr int kSpeedCount = sizeof(kSpeeds) / sizeof(kSpeeds[0]);
  static constexpr int kDefaultSpeed = 3;  // 2 steps/s: slow enough to read a sentence

  Timeline() = default;
  // steps: the number of steps; segments ascending, the first starting at 0 (empty when
  // steps == 0); pass_count: how many passes the algorithm has; rows: softmax rows or N.
  void load(int steps, std::vector<Segment> segments, int pass_count, int rows);
  void load(const Recording& rec);  // with the steps' part counts

  int count() const { return count_; }
  bool empty() const { return count_ == 0; }
  int playhead() const { return playhead_; }

  // Moves; every one clamps to [0, count − 1], shows the whole step and returns whether the
  // playhead changed.
  bool seek(int k);
  bool first() { return seek(0); }
  bool last() { return seek(count_ - 1); }
  bool step(int delta) { return seek(playhead_ + delta); }
  // To the start of the next segment (stays put in the last one).
  bool next_pass();
  // To the start of this segment, or of the previous one when already at a start.
  bool prev_pass();

  // Parts of a step (core StepPart: a tile's S, then P̃, then the merge). part() is the part
  // shown, -1 for the whole step; step_part(±1) walks them: forward from a whole step into the
  // next step's first part, and from a step's second-to-last part to the whole step (its last
  // part is the whole step). Steps without parts are one position each.
  int part() const { return part_; }
  int part_count() const { return part_count_at(playhead_); }  // 0: the step has no parts
  int part_count_at(int k) const;
  bool step_part(int delta);
  // Step k after its part p (0-based; the last part, -1 or out of range: the whole step).
  bool seek(int k, int part);

  bool playing() const { return playing_; }
  // Play from the start again when at the last step.
  void play();
  void pause() { playing_ = false; acc_ = 0; }
  void toggle_play() { playing_ ? pause() : play(); }
  // Moves by speed × dt steps while playing; stops at the last step. True if it moved.
  bool advance(double dt);

  int speed_index() const { return speed_; }
  double speed() const { return kSpeeds[speed_]; }
  void set_speed_index(int i);
  void faster() { set_speed_index(speed_ + 1); }
  void slower() { set_speed_index(speed_ - 1); }

  const std::vector<Segment>& segments() const { return segments_; }
  int segment() const;  // index of the playhead's segment, -1 when empty
  int segment_of(int k) const;
  int segment_end(int s) const;  // one past its last step
  int pass() const;              // pass number at the playhead (1-based), 0 when empty
  int pass_count() const { return pass_count_; }
  int rows() const { return rows_; }

  // "pass 2/3 · step 7/12", with "row 2/4 · " in front when the steps cover several rows.
  std::string position_text() const;
  // The same in brief where the room is short: "step 7/12", with its part where one is shown.
  std::string brief_position_text() const;

  // Where the playhead lands after re-recording: the same pass of the same row at the same
  // offset into it (clamped); else the same pass of any row; else the first step.
  static int carry_over(const Timeline& before, const Timeline& after);

 private:
  int count_ = 0;
  int playhead_ = 0;
  int part_ = -1;
  std::vector<std::uint8_t> parts_;  // per step, empty when no step has parts
  std::vector<Segment> segments_;
  int pass_count_ = 0;
  int rows_ = 1;
  bool multi_row_ = false;
  bool playing_ = false;
  double acc_ = 0;  // fraction of a step accumulated while playing
  int speed_ = kDefaultSpeed;
};

}  // namespace flashstep::ui
