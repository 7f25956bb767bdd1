#include "core/recorder.h"
#include "core/engine.h"
#include "core/recording.h"

#include <algorithm>
#include <cmath>

namespace flashstep {

std::string_view space_name(Space s) {
  switch (s) {
    case Space::hbm: return "HBM";
    case Space::sram: return "SRAM";
    case Space::reg: return "register";
  }
  return "?";
}

int Recording::find_buffer(std::string_view name) const {
  for (std::size_t i = 0; i < buffers.size(); ++i)
    if (buffers[i].name == name) return static_cast<int>(i);
  return -1;
}

const MatrixResult* Results::find_matrix(std::string_view name) const {
  for (const MatrixResult& r : matrices)
    if (r.name == name) return &r;
  return nullptr;
}

const RowResult* Results::find_row(std::string_view name) const {
  for (const RowResult& r : rows)
    if (r.name == name) return &r;
  return nullptr;
}

MatrixRM& Results::matrix(std::string_view name, std::string_view group) {
  for (MatrixResult& r : matrices)
    if (r.name == name) return r.values;
  matrices.push_back({std::string(name), std::string(group), {}});
  return matrices.back().values;
}

std::vector<double>& Results::row(std::string_view name) {
  for (RowResult& r : rows)
    if (r.name == name) return r.values;
  rows.push_back({std::string(name), {}});
  return rows.back().values;
}

namespace {
const MatrixRM kNoMatrix;
const std::vector<double> kNoRows;

const std::vector<double>& row_or_empty(const Results& r, std::string_view name) {
  const RowResult* found = r.find_row(name);
  return found ? found->values : kNoRows;
}
}  // namespace

const MatrixRM& Recording::output() const {
  const MatrixResult* found = results.find_matrix("output");
  return found ? found->values : kNoMatrix;
}
const std::vector<double>& Recording::m() const { return row_or_empty(results, "m"); }
const std::vector<double>& Recording::l() const { return row_or_empty(results, "l"); }
const std::vector<double>& Recording::lse() const { return row_or_empty(results, "lse"); }

static std::size_t state_bytes(const State& s) {
  std::size_t b = 0;
  for (const auto& v : s.values) b += v.capacity() * sizeof(double);
  for (const auto& v : s.defined) b += v.capacity();
  return b;
}

std::size_t Recording::memory_bytes() const {
  std::size_t b = sizeof(*this) + state_bytes(initial);
  for (const auto& k : keyframes) b += state_bytes(k);
  b += deltas.capacity() * sizeof(Delta);
  for (const auto& s : steps)
    b += sizeof(Step) + s.label.capacity() + s.text.capacity() +
         (s.reads.capacity() + s.writes.capacity()) * sizeof(Region) +
         s.parts.capacity() * sizeof(StepPart);
  for (const auto& s : steps)
    for (const auto& p : s.parts) b += p.text.capacity();
  for (const MatrixResult& r : results.matrices) b += static_cast<std::size_t>(r.values.size()) * sizeof(double);
  for (const RowResult& r : results.rows) b += r.values.capacity() * sizeof(double);
  return b;
}

long long Recording::count_nonfinite_outputs() const {
  long long count = 0;
  const MatrixRM& out = output();
  for (Eigen::Index i = 0; i < out.size(); ++i)
    if (!std::isfinite(out.data()[i])) ++count;
  return count;
}

// ---- Recorder -----------------------------------------------------------------------------

Recorder::Recorder(Recording& rec, bool keep_steps) : rec_(rec) { rec_.keep_steps = keep_steps; }

void Recorder::reserve(long long steps, long long deltas) {
  if (!on()) return;
  rec_.steps.reserve(static_cast<std::size_t>(std::max(0ll, steps)));
  rec_.deltas.reserve(static_cast<std::size_t>(std::max(0ll, deltas)));
}

int Recorder::add_buffer(BufferInfo info) {
  const std::size_t cells = static_cast<std::size_t>(info.rows) * info.cols;
  rec_.buffers.push_back(std::move(info));
  if (on()) {
    rec_.initial.values.emplace_back(cells, 0.0);
    rec_.initial.defined.emplace_back(cells, 0);
    current_.values.emplace_back(cells, 0.0);
    current_.defined.emplace_back(cells, 0);
    // A buffer declared after steps were taken (a backward's, after its forward) is in the
    // keyframes taken so far too, as it was then: its initial contents. A seek restores them whole.
    for (State& k : rec_.keyframes) {
      k.values.emplace_back(cells, 0.0);
      k.defined.emplace_back(cells, 0);
    }
    cells_ += cells;
  }
  return static_cast<int>(rec_.buffers.size()) - 1;
}

void Recorder::init(int b, int r, int c, double v) {
  if (!on()) return;
  const std::size_t i = static_cast<std::size_t>(r) * rec_.buffers[b].cols + c;
  rec_.initial.values[b][i] = current_.values[b][i] = v;
  rec_.initial.defined[b][i] = current_.defined[b][i] = 1;
  for (State& k : rec_.keyframes) k.values[b][i] = v, k.defined[b][i] = 1;
}

void Recorder::init(int b, const MatrixRM& values) {
  if (!on()) return;
  for (int r = 0; r < values.rows(); ++r)
    for (int c = 0; c < values.cols(); ++c) init(b, r, c, values(r, c));
}

void Recorder::set(int b, int r, int c, double v, bool defined) {
  const std::uint32_t i = static_cast<std::uint32_t>(r * rec_.buffers[b].cols + c);
  double& cur = current_.values[b][i];
  std::uint8_t& cur_def = current_.defined[b][i];
  rec_.deltas.push_back(Delta{static_cast<std::uint32_t>(b), i, v, cur, defined, cur_def != 0});
  cur = v;
  cur_def = defined ? 1 : 0;
}

void Recorder::write(int b, int r, int c, double v) {
  if (on()) set(b, r, c, v, true);
}

void Recorder::undefine(int b, int r, int c) {
  if (on()) set(b, r, c, 0.0, false);
}

void Recorder::watch(const std::atomic<bool>* cancel, std::atomic<float>* progress,
                     long long expected_steps, float from) {
  cancel_ = cancel;
  progress_ = progress;
  expected_steps_ = expected_steps;
  from_ = from;
}

void Recorder::end_part(Step& step, int line, int line_end, std::string text) {
  if (!on()) return;
  step.parts.push_back({line, std::max(line, line_end), static_cast<std::uint32_t>(rec_.deltas.size()),
                        std::move(text)});
}

void Recorder::commit(Step step) {
  if (!on()) return;
  if (cancel_ && cancel_->load(std::memory_order_relaxed)) throw Cancelled();
  if (progress_ && expected_steps_ > 0 && (rec_.steps.size() & 255) == 0)
    progress_->store(from_ + (1.0f - from_) * std::min(1.0f, static_cast<float>(rec_.steps.size()) /
                                                               static_cast<float>(expected_steps_)),
                     std::memory_order_relaxed);
  for (const Region& g : step.writes)
    if (g.buffer >= 0 && static_cast<std::size_t>(g.buffer) < rec_.buffers.size())
      rec_.buffers[static_cast<std::size_t>(g.buffer)].written = true;
  step.io = rec_.io;
  step.delta_end = static_cast<std::uint32_t>(rec_.deltas.size());
  if (step.line_end < step.line) step.line_end = step.line;
  if (step.parts.size() == 1) step.parts.clear();  // one part is the step itself
  if (!step.parts.empty()) step.parts.back().delta_end = step.delta_end;
  rec_.steps.push_back(std::move(step));
  // A keyframe whenever the deltas since the last one outweigh one full state: seeking then
  // never replays more than about one state's worth of writes, and keyframes cost at most as
  // much memory as the deltas themselves.
  if (rec_.deltas.size() - deltas_at_keyframe_ >= std::max<std::size_t>(cells_, 1024)) {
    rec_.keyframes.push_back(current_);
    rec_.keyframe_steps.push_back(rec_.step_count() - 1);
    deltas_at_keyframe_ = rec_.deltas.size();
  }
}

// ---- Cursor -------------------------------------------------------------------------------

Cursor::Cursor(const Recording& rec) : rec_(&rec), state_(rec.initial) {}

void Cursor::apply_forward(int step) {
  const auto begin = rec_->delta_begin(step), end = rec_->steps[step].delta_end;
  for (auto i = begin; i < end; ++i) {
    const Delta& d = rec_->deltas[i];
    state_.values[d.buffer][d.index] = d.value;
    state_.defined[d.buffer][d.index] = d.defined;
  }
}

void Cursor::apply_backward(int step) {
  const auto begin = rec_->delta_begin(step), end = rec_->steps[step].delta_end;
  for (auto i = end; i > begin; --i) {
    const Delta& d = rec_->deltas[i - 1];
    state_.values[d.buffer][d.index] = d.old;
    state_.defined[d.buffer][d.index] = d.old_defined;
  }
}

int normal_part(const Recording& rec, int k, int part) {
  if (k < 0 || k >= rec.step_count()) return -1;
  const int parts = static_cast<int>(rec.steps[static_cast<std::size_t>(k)].parts.size());
  return part >= 0 && part < parts - 1 ? part : -1;
}

Step step_as_of_part(const Recording& rec, int k, int part) {
  Step st = rec.steps[static_cast<std::size_t>(k)];
  part = normal_part(rec, k, part);
  if (part < 0) return st;
  std::vector<bool> written(rec.buffers.size(), false);
  for (auto i = rec.delta_begin(k); i < st.parts[static_cast<std::size_t>(part)].delta_end; ++i)
    written[rec.deltas[i].buffer] = true;
  auto later = std::stable_partition(st.writes.begin(), st.writes.end(),
                                     [&](const Region& g) { return written[static_cast<std::size_t>(g.buffer)]; });
  // A region written later is held on chip now when its buffer lives there (or the step keeps it
  // there) and its cells had a value before the step: the first delta of a cell in the step
  // knows (no earlier part wrote the buffer).
  for (auto it = later; it != st.writes.end(); ++it) {
    const Region& g = *it;
    const BufferInfo& b = rec.buffers[static_cast<std::size_t>(g.buffer)];
    if (b.space == Space::hbm && !st.keeps(g)) continue;
    // Held when every cell of the region that the step writes had a value before its first write.
    std::vector<bool> seen(static_cast<std::size_t>(g.r1 - g.r0) * static_cast<std::size_t>(g.c1 - g.c0), false);
    bool had_value = true, any = false;
    for (auto i = st.parts[static_cast<std::size_t>(part)].delta_end; i < st.delta_end; ++i) {
      const Delta& dl = rec.deltas[i];
      const int r = static_cast<int>(dl.index) / b.cols, c = static_cast<int>(dl.index) % b.cols;
      if (static_cast<int>(dl.buffer) != g.buffer || r < g.r0 || r >= g.r1 || c < g.c0 || c >= g.c1) continue;
      const std::size_t at = static_cast<std::size_t>(r - g.r0) * static_cast<std::size_t>(g.c1 - g.c0) +
                             static_cast<std::size_t>(c - g.c0);
      if (seen[at]) continue;
      seen[at] = true;
      any = true;
      had_value &= dl.old_defined;
    }
    if (any && had_value) st.held.push_back(g);
  }
  st.writes.erase(later, st.writes.end());
  return st;
}

void Cursor::seek(int k, int part) {
  k = std::clamp(k, -1, rec_->step_count() - 1);
  part = normal_part(*rec_, k, part);
  if (k == position() && part == part_) return;
  if (part_ >= 0) {  // undo the part shown on top of pos_
    const auto begin = rec_->delta_begin(pos_ + 1);
    for (auto i = rec_->steps[pos_ + 1].parts[part_].delta_end; i > begin; --i) {
      const Delta& d = rec_->deltas[i - 1];
      state_.values[d.buffer][d.index] = d.old;
      state_.defined[d.buffer][d.index] = d.old_defined;
    }
    part_ = -1;
  }
  if (part < 0) return seek_whole(k);
  seek_whole(k - 1);
  const auto end = rec_->steps[k].parts[part].delta_end;
  for (auto i = rec_->delta_begin(k); i < end; ++i) {
    const Delta& d = rec_->deltas[i];
    state_.values[d.buffer][d.index] = d.value;
    state_.defined[d.buffer][d.index] = d.defined;
  }
  part_ = part;
}

void Cursor::seek_whole(int k) {
  if (k == pos_) return;
  // Far jumps restart from the nearest keyframe at or before k; near ones walk the deltas.
  const auto kf = std::upper_bound(rec_->keyframe_steps.begin(), rec_->keyframe_steps.end(), k);
  const int kf_step = kf == rec_->keyframe_steps.begin() ? -1 : *(kf - 1);
  const bool near = (k > pos_ && kf_step <= pos_) || (k < pos_ && pos_ - k <= k - kf_step);
  if (!near) {
    state_ = kf_step < 0 ? rec_->initial
                         : rec_->keyframes[static_cast<std::size_t>(kf - rec_->keyframe_steps.begin() - 1)];
    pos_ = kf_step;
  }
  while (pos_ < k) apply_forward(++pos_);
  while (pos_ > k) apply_backward(pos_--);
}

double Cursor::value(int b, int r, int c) const {
  return state_.values[b][static_cast<std::size_t>(r) * rec_->buffers[b].cols + c];
}

bool Cursor::defined(int b, int r, int c) const {
  return state_.defined[b][static_cast<std::size_t>(r) * rec_->buffers[b].cols + c] != 0;
}

State replay(const Recording& rec, int k) {
  State s = rec.initial;
  const std::uint32_t end = k < 0 ? 0 : rec.steps[k].delta_end;
  for (std::uint32_t i = 0; i < end; ++i) {
    const Delta& d = rec.deltas[i];
    s.values[d.buffer][d.index] = d.value;
    s.defined[d.buffer][d.index] = d.defined;
  }
  return s;
}

std::vector<StepColumn> step_columns(const Recording& rec) {
  std::vector<StepColumn> out = {{"m", rec.find_buffer("m")}, {"l", rec.find_buffer("l")}};
  for (int b = 0; b < static_cast<int>(rec.buffers.size()); ++b)
    if (rec.buffers[static_cast<std::size_t>(b)].step_column && b != out[0].buffer && b != out[1].buffer)
      out.push_back({rec.buffers[static_cast<std::size_t>(b)].name, b});
  return out;
}

std::vector<int> pass_starts(const Recording& rec) {
  std::vector<int> starts;
  for (int i = 0; i < rec.step_count(); ++i)
    if (i == 0 || rec.steps[i].pass != rec.steps[i - 1].pass ||
        rec.steps[i].row != rec.steps[i - 1].row)
      starts.push_back(i);
  return starts;
}

}  // namespace flashstep
