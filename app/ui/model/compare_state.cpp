// The Compare tab's model: two algorithms recorded on the lesson's input (a GPU side on the
// backend's thread), shown together under one playhead.
#include "app/ui/model/app_state.h"

#include "core/algorithms.h"
#include "core/engine.h"
#include "core/text.h"

#include <algorithm>
#include <utility>

namespace flashstep::ui {

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
      const bool gpu = backends[i] == Backend::gpu && gpu_choice(info(algos[i]), gpu_backend()).enabled;
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
