#include "app/ui/model/timeline.h"

#include "core/text.h"

#include <algorithm>
#include <cmath>

namespace flashstep::ui {

std::vector<Segment> segments_of(const Recording& rec) {
  std::vector<Segment> out;
  for (int start : pass_starts(rec))
    out.push_back({start, rec.steps[start].pass, rec.steps[start].row});
  return out;
}

void Timeline::load(int steps, std::vector<Segment> segments, int pass_count, int rows) {
  count_ = std::max(steps, 0);
  segments_ = std::move(segments);
  if (count_ > 0 && (segments_.empty() || segments_.front().start != 0))
    segments_.insert(segments_.begin(), Segment{0, 1, -1});
  pass_count_ = std::max(pass_count, count_ > 0 ? 1 : 0);
  rows_ = std::max(rows, 1);
  // "row r/R" is worth showing when a pass repeats row by row (attn-naive's kernel 2, a
  // multi-row softmax), not when each row is a pass of its own (attn-online).
  multi_row_ = false;
  for (std::size_t a = 0; a < segments_.size() && !multi_row_; ++a)
    for (std::size_t b = a + 1; b < segments_.size(); ++b)
      if (segments_[a].pass == segments_[b].pass && segments_[a].row != segments_[b].row) {
        multi_row_ = true;
        break;
      }
  playhead_ = 0;
  part_ = -1;
  parts_.clear();
  acc_ = 0;
  if (count_ == 0) playing_ = false;
}

void Timeline::load(const Recording& rec) {
  load(rec.step_count(), segments_of(rec), rec.pass_count(), rec.rows);
  for (std::size_t k = 0; k < rec.steps.size(); ++k) {
    const std::size_t n = rec.steps[k].parts.size();
    if (n == 0) continue;
    if (parts_.empty()) parts_.assign(rec.steps.size(), 0);
    parts_[k] = static_cast<std::uint8_t>(std::min<std::size_t>(n, 255));
  }
}

bool Timeline::seek(int k) {
  if (count_ == 0) return false;
  const int to = std::clamp(k, 0, count_ - 1);
  const bool moved = to != playhead_ || part_ != -1;
  playhead_ = to;
  part_ = -1;
  return moved;
}

bool Timeline::seek(int k, int part) {
  const int before = part_, at = playhead_;
  seek(k);
  if (part >= 0 && part < part_count() - 1) part_ = part;
  return playhead_ != at || part_ != before;
}

int Timeline::part_count_at(int k) const {
  return k >= 0 && k < static_cast<int>(parts_.size()) ? parts_[static_cast<std::size_t>(k)] : 0;
}

bool Timeline::step_part(int delta) {
  if (count_ == 0 || delta == 0) return false;
  if (delta > 0) {
    const int n = part_count();
    if (part_ >= 0) {  // on through this step's parts; its last part is the whole step
      part_ = part_ + 1 < n - 1 ? part_ + 1 : -1;
      return true;
    }
    if (playhead_ + 1 >= count_) return false;
    ++playhead_;
    part_ = part_count() >= 2 ? 0 : -1;
    return true;
  }
  if (part_ > 0) {
    --part_;
    return true;
  }
  if (part_ < 0 && part_count() >= 2) {  // the whole step is its last part: back to the one before
    part_ = part_count() - 2;
    return true;
  }
  if (playhead_ == 0) return false;
  --playhead_;
  part_ = -1;
  return true;
}

bool Timeline::next_pass() {
  const int s = segment();
  if (s < 0 || s + 1 >= static_cast<int>(segments_.size())) return false;
  return seek(segments_[s + 1].start);
}

bool Timeline::prev_pass() {
  const int s = segment();
  if (s < 0) return false;
  if (playhead_ > segments_[s].start) return seek(segments_[s].start);
  if (s == 0) return false;
  return seek(segments_[s - 1].start);
}

void Timeline::play() {
  if (count_ == 0) return;
  if (playhead_ >= count_ - 1) playhead_ = 0;
  playing_ = true;
  acc_ = 0;
}

bool Timeline::advance(double dt) {
  if (!playing_ || count_ == 0 || !(dt > 0)) return false;
  acc_ += dt * speed();
  const double whole = std::floor(acc_);
  if (whole < 1) return false;
  acc_ -= whole;
  // A long frame (the window was dragged, a slow recording) must not skip to the end.
  const int steps = static_cast<int>(std::min(whole, 1e6));
  const bool moved = seek(playhead_ + steps);
  if (playhead_ >= count_ - 1) pause();
  return moved;
}

void Timeline::set_speed_index(int i) { speed_ = std::clamp(i, 0, kSpeedCount - 1); }

int Timeline::segment_of(int k) const {
  if (segments_.empty()) return -1;
  auto it = std::upper_bound(segments_.begin(), segments_.end(), k,
                             [](int v, const Segment& s) { return v < s.start; });
  return std::max(0, static_cast<int>(it - segments_.begin()) - 1);
}

int Timeline::segment() const { return segment_of(playhead_); }

int Timeline::segment_end(int s) const {
  if (s < 0) return 0;
  return s + 1 < static_cast<int>(segments_.size()) ? segments_[s + 1].start : count_;
}

int Timeline::pass() const {
  const int s = segment();
  return s < 0 ? 0 : segments_[s].pass;
}

std::string Timeline::brief_position_text() const {
  if (count_ == 0) return "no steps";
  std::string out = strf("step %d/%d", playhead_ + 1, count_);
  if (part_ >= 0) out += strf(" · part %d/%d", part_ + 1, part_count());
  return out;
}

std::string Timeline::position_text() const {
  if (count_ == 0) return "no steps";
  std::string out;
  const int s = segment();
  if (multi_row_ && segments_[s].row >= 0)
    out += strf("row %d/%d · ", segments_[s].row + 1, rows_);
  out += strf("pass %d/%d · step %d/%d", pass(), pass_count_, playhead_ + 1, count_);
  if (part_ >= 0) out += strf(" · part %d/%d", part_ + 1, part_count());
  return out;
}

int Timeline::carry_over(const Timeline& before, const Timeline& after) {
  if (before.empty() || after.empty()) return 0;
  const int s = before.segment();
  const Segment& seg = before.segments_[s];
  const int offset = before.playhead_ - seg.start;
  auto land = [&](int t) {
    const int len = after.segment_end(t) - after.segments_[t].start;
    return after.segments_[t].start + std::min(offset, std::max(len - 1, 0));
  };
  const int n = static_cast<int>(after.segments_.size());
  for (int t = 0; t < n; ++t)
    if (after.segments_[t].pass == seg.pass && after.segments_[t].row == seg.row) return land(t);
  for (int t = 0; t < n; ++t)
    if (after.segments_[t].pass == seg.pass) return land(t);
  return 0;
}

}  // namespace flashstep::ui
