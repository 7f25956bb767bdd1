#include "app/ui/model/app_state.h"

#include "core/algorithms.h"
#include "core/engine.h"
#include "core/text.h"

#include <algorithm>
#include <cmath>
#include <chrono>
#include <new>
#include <utility>

namespace flashstep::ui {

namespace {

double now_seconds() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

}  // namespace

std::string too_big(const Resolved& r) {
  const double bytes = estimate_record_bytes(r);
  if (bytes > kMaxRecordBytes)
    return strf("these steps would take about %.1f GB of memory; use a smaller N or input "
                "(`flashstep run --steps none` takes any size)", bytes / 1e9);
  return "";
}

void Played::set(std::shared_ptr<const Recording> r) {
  cursor.reset();
  release_recording(std::exchange(rec, std::move(r)));
  cursor = std::make_unique<Cursor>(*rec);
  cursor->seek(rec->step_count() > 0 ? 0 : -1);
}

void Played::seek(int k, int part) {
  cursor->seek(k, part);
  if (cursor->part() >= 0) as_of_part_ = step_as_of_part(*rec, cursor->position(), cursor->part());
}

const Step* Played::step() const {
  const int k = cursor->position();
  if (k < 0 || k >= rec->step_count()) return nullptr;
  return cursor->part() >= 0 ? &as_of_part_ : &rec->steps[static_cast<std::size_t>(k)];
}

const StepPart* Played::part() const {
  const Step* s = step();
  const int p = cursor->part();
  return s && p >= 0 && p < static_cast<int>(s->parts.size()) ? &s->parts[static_cast<std::size_t>(p)] : nullptr;
}

AppState::AppState() : start_time_(now_seconds()) {
  played.set(std::make_shared<Recording>());
  compare.left.set(std::make_shared<Recording>());
  compare.right.set(std::make_shared<Recording>());
}

double AppState::clock() const { return now_seconds() - start_time_; }

void AppState::note(Severity s, std::string text, Topic topic) {
  status = text;
  status_severity = s;
  status_topic_ = topic;
  status_time_ = clock();
  status_context_ = context_;
  log.push_back({clock(), s, std::move(text)});
  if (log.size() > 500) log.erase(log.begin(), log.begin() + 100);
}

AppState::StatusLine AppState::status_line() const {
  if (status.empty() || status_context_ != context_) return {};
  bool current = false;
  switch (status_topic_) {
    case Topic::input: current = !input_error.empty(); break;
    case Topic::recording: current = job.active(); break;
    case Topic::event:
      current = clock() - status_time_ < (status_severity == Severity::info ? kEventSeconds : kProblemSeconds);
      break;
  }
  if (!current) return {};
  return {status, status_severity};
}

const Lesson& AppState::current_lesson() const {
  return lessons()[static_cast<std::size_t>(std::clamp(lesson, 0, static_cast<int>(lessons().size()) - 1))];
}

Timeline& AppState::active_timeline() { return tab == Tab::compare ? compare.timeline : timeline; }

Timeline& AppState::settled_timeline() {
  if (tab == Tab::compare && compare.dirty) compare_update();
  return active_timeline();
}

void AppState::seek_active(int k, int part) {
  if (tab != Tab::compare) return seek(k, part);
  settled_timeline().seek(k, part);
  compare_sync();
}

std::string AppState::check(const Inputs& in) const {
  if (std::string why = check_inputs(in); !why.empty()) return why;
  const bool gpu = runs_on_gpu(in);
  try {
    const Resolved r = resolve(scenario_from(in));
    if (std::string why = too_big(r); !why.empty()) return why;
    if (gpu && gpu_backend().unsupported)
      if (std::string why = gpu_backend().unsupported(r); !why.empty()) return "GPU: " + why;
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

void AppState::set_theme(Theme t) { theme = t; }

namespace {
constexpr float kFontSteps[] = {1.0f, 1.25f, 1.5f, 1.75f, 2.0f, 2.5f, 3.0f};
}

void AppState::set_font_scale(float f) { font_scale = std::clamp(f, 1.0f, 3.0f); }

void AppState::bigger_font() {
  for (float f : kFontSteps)
    if (f > font_scale + 1e-3f) return set_font_scale(f);
}

void AppState::smaller_font() {
  float best = kFontSteps[0];
  for (float f : kFontSteps)
    if (f < font_scale - 1e-3f) best = f;
  set_font_scale(best);
}

void AppState::set_play_speed(double steps_per_second) {
  int best = Timeline::kDefaultSpeed;
  for (int i = 0; i < Timeline::kSpeedCount; ++i)
    if (std::abs(std::log(Timeline::kSpeeds[i] / steps_per_second)) <
        std::abs(std::log(Timeline::kSpeeds[best] / steps_per_second)))
      best = i;
  timeline.set_speed_index(best);
  compare.timeline.set_speed_index(best);
}

void AppState::tick(double dt) {
  std::shared_ptr<Recording> rec;
  std::string error;
  bool cancelled = false;
  std::uint64_t ticket = 0;
  if (job.collect(rec, error, cancelled, ticket)) {
    if (ticket != ticket_) {
      // Superseded by newer inputs or another lesson: logged when it was cancelled.
      release_recording(std::move(rec));
    } else if (rec) {
      adopt(std::move(rec), pending_, pending_keep_pass_);
      in_use_ = pending_inputs_;
      if (pending_playhead_ >= 0) seek(std::clamp(pending_playhead_, 0, std::max(timeline.count() - 1, 0)));
      pending_playhead_ = -1;
      if (!pending_quiet_) note(Severity::info, strf("Recorded %d steps.", played.rec->step_count()));
    } else if (!error.empty()) {
      note(Severity::error, "recording failed: " + error);
    } else if (cancelled) {
      input_error = "recording cancelled: the inputs above are not in use";
    }
  }
  compare_collect();
  if (tab == Tab::compare) {
    if (compare.dirty) compare_update();
    if (compare.timeline.advance(dt)) compare_sync();
  } else if (timeline.advance(dt)) {
    sync_cursor();
  }
}

}  // namespace flashstep::ui
