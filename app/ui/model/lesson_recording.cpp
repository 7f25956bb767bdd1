// The lesson's recording: a changed form recorded on this thread or in the background, the
// recording adopted with the playhead kept in its pass, and the cursor that plays it.
#include "app/ui/model/app_state.h"

#include "core/engine.h"
#include "core/text.h"

#include <algorithm>
#include <new>
#include <utility>

namespace flashstep::ui {

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
  const bool gpu = runs_on_gpu(inputs);
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

}  // namespace flashstep::ui
