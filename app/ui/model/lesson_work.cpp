// Each lesson's work: opening a lesson as it was left (its inputs, playhead and recording,
// kept within a memory budget), and the per-lesson undo history of input changes.
#include "app/ui/model/app_state.h"
#include "app/ui/model/record_job.h"

#include "core/algorithms.h"
#include "core/text.h"

#include <algorithm>

namespace flashstep::ui {

Inputs AppState::example_inputs(int index) const {
  const Lesson& l = lessons()[static_cast<std::size_t>(index)];
  return inputs_from(l.scenario, l.backend == "gpu" ? Backend::gpu : Backend::cpu);
}

void AppState::open_lesson(int index) { enter_lesson(index, nullptr); }

void AppState::open_lesson_with(int index, const Inputs& in) { enter_lesson(index, &in); }

void AppState::enter_lesson(int index, const Inputs* with) {
  index = std::clamp(index, 0, static_cast<int>(lessons().size()) - 1);
  const Lesson& l = lessons()[static_cast<std::size_t>(index)];
  // The lesson left keeps its work: what was in use, where the playhead stood, and the
  // recording on screen.
  if (opened_) {
    Kept left;
    left.playhead = std::max(timeline.playhead(), 0);
    left.left = ++lessons_left_;
    if (job.active()) {
      left.inputs = pending_inputs_;  // the inputs asked for, recorded again when it is reopened
    } else {
      left.inputs = in_use_;
      if (played.rec->step_count() > 0) {
        left.rec = played.rec;
        left.scenario = scenario;
        left.bytes = played.rec->memory_bytes();
      }
    }
    kept[current_lesson().id] = std::move(left);
    ++kept_generation;
  }
  if (job.active()) supersede_job("lesson " + l.id + " was opened");
  lesson = index;
  opened_ = true;
  new_context();
  const Backend backend = l.backend == "gpu" ? Backend::gpu : Backend::cpu;
  Inputs start = example_inputs(index);
  int playhead = 0;
  std::shared_ptr<const Recording> ready;  // the lesson's kept recording of `start`
  Scenario ready_scenario;
  if (auto it = kept.find(l.id); it != kept.end()) {
    start = it->second.inputs;
    playhead = it->second.playhead;
    ready = std::move(it->second.rec);
    ready_scenario = it->second.scenario;
    kept.erase(it);
    ++kept_generation;
  }
  if (with && *with != start) release_recording(std::move(ready));
  if (with) {
    // The work the file replaces can be had back with Ctrl+Z.
    if (start != *with) undo_[l.id].push_back(start);
    redo_[l.id].clear();
    start = *with;
    playhead = 0;
  }
  inputs = start;
  input_error.clear();
  views.clear();
  timeline.pause();
  // Every lesson opens on the tab its file names, whatever the previous lesson showed: a lab
  // lesson on its lab (its recording, the worked example, plays in the other panels), the
  // CPU-vs-GPU lesson on Compare, the others on their own view.
  tab = parse_tab(l.tab).value_or(Tab::lesson);
  tab_changed = true;
  if (tab == Tab::scale_lab) scale_lab.d = l.scenario.d;
  // Compare mode sets the lesson against the algorithm it improves on (or that improves on it).
  compare.a = info(l.scenario.algorithm).compare_a;
  compare.b = info(l.scenario.algorithm).compare_b;
  compare.backend_a = Backend::cpu;
  compare.backend_b = Backend::cpu;
  // A lesson on the GPU compares its algorithm on both backends.
  if (backend == Backend::gpu && gpu_backend()) {
    compare.a = compare.b = l.scenario.algorithm;
    compare.backend_b = Backend::gpu;
  } else if (backend == Backend::gpu && tab == Tab::compare) {
    tab = Tab::lesson;  // without a GPU there is nothing to set beside the CPU run
  }
  compare.dirty = true;
  if (backend == Backend::gpu && !gpu_backend())
    note(Severity::info, "The GPU backend needs the window's OpenGL 4.3 context, which is not "
                         "available here: lesson " + l.id + " shows the CPU run.");
  // A fresh timeline: the pass of the lesson left says nothing about this one.
  const int speed = timeline.speed_index();
  timeline = Timeline();
  timeline.set_speed_index(speed);
  pending_playhead_ = -1;
  if (ready) {
    // Shown as it was left: nothing is recorded again.
    ++ticket_;
    compare.dirty = true;
    adopt(std::move(ready), ready_scenario, false);
    in_use_ = inputs;
    seek(std::clamp(playhead, 0, std::max(timeline.count() - 1, 0)));
  } else {
    inputs_changed();
    if (job.active()) show_pending();
    place_playhead(playhead);
  }
  trim_kept();
}

void AppState::show_pending() {
  auto empty = std::make_shared<Recording>();
  empty->algorithm = pending_.algorithm;
  played.set(std::move(empty));
  const int speed = timeline.speed_index();
  timeline = Timeline();
  timeline.set_speed_index(speed);
  scenario = pending_;
  in_use_ = pending_inputs_;
}

void AppState::trim_kept() {
  std::size_t total = 0;
  for (const auto& entry : kept) total += entry.second.rec ? entry.second.bytes : 0;
  while (total > kept_budget) {
    auto oldest = kept.end();
    for (auto it = kept.begin(); it != kept.end(); ++it)
      if (it->second.rec && (oldest == kept.end() || it->second.left < oldest->second.left)) oldest = it;
    if (oldest == kept.end()) break;
    Kept& k = oldest->second;
    total -= k.bytes;
    std::string name = oldest->first;
    for (const Lesson& l : lessons())
      if (l.id == oldest->first) name = std::to_string(l.number) + " (" + l.id + ")";
    note(Severity::info, "Lesson " + name + " let go of its recording (" + bytes_text(static_cast<double>(k.bytes)) +
                             ") to keep the lessons not shown within " + bytes_text(static_cast<double>(kept_budget)) +
                             "; it records again when opened.");
    release_recording(std::move(k.rec));
    k.bytes = 0;
  }
}

void AppState::place_playhead(int k) {
  if (job.active()) {
    pending_playhead_ = k;  // placed when the background recording arrives
  } else {
    seek(std::clamp(k, 0, std::max(timeline.count() - 1, 0)));
  }
}

bool AppState::open_lesson(std::string_view id) {
  for (std::size_t i = 0; i < lessons().size(); ++i)
    if (lessons()[i].id == id) {
      open_lesson(static_cast<int>(i));
      return true;
    }
  return false;
}

// ---- undo -----------------------------------------------------------------------------------

void AppState::push_undo(const Inputs& before) {
  std::vector<Inputs>& u = undo_[current_lesson().id];
  if (!u.empty() && u.back() == before) return;
  u.push_back(before);
  if (u.size() > kUndoDepth) u.erase(u.begin());
}

void AppState::inputs_edited() {
  const Inputs before = in_use_;
  inputs_changed();
  // Only a change that takes effect can be undone; a refused value never replaced anything.
  // One recorded in the background counts from when it was asked for.
  if (job.active() || (input_error.empty() && in_use_ != before)) {
    push_undo(before);
    redo_[current_lesson().id].clear();
  }
}

void AppState::restore_inputs(const Inputs& in) {
  inputs = in;
  inputs_changed();
}

bool AppState::can_undo() const {
  const auto it = undo_.find(current_lesson().id);
  return it != undo_.end() && !it->second.empty();
}

bool AppState::can_redo() const {
  const auto it = redo_.find(current_lesson().id);
  return it != redo_.end() && !it->second.empty();
}

bool AppState::undo_inputs() {
  if (!can_undo()) return false;
  std::vector<Inputs>& u = undo_[current_lesson().id];
  const Inputs back = std::move(u.back());
  u.pop_back();
  redo_[current_lesson().id].push_back(in_use_);
  restore_inputs(back);
  note(Severity::info, "Undone: the inputs before the last change are back (Ctrl+Shift+Z redoes).");
  return true;
}

bool AppState::redo_inputs() {
  if (!can_redo()) return false;
  std::vector<Inputs>& r = redo_[current_lesson().id];
  const Inputs again = std::move(r.back());
  r.pop_back();
  push_undo(in_use_);
  restore_inputs(again);
  note(Severity::info, "Redone: the inputs of the change undone are back.");
  return true;
}

bool AppState::reset_inputs() {
  const Inputs example = example_inputs(lesson);
  if (example == in_use_ && input_error.empty()) return false;
  const Inputs before = in_use_;
  restore_inputs(example);
  if (in_use_ != before) {
    push_undo(before);
    redo_[current_lesson().id].clear();
  }
  note(Severity::info, "The lesson's own example is back (Ctrl+Z undoes).");
  return true;
}

bool AppState::revert_inputs() {
  if (input_error.empty()) return false;
  inputs = job.active() ? pending_inputs_ : in_use_;
  input_error.clear();
  compare.dirty = true;
  note(Severity::info, "The inputs in use are back in the form.");
  return true;
}

}  // namespace flashstep::ui
