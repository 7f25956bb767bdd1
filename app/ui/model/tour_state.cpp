#include "app/ui/model/tour_state.h"

#include "app/files.h"
#include "app/ui/model/app_state.h"
#include "core/engine.h"
#include "core/lessons.h"
#include "core/text.h"

#include <algorithm>
#include <filesystem>

namespace flashstep::ui {

std::vector<int> tour_stop_steps(const Recording& rec, const Tour& tour) {
  std::vector<int> out;
  out.reserve(tour.stops.size());
  for (const TourStop& s : tour.stops) out.push_back(event_step(rec, s.at));
  return out;
}

int next_tour_stop(const std::vector<int>& steps, int from, int dir, std::vector<int>* skipped) {
  if (skipped) skipped->clear();
  for (int k = from + dir; k >= 0 && k < static_cast<int>(steps.size()); k += dir) {
    if (steps[static_cast<std::size_t>(k)] >= 0) return k;
    if (skipped) skipped->push_back(k);
  }
  if (skipped) skipped->clear();
  return -1;
}

std::string skipped_note(const Tour& tour, int stop) {
  if (stop < 0 || stop >= static_cast<int>(tour.stops.size())) return "";
  return strf("stop %d (", stop + 1) + event_phrase(tour.stops[static_cast<std::size_t>(stop)].at) +
         ") does not happen with these inputs";
}

const Tour& shown_tour(const AppState& app) {
  const TourState& t = app.tour;
  if (t.file && t.file->lesson == app.current_lesson().id) return *t.file;
  return app.current_lesson().tour;
}

const std::vector<int>& tour_steps(AppState& app) {
  TourState& t = app.tour;
  if (t.steps_of != app.played.rec || t.steps_lesson != app.lesson || t.steps_generation != t.generation) {
    if (t.steps_lesson >= 0 && (t.steps_lesson != app.lesson || t.steps_generation != t.generation)) {
      t.stop = 0;  // another tour: from its first stop
      t.skipped.clear();
    }
    t.steps_of = app.played.rec;
    t.steps_lesson = app.lesson;
    t.steps_generation = t.generation;
    t.steps = app.played.rec ? tour_stop_steps(*app.played.rec, shown_tour(app)) : std::vector<int>{};
  }
  return t.steps;
}

namespace {

// The playhead at the stop's step. On the Compare tab of a lesson that opens there, Compare's
// playhead (its recordings are the lesson's algorithm); a stop that points into the recording's
// view leaves a lab's tab for the lesson's view, as moving the playhead does.
void show_stop(AppState& app, int stop, const std::vector<int>& steps) {
  const int k = steps[static_cast<std::size_t>(stop)];
  if (app.tab == Tab::compare && app.current_lesson().tab == "compare") {
    app.seek_active(k);
    return;
  }
  app.place_playhead(k);
  if (shown_tour(app).stops[static_cast<std::size_t>(stop)].point.kind != TourTarget::Kind::panel)
    app.timeline_used();
}

}  // namespace

bool go_to_tour_stop(AppState& app, int k) {
  const std::vector<int>& steps = tour_steps(app);
  std::vector<int> skipped;
  const int stop = next_tour_stop(steps, k - 1, +1, &skipped);
  if (stop < 0) return false;
  app.tour.stop = stop;
  app.tour.skipped = skipped;
  show_stop(app, stop, steps);
  return true;
}

void set_tour(AppState& app, bool on) {
  if (!on) {
    app.tour.on = false;
    return;
  }
  if (shown_tour(app).empty()) {
    app.note(Severity::warning, "This lesson has no tour.");
    return;
  }
  app.tour.on = true;
  if (!go_to_tour_stop(app, 0)) app.note(Severity::warning, "None of this tour's stops happens with these inputs.");
}

bool tour_step(AppState& app, int dir) {
  if (!app.tour.on) return false;
  const std::vector<int>& steps = tour_steps(app);
  std::vector<int> skipped;
  const int stop = next_tour_stop(steps, app.tour.stop, dir, &skipped);
  if (stop < 0) return false;
  app.tour.stop = stop;
  app.tour.skipped = skipped;
  show_stop(app, stop, steps);
  return true;
}

TourView tour_view(AppState& app) {
  TourView v;
  const Tour& tour = shown_tour(app);
  const std::vector<int>& steps = tour_steps(app);
  v.count = static_cast<int>(tour.stops.size());
  if (v.count == 0) return v;
  v.stop = std::clamp(app.tour.stop, 0, v.count - 1);
  v.step = steps[static_cast<std::size_t>(v.stop)];
  const TourStop& s = tour.stops[static_cast<std::size_t>(v.stop)];
  const Recording& rec = *app.played.rec;
  const bool compare = app.tab == Tab::compare && app.current_lesson().tab == "compare";
  v.at_stop = v.step >= 0 && (compare ? app.compare.timeline.playhead() == v.step
                                      : app.played.cursor && app.played.cursor->position() == v.step &&
                                            app.played.cursor->part() < 0);
  v.text = v.step >= 0 ? fill_tour_text(rec, s.text, v.step, event_row(rec, s.at, v.step)) : s.text;
  if (v.step < 0) v.notes.push_back(skipped_note(tour, v.stop));
  for (int k : app.tour.skipped) v.notes.push_back(skipped_note(tour, k));
  if (next_tour_stop(steps, v.stop, +1) < 0) v.takeaway = tour.takeaway;
  if (&tour != &app.current_lesson().tour) v.source = "tour file " + app.tour.file_name;
  return v;
}

bool open_tour_file(AppState& app, const std::string& path) {
  const std::string name = std::filesystem::path(path).filename().string();
  std::string text, error;
  if (!read_file(path, text, error)) {
    app.note(Severity::error, name + ": " + error);
    return false;
  }
  try {
    Tour t = parse_tour_file(name, text);
    const Lesson* lesson = find_lesson(t.lesson);
    if (!lesson) throw InputError(name + ": \"lesson\" = \"" + t.lesson + "\": no lesson has that id");
    // Checked against the recording on screen, or for another lesson its example's (the buffers
    // and fixed passes are the algorithm's), before anything changes.
    if (app.current_lesson().id == t.lesson && app.played.rec && app.played.rec->step_count() > 0)
      check_tour(t, *app.played.rec, name + ": tour");
    else
      check_tour(t, record(lesson->scenario), name + ": tour");
    if (app.current_lesson().id != t.lesson) app.open_lesson(t.lesson);
    app.tour.file = std::move(t);
    app.tour.file_name = name;
    ++app.tour.generation;
    app.note(Severity::info, "Tour " + name + " replaces the lesson's own tour (View ▸ Lesson's own tour).");
    set_tour(app, true);
    return true;
  } catch (const InputError& e) {
    app.note(Severity::error, e.what());
    return false;
  }
}

void drop_tour_file(AppState& app) {
  if (!app.tour.file) return;
  app.tour.file.reset();
  app.tour.file_name.clear();
  ++app.tour.generation;
  app.tour.stop = 0;
  app.tour.skipped.clear();
}

}  // namespace flashstep::ui
