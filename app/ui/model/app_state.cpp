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

// What keeps a scenario from being recorded in the window (too big to keep every step);
// empty when it can be.
std::string too_big(const Resolved& r) {
  const double bytes = estimate_record_bytes(r);
  if (bytes > kMaxRecordBytes)
    return strf("these steps would take about %.1f GB of memory; use a smaller N or input "
                "(`flashstep run --steps none` takes any size)", bytes / 1e9);
  return "";
}

}  // namespace

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
  // Two views side by side: no room for the matrix view's toolbar in each.
  compare.matrix_a.show_toolbar = compare.matrix_b.show_toolbar = false;
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
  const bool gpu = in.backend == Backend::gpu && gpu_backend();
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

void AppState::inputs_changed() {
  compare.dirty = true;
  if (std::string why = check(inputs); !why.empty()) {
    input_error = why;
    note(Severity::error, input_error + " (the last valid input stays in use)", Topic::input);
    return;
  }
  // A refused form put back to the inputs in use (Esc): the recording on screen is of them.
  if (!input_error.empty() && !job.active() && inputs == in_use_ && played.rec->step_count() > 0) {
    input_error.clear();
    return;
  }
  const Scenario s = scenario_from(inputs);
  const Resolved r = resolve(s);
  const bool gpu = inputs.backend == Backend::gpu && gpu_backend();
  input_error.clear();

  // A newer recording supersedes any still running: its result is dropped when it arrives.
  ++ticket_;
  if (job.active()) supersede_job("newer inputs replace it");
  // On the GPU every recording goes to the backend's thread where it has one: even a small one
  // may compile shaders, and the driver may take a while over either.
  const bool small = estimate_record_seconds(r) <= kBackgroundAbove;
  const bool background = gpu ? static_cast<bool>(gpu_backend().record_background) : !small;
  if (!background_allowed || !background) {
    pending_playhead_ = -1;
    try {
      RecordOptions opt;
      auto rec = std::make_shared<Recording>(gpu ? gpu_backend().record(r, opt) : record(r, opt));
      adopt(std::move(rec), s, true);
      in_use_ = inputs;
    } catch (const std::bad_alloc&) {
      note(Severity::error, "out of memory while recording: use a smaller N or input");
    } catch (const std::exception& e) {
      note(Severity::error, std::string("recording failed: ") + e.what());
    }
    return;
  }
  pending_ = s;
  pending_inputs_ = inputs;
  pending_keep_pass_ = true;
  pending_steps_ = estimate_steps(r);
  // A small recording on the GPU arrives within a few frames: the log is spared a note for it.
  pending_quiet_ = small;
  if (!small)
    note(Severity::info, strf("Recording about %lld steps in the background%s…", pending_steps_, gpu ? " on the GPU" : ""),
         Topic::recording);
  job.start(std::move(r), ticket_, gpu ? gpu_backend().record_background : RecordFn());
}

void AppState::supersede_job(const std::string& why) {
  job.cancel();
  if (pending_quiet_) return;  // a small GPU recording, replaced as a slider moves
  note(Severity::warning, strf("The background recording of %s (about %lld steps) was cancelled: ",
                               std::string(algorithm_id(pending_.algorithm)).c_str(), pending_steps_) +
                              why + ".");
}

void AppState::adopt(std::shared_ptr<const Recording> rec, const Scenario& s, bool keep_pass) {
  Timeline next;
  next.load(*rec);
  next.set_speed_index(timeline.speed_index());
  const int k = keep_pass ? Timeline::carry_over(timeline, next) : 0;
  const bool was_playing = timeline.playing();
  timeline = std::move(next);
  timeline.seek(k);
  if (was_playing) timeline.play();
  scenario = s;
  // A notice is logged when it is news: re-recording with the same derived block sizes (every
  // drag of a slider) would otherwise repeat it. The code panel shows them all.
  // Adjustments of what was asked (a clamp) are warnings; derived values are information.
  std::shared_ptr<const Recording> before = played.rec;
  played.set(std::move(rec));
  played.seek(timeline.playhead());
  auto news = [&](const std::vector<std::string>& now, const std::vector<std::string>* old, Severity sev) {
    for (const std::string& n : now)
      if (!old || std::find(old->begin(), old->end(), n) == old->end()) note(sev, n);
  };
  news(played.rec->notices, before ? &before->notices : nullptr, Severity::warning);
  news(played.rec->derived, before ? &before->derived : nullptr, Severity::info);
  release_recording(std::move(before));
}

void AppState::seek(int k, int part) {
  timeline.seek(k, part);
  sync_cursor();
}

void AppState::sync_cursor() {
  if ((played.cursor->position() != timeline.playhead() || played.cursor->part() != timeline.part()) &&
      !timeline.empty())
    played.seek(timeline.playhead(), timeline.part());
  if (tab == Tab::compare) compare_sync();
}

void AppState::timeline_used() {
  if (tab == Tab::overflow_lab || tab == Tab::scale_lab || tab == Tab::measure_lab) {
    tab = Tab::lesson;
    tab_changed = true;
  }
  sync_cursor();
}

void AppState::cancel_recording() {
  if (!job.active()) return;
  job.cancel();
  note(Severity::warning, played.rec->step_count() > 0
                              ? "Recording cancelled: the previous recording stays in use."
                              : "Recording cancelled: this lesson shows no steps until its inputs are applied again.");
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

// ---- compare ------------------------------------------------------------------------------

float CompareState::progress() const {
  float sum = 0;
  int n = 0;
  for (const RecordJob& j : jobs)
    if (j.active()) {
      sum += j.progress();
      ++n;
    }
  return n > 0 ? sum / static_cast<float>(n) : 1.0f;
}

void AppState::compare_update() {
  compare.dirty = false;
  compare.error.clear();
  // Whatever is still recording belongs to an older pair.
  ++compare.ticket;
  for (RecordJob& j : compare.jobs) j.cancel();
  Inputs in = inputs;
  const Algorithm algos[2] = {compare.a, compare.b};
  const Backend backends[2] = {compare.backend_a, compare.backend_b};
  for (int i = 0; i < 2; ++i) {
    in.algorithm = algos[i];
    compare.arrived[i].reset();
    try {
      const Resolved r = resolve(scenario_from(in));
      if (std::string why = too_big(r); !why.empty()) throw InputError(why);
      if (estimate_record_seconds(r) > 1.0)
        throw InputError("this input is too large to compare step by step; use a smaller N");
      const bool gpu = backends[i] == Backend::gpu && gpu_backend();
      if (gpu && gpu_backend().unsupported)
        if (std::string why = gpu_backend().unsupported(r); !why.empty()) throw InputError("GPU: " + why);
      if (gpu && background_allowed && gpu_backend().record_background)
        compare.jobs[i].start(r, compare.ticket, gpu_backend().record_background);
      else
        compare.arrived[i] = std::make_shared<Recording>(gpu ? gpu_backend().record(r, {}) : record(r));
    } catch (const std::exception& e) {
      compare.error = std::string(algorithm_id(algos[i])) + ": " + e.what();
      for (RecordJob& j : compare.jobs) j.cancel();
      return;
    }
  }
  compare_install();
}

void AppState::cancel_compare() {
  if (!compare.recording()) return;
  ++compare.ticket;  // what arrives now is dropped
  for (RecordJob& j : compare.jobs) j.cancel();
  compare.arrived[0].reset();
  compare.arrived[1].reset();
  note(Severity::warning, "Comparison cancelled: the comparison shown stays.");
}

void AppState::compare_collect() {
  const Algorithm algos[2] = {compare.a, compare.b};
  for (int i = 0; i < 2; ++i) {
    std::shared_ptr<Recording> rec;
    std::string error;
    bool cancelled = false;
    std::uint64_t ticket = 0;
    if (!compare.jobs[i].collect(rec, error, cancelled, ticket) || ticket != compare.ticket) continue;
    if (rec) {
      compare.arrived[i] = std::move(rec);
    } else if (!cancelled) {
      compare.error = std::string(algorithm_id(algos[i])) + ": " + error;
      for (RecordJob& j : compare.jobs) j.cancel();
    }
  }
  if (compare.error.empty()) compare_install();
}

void AppState::compare_install() {
  if (!compare.arrived[0] || !compare.arrived[1]) return;
  std::shared_ptr<Recording> recs[2] = {std::move(compare.arrived[0]), std::move(compare.arrived[1])};
  Timeline before = compare.timeline;
  compare.left.set(recs[0]);
  compare.right.set(recs[1]);
  const Recording& longer = recs[0]->step_count() >= recs[1]->step_count() ? *recs[0] : *recs[1];
  Timeline next;
  next.load(longer);
  next.set_speed_index(before.speed_index());
  const int k = before.empty() ? 0 : std::min(before.playhead(), next.count() - 1);
  compare.timeline = std::move(next);
  compare.timeline.seek(k);
  compare_sync();
}

void AppState::compare_sync() {
  const int k = compare.timeline.playhead();
  for (Played* p : {&compare.left, &compare.right})
    if (p->rec->step_count() > 0) p->seek(std::min(k, p->rec->step_count() - 1));
}

}  // namespace flashstep::ui
