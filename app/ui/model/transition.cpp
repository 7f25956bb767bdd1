#include "app/ui/model/transition.h"

#include <algorithm>
#include <cstdlib>

namespace flashstep::ui {

bool Tween::forward() const { return to_step == from_step + 1; }

double tween_value(bool a_defined, double a, bool b_defined, double b, float t, bool* defined) {
  const bool mixable = a_defined && b_defined && std::isfinite(a) && std::isfinite(b);
  if (mixable) {
    if (defined) *defined = true;
    return a + (b - a) * static_cast<double>(t);
  }
  const bool near_a = t < 0.5f;
  if (defined) *defined = near_a ? a_defined : b_defined;
  return near_a ? a : b;
}

float ease(double progress) {
  const double p = std::clamp(progress, 0.0, 1.0);
  return static_cast<float>(p * p * (3.0 - 2.0 * p));
}

std::vector<TweenFrame> tween_frames(int from, int to, int tween) {
  std::vector<TweenFrame> out;
  for (int k = from; k <= to; ++k) {
    if (k > from)
      for (int j = 1; j <= tween; ++j) out.push_back({k, true, static_cast<double>(j) / (tween + 1)});
    out.push_back({k, false, 1.0});
  }
  return out;
}

double Transition::seconds_playing(double steps_per_second) {
  if (!(steps_per_second > 0)) return 0;
  const double step = 1.0 / steps_per_second;
  if (step < kMinSeconds) return 0;
  return std::clamp(0.6 * step, kMinSeconds, kMaxSeconds);
}

void Transition::stop() {
  active_ = held_ = false;
  progress_ = 0;
}

void Transition::begin(const std::shared_ptr<const Recording>& rec, int from, int to) {
  if (rec_ != rec || !from_cursor_) {
    rec_ = rec;
    from_cursor_ = std::make_unique<Cursor>(*rec);
  }
  from_cursor_->seek(from);
  from_ = from;
  to_ = to;
  active_ = true;
  tween_.from = &from_cursor_->state();
  tween_.from_step = from;
  tween_.to_step = to;
}

void Transition::observe(const std::shared_ptr<const Recording>& rec, int step, int part, double now, bool playing,
                         double steps_per_second) {
  if (held_) return;
  if (!rec || rec.get() != seen_rec_) {  // another recording: nothing to move from
    stop();
    seen_rec_ = rec.get();
    seen_step_ = step;
    seen_part_ = part;
    last_change_ = now;
    if (!rec) rec_.reset(), from_cursor_.reset();
    return;
  }
  if (step != seen_step_ || part != seen_part_) {
    const double since = now - last_change_;
    const int from = seen_step_;
    const bool one_step = std::abs(step - from) == 1 && part < 0 && seen_part_ < 0;
    last_change_ = now;
    seen_step_ = step;
    seen_part_ = part;
    const double dur = playing ? seconds_playing(steps_per_second) : kByHandSeconds;
    if (!enabled || !one_step || dur <= 0 || since < kMinSeconds || step >= rec->step_count()) {
      stop();
      return;
    }
    begin(rec, from, step);
    start_ = now;
    duration_ = dur;
  }
  if (!active_) return;
  progress_ = std::clamp((now - start_) / duration_, 0.0, 1.0);
  tween_.t = ease(progress_);
  if (progress_ >= 1.0) stop();
}

void Transition::hold(const std::shared_ptr<const Recording>& rec, int from, int to, double progress) {
  if (!rec || from < -1 || to < 0 || to >= rec->step_count() || from >= rec->step_count()) {
    stop();
    return;
  }
  begin(rec, from, to);
  held_ = true;
  duration_ = 0;
  progress_ = std::clamp(progress, 0.0, 1.0);
  tween_.t = ease(progress_);
}

const Tween* Transition::tween_at(int step, int part) const {
  if (!active_ || part >= 0 || step != to_ || !from_cursor_) return nullptr;
  return &tween_;
}

}  // namespace flashstep::ui
