// A lesson's guided tour: stops, each anchored to an event of the recording (never to a step
// index, which breaks as soon as N or the input changes), pointing at an element on screen and
// saying in two or three sentences what to notice there; then the takeaway in one line.
//
// In a lesson file (assets/lessons/<id>.json), or in a tour file of its own with "lesson": ID:
//   "tour": {"stops": [{"at": "first rescale", "point": {"register": "m"},
//                       "text": "m grows from {m_old} to {m}: l is multiplied by {factor}."}, ...],
//            "takeaway": "one line"}
//
// Events ("at"), resolved from the Recording alone (its steps, passes, buffers and deltas):
//   "first step", "last step", "pass K begins" (K as the timeline numbers passes), "last pass
//   begins", "row R begins", "tile (I, J)" (Step::tile_i/j, numbered from 1), "first rescale"
//   (m of a row changes after it held a finite value; "first rescale of B" for buffer B),
//   "change K of B" (the K-th step that changes a cell of B), "first write of B" (a write kept on
//   chip, Step::kept, is not one), "first overflow" (the first step that writes +∞ or nan).
// Targets ("point"): {"buffer": B, "cells": "written" | "read" | "row" | "tile" | "all" |
//   "event"} (default "written": what the step writes of B; "event": the cell that made the
//   rescale, change or overflow), {"register": "m"}, {"memory": "HBM" |
//   "SRAM"}, {"panel": "View" | "Pseudocode" | "Memory"}, {"line": "step"} (the step's
//   pseudocode line).
// Placeholders in the text, filled from the recording at the stop's step, for the stop's row:
//   {m} {m_old} {l} {l_old} {factor} (e^{m_old − m}) {x} {i} (the element of x the step reads
//   and its index) {tile} {step} {pass} {row} {N} {hbm} (HBM accesses so far). Braces after ^ or
//   _ are markup (e^{x}), not placeholders.
#pragma once

#include "core/recording.h"
#include "core/report.h"  // Json

#include <string>
#include <vector>

namespace flashstep {

struct TourEvent {
  enum class Kind {
    first_step,
    last_step,
    pass_begins,
    last_pass_begins,
    row_begins,
    tile,
    first_rescale,
    change,
    first_write,
    first_overflow
  };
  Kind kind = Kind::first_step;
  int k = 0;           // pass K, row R, change K (from 1)
  int i = 0, j = 0;    // tile (I, J), from 1
  std::string buffer;  // first rescale ("m"), change, first write
  std::string text;    // as written in the file
};

struct TourTarget {
  enum class Kind { buffer, reg, memory, panel, line };
  enum class Cells { written, read, row, tile, all, event };
  Kind kind = Kind::panel;
  Cells cells = Cells::written;
  std::string name;  // the buffer, register, memory box or panel
};

struct TourStop {
  TourEvent at;
  TourTarget point;
  std::string text;  // markup with placeholders
};

struct Tour {
  std::vector<TourStop> stops;
  std::string takeaway;
  std::string lesson;  // a tour file's "lesson"; empty in a lesson file
  bool empty() const { return stops.empty(); }
};

// The forms "at" accepts, for messages and the README.
const char* tour_event_forms();

// The tour object at `where` (a message prefix: "assets/lessons/online.json: tour"); throws
// InputError "<where>.stops[3].at = "pass x": ..." naming the stop and the field.
Tour parse_tour(const Json& j, const std::string& where);
// A tour file: {"lesson": ID, "stops": [...], "takeaway": ...}; `name` starts each message.
Tour parse_tour_file(const std::string& name, const std::string& text);
// What a recording must have for the tour: the buffers its events, targets and placeholders
// name, and passes within a row's fixed passes. Throws InputError "<where>.stops[k].<field> ...".
void check_tour(const Tour& tour, const Recording& rec, const std::string& where);

// The step where the event happens in `rec`, -1 when it does not happen there.
int event_step(const Recording& rec, const TourEvent& e);
// "the first overflow", "pass 2", "tile (1, 2)": the event as a sentence names it.
std::string event_phrase(const TourEvent& e);

// The cells a target points at, at step k: buffer −1 for a target that is not a buffer's
// (a register, a memory box, a panel or a line keep their name; a line its number in r0).
struct TargetCells {
  int buffer = -1;
  int r0 = 0, r1 = 0, c0 = 0, c1 = 0;
  bool found = false;  // false: the step has no such cells (nothing of B written)
  // "written" and "read": the step's other regions of B after the first (the chunked softmax's
  // workers each write their own (m, l) and y in one step).
  std::vector<Region> also;
};
// `at`: the stop's event, for "cells": "row" (event_row) and "event" (event_cell).
TargetCells target_cells(const Recording& rec, const TourTarget& t, int k, const TourEvent& at);

// The row a stop at step k is about: the step's row, else the first row of its tile, else 0.
int stop_row(const Recording& rec, int k);
// The cell that made event `e` at step k one (a rescale, a change, an overflow: the first such
// cell of the step); found false for the other events.
struct EventCell {
  int buffer = -1, row = 0, col = 0;
  bool found = false;
};
EventCell event_cell(const Recording& rec, const TourEvent& e, int k);
// The row of the stop whose event is `e` at step k: the event cell's row, else stop_row().
int event_row(const Recording& rec, const TourEvent& e, int k);
// The text with its placeholders filled at step k for `row` ("—" where the recording has no
// such value: no m in naive softmax).
std::string fill_tour_text(const Recording& rec, const std::string& text, int k, int row);
// The placeholders a text uses, in order ("m", "factor"); unknown names throw InputError
// "<where>: {name} is not a placeholder; use {m}, ...".
std::vector<std::string> tour_placeholders(const std::string& text, const std::string& where);

}  // namespace flashstep
