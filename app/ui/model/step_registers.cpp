#include "app/ui/model/step_registers.h"

namespace flashstep::ui {

bool several_register_rows(const Recording& rec) {
  for (const StepColumn& c : step_columns(rec))
    if (c.buffer >= 0 && rec.buffers[static_cast<std::size_t>(c.buffer)].rows > 1) return true;
  return false;
}

int step_register_row(const Recording& rec, const Step& st) {
  if (st.row >= 0) return st.row;
  if (st.tile_i >= 0) return st.tile_i * rec.Br;
  return several_register_rows(rec) ? -1 : 0;
}

StepRegisters step_registers(const Recording& rec) {
  StepRegisters out;
  const int count = rec.step_count();
  out.m.resize(static_cast<std::size_t>(count));
  out.l.resize(static_cast<std::size_t>(count));
  out.row.assign(static_cast<std::size_t>(count), -1);
  const std::vector<StepColumn> columns = step_columns(rec);
  const int bm = columns[0].buffer, bl = columns[1].buffer;
  for (std::size_t c = 2; c < columns.size(); ++c)
    out.more.push_back({columns[c].name, std::vector<std::optional<double>>(static_cast<std::size_t>(count))});
  if (count == 0 || (columns.size() == 2 && bm < 0 && bl < 0)) return out;
  Cursor cur(rec);
  auto read = [&](int buffer, int row) -> std::optional<double> {
    if (buffer < 0 || row < 0 || row >= rec.buffers[static_cast<std::size_t>(buffer)].rows) return std::nullopt;
    if (!cur.defined(buffer, row, 0)) return std::nullopt;
    return cur.value(buffer, row, 0);
  };
  for (int k = 0; k < count; ++k) {
    cur.seek(k);
    const int row = step_register_row(rec, rec.steps[static_cast<std::size_t>(k)]);
    out.row[static_cast<std::size_t>(k)] = row;
    out.m[static_cast<std::size_t>(k)] = read(bm, row);
    out.l[static_cast<std::size_t>(k)] = read(bl, row);
    for (std::size_t c = 2; c < columns.size(); ++c)
      out.more[c - 2].values[static_cast<std::size_t>(k)] = read(columns[c].buffer, row);
  }
  return out;
}

StepRow step_row(const StepRegisters& regs, int step, int playhead) {
  StepRow r;
  if (step < 0 || step > playhead || step >= static_cast<int>(regs.m.size())) return r;
  r.shown = true;
  r.row = regs.row[static_cast<std::size_t>(step)];
  r.m = regs.m[static_cast<std::size_t>(step)];
  r.l = regs.l[static_cast<std::size_t>(step)];
  for (const auto& c : regs.more) r.more.push_back(c.values[static_cast<std::size_t>(step)]);
  return r;
}

}  // namespace flashstep::ui
