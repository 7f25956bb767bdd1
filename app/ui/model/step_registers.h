// The m and l of each step's own row as they stand right after that step: what the Steps tab
// shows in every row, whatever the playhead. One forward sweep of a cursor over the recording.
// No ImGui: tests/app/test_step_registers.cpp checks it against values worked out from the input.
#pragma once

#include "core/recording.h"

#include <optional>
#include <string>
#include <vector>

namespace flashstep::ui {

// The row a step is about: its softmax or query row, the first row of its tile; a step about
// no row (the backward's key steps, a K/V block written back) -1 where the recording has
// several rows, else 0.
int step_register_row(const Recording& rec, const Step& st);
// Whether the recording's m and l have several rows, so that the Steps tab says whose it shows.
bool several_register_rows(const Recording& rec);

// The step columns of core's step_columns(): m and l, then the others the recording declares.
struct StepRegisters {
  // Per step; nullopt where the recording has no such buffer or the value is not defined yet.
  std::vector<std::optional<double>> m, l;
  struct Column {
    std::string name;
    std::vector<std::optional<double>> values;
  };
  std::vector<Column> more;  // after m and l
  std::vector<int> row;      // per step: the row they are read at (step_register_row)
};
StepRegisters step_registers(const Recording& rec);

// What row `step` of the Steps tab shows with the playhead at `playhead`: that step's own m and l
// for steps up to the playhead; steps after it have not happened yet and show nothing.
struct StepRow {
  bool shown = false;
  int row = -1;  // the row m and l are of, from 0; -1: none
  std::optional<double> m, l;
  std::vector<std::optional<double>> more;  // StepRegisters::more's, in order
};
StepRow step_row(const StepRegisters& regs, int step, int playhead);

}  // namespace flashstep::ui
