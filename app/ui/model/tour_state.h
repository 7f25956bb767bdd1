// The guided tour in the window (core/tour.h for the format): which tour is shown (the lesson's
// own, or a tour file opened from File ▸ Open tour… for that lesson), which stop, where each
// stop lands in the recording on screen, and the words the tour panel shows. No ImGui: the
// panel (app/ui/panels/panel_tour.cpp) draws what this says, tests/app/test_tour.cpp checks it.
#pragma once

#include "core/recording.h"
#include "core/tour.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace flashstep::ui {

class AppState;

struct TourState {
  bool on = false;  // the tour is shown (View ▸ Tour, the timeline's Tour button)
  int stop = 0;     // the current stop's index in the tour
  // A tour file that replaces its lesson's tour until the lesson's own is chosen again.
  std::optional<Tour> file;
  std::string file_name;
  // Stops skipped on the way to the current one (their events do not happen in this recording):
  // the panel says so.
  std::vector<int> skipped;
  // The steps of the stops in the recording they were found in, for that lesson and tour.
  std::shared_ptr<const Recording> steps_of;
  int steps_lesson = -1;
  int generation = 0, steps_generation = -1;  // counts tour files opened and dropped
  std::vector<int> steps;
};

// Each stop's step in `rec` (core/tour.h's event_step), −1 where its event does not happen.
std::vector<int> tour_stop_steps(const Recording& rec, const Tour& tour);
// The stop after (dir = +1) or before (−1) `from` whose event happens, skipping the others into
// `skipped`; −1 when there is none that way.
int next_tour_stop(const std::vector<int>& steps, int from, int dir, std::vector<int>* skipped = nullptr);
// "stop 4 (the first overflow) does not happen with these inputs".
std::string skipped_note(const Tour& tour, int stop);

// What the tour panel shows at the current stop.
struct TourView {
  int stop = 0, count = 0;   // "stop k of K": stop + 1 of count
  int step = -1;             // the stop's step; −1: its event does not happen
  bool at_stop = false;      // the playhead is on the stop's step: its target is outlined
  std::string text;          // the stop's text, placeholders filled
  std::string takeaway;      // shown at the last stop
  std::vector<std::string> notes;  // the stops skipped on the way here
  std::string source;        // "tour file lecture.json" when a file replaced the lesson's tour
};

// The tour shown for the current lesson: the file's when it is for this lesson, else the
// lesson's own (empty when the lesson has none).
const Tour& shown_tour(const AppState& app);
// Turns the tour on at its first stop that happens (playhead there), or off.
void set_tour(AppState& app, bool on);
// Next (+1) / previous (−1) stop; the playhead goes to its step. False at either end.
bool tour_step(AppState& app, int dir);
// Stop k (from 0) of the tour, or the nearest after it whose event happens; false when none does.
bool go_to_tour_stop(AppState& app, int k);
// The steps of the shown tour's stops in the recording on screen (recomputed when it changes).
const std::vector<int>& tour_steps(AppState& app);
TourView tour_view(AppState& app);

// Reads a tour file and, when it is good and names a lesson, opens that lesson with it (its
// stops checked against its recording). A bad file: one line in the status bar, nothing changed.
bool open_tour_file(AppState& app, const std::string& path);
// Back to the lesson's own tour.
void drop_tour_file(AppState& app);

}  // namespace flashstep::ui
