// Finding steps in a Recording: the step that wrote a cell, the first that read it, and the
// "Go to…" box's words (a step, a pass, a row, a tile). Plain functions of the Recording, so
// the window's clicks and keys, and the tests, ask the same thing.
//
// Everything here is counted as the window shows it: steps, passes, rows and tiles from 1.
#pragma once

#include "core/recording.h"

#include <string>
#include <string_view>

namespace flashstep {

// The step that last wrote cell (r, c) of `buffer` at or before step `upto` (the playhead),
// by the steps' write regions. When nothing has written it yet (the playhead is before its
// first write), the first step that writes it: a click then goes to where the value shown will
// come from. −1 when no step writes it (an input). One scan of the steps' regions: no index
// is built, so a click on a recording of 10⁶ steps costs one pass over them.
int last_writer(const Recording& rec, int buffer, int r, int c, int upto);

// The first step that reads cell (r, c) of `buffer`; −1 when no step reads it.
int first_reader(const Recording& rec, int buffer, int r, int c);

// What "Go to…" understood: the step (0-based) to show, or the message naming the problem.
struct GoTo {
  int step = -1;      // −1 with `error` set
  std::string error;  // one line
  std::string what;   // what was found, for the status line: "pass 2 (normalize)"
  bool ok() const { return step >= 0; }
};

// Reads "12" / "step 12" (steps count from 1), "pass 2" or a pass's name ("normalize": its
// first step), "row 3" (the row's first step), "tile (1, 2)" / "(1,2)" / "tile 1 2" (the
// first step of tile i = 1, j = 2). Anything else is refused with a message naming it.
GoTo parse_go_to(const Recording& rec, std::string_view text);

}  // namespace flashstep
