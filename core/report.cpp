#include "core/report.h"

#include "core/algorithms.h"
#include "core/engine.h"
#include "core/markup.h"

#include <algorithm>
#include <cmath>

namespace flashstep {

Json number_json(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  return x;
}

static Json row_json(const MatrixRM& m, Eigen::Index r) {
  Json row = Json::array();
  for (Eigen::Index c = 0; c < m.cols(); ++c) row.push_back(number_json(m(r, c)));
  return row;
}

static Json list_json(const std::vector<double>& v) {
  Json out = Json::array();
  for (double x : v) out.push_back(number_json(x));
  return out;
}

// A one-row matrix (a softmax of one row) as one list, else a list of rows.
static Json matrix_json(const MatrixRM& m) {
  if (m.rows() == 1) return row_json(m, 0);
  Json rows = Json::array();
  for (Eigen::Index r = 0; r < m.rows(); ++r) rows.push_back(row_json(m, r));
  return rows;
}

// One entry per row of a rows × 1 buffer: its value, or null while undefined.
static Json column_json(const Cursor& cur, int buffer, int rows) {
  Json out = Json::array();
  for (int r = 0; r < rows; ++r)
    out.push_back(buffer < 0 || !cur.defined(buffer, r, 0) ? Json(nullptr)
                                                           : number_json(cur.value(buffer, r, 0)));
  return out;
}

Json recording_json(const Recording& rec, bool include_steps, bool include_output) {
  Json j;
  j["algorithm"] = std::string(algorithm_id(rec.algorithm));
  j["title"] = std::string(algorithm_title(rec.algorithm));
  j["backend"] = rec.backend;
  j["device"] = rec.device;
  j["precision"] = std::string(precision_name(rec.precision));
  j["shape"] = {{"rows", rec.rows}, {"n", rec.n}, {"d", rec.d}};
  j["scale"] = number_json(rec.scale);
  j["causal"] = rec.mask.kind() == Mask::Kind::causal;
  j["mask"] = std::string(rec.mask.name());
  if (takes_qkv(rec.algorithm)) j["heads"] = rec.heads;
  if (rec.Br > 0) j["blocks"] = {{"Br", rec.Br}, {"Bc", rec.Bc}, {"Tr", rec.Tr}, {"Tc", rec.Tc}};
  if (rec.chunks > 0) j["chunks"] = rec.chunks;
  // The parameters declared since format 1 that the algorithm takes (core/params.h).
  if (!rec.params.empty()) {
    Json p = Json::object();
    for (const auto& [key, value] : rec.params) {
      const ParamDecl* decl = find_param(key);
      if (decl && decl->type == ParamType::flag) p[key] = value != 0;
      else p[key] = value;
    }
    j["params"] = std::move(p);
  }
  std::vector<std::string> notices = rec.notices;
  notices.insert(notices.end(), rec.derived.begin(), rec.derived.end());
  j["notices"] = notices;
  // Every matrix result under its name, at the top level ("output") or in its group ("grads").
  if (include_output)
    for (const MatrixResult& m : rec.results.matrices) {
      Json& at = m.group.empty() ? j[m.name] : j[m.group][m.name];
      at = matrix_json(m.values);
    }
  // Every per-row result under "stats". One the algorithm does not compute (naive softmax has
  // no running max) is null in every row.
  std::size_t rows = 0;
  for (const RowResult& r : rec.results.rows) rows = std::max(rows, r.values.size());
  Json stats = Json::object();
  for (const RowResult& r : rec.results.rows)
    stats[r.name] = r.values.empty() ? Json(std::vector<std::nullptr_t>(rows, nullptr)) : list_json(r.values);
  j["stats"] = std::move(stats);
  Json io = Json::object();
  for (const IoCounterInfo& c : kIoCounters) io[std::string(c.key)] = rec.io.*c.field;
  j["io"] = std::move(io);
  j["nonfinite"] = rec.nonfinite;
  j["passes"] = rec.pass_names;
  if (include_steps && rec.keep_steps) {
    Json steps = Json::array();
    Cursor cur(rec);
    // Each step has the step columns: m and l (null where the algorithm has no such buffer),
    // then every other per-row register the recording shows beside its steps.
    const std::vector<StepColumn> columns = step_columns(rec);
    const int bm = columns[0].buffer, bl = columns[1].buffer;
    const int row_count = bm >= 0 ? rec.buffers[bm].rows : (bl >= 0 ? rec.buffers[bl].rows : rec.rows);
    for (int k = 0; k < rec.step_count(); ++k) {
      cur.seek(k);
      const Step& s = rec.steps[k];
      Json st = {{"index", k}, {"pass", s.pass}, {"label", s.label}, {"text", plain_text(s.text)}};
      if (s.tile_i >= 0) st["tile_i"] = s.tile_i;
      if (s.tile_j >= 0) st["tile_j"] = s.tile_j;
      if (s.line > 0) st["lines"] = {s.line, s.line_end};
      if (!s.parts.empty()) {
        Json parts = Json::array();
        for (const StepPart& p : s.parts)
          parts.push_back({{"lines", {p.line, p.line_end}}, {"text", plain_text(p.text)}});
        st["parts"] = std::move(parts);
      }
      for (const StepColumn& col : columns)
        st[col.name] = column_json(cur, col.buffer, col.buffer >= 0 ? rec.buffers[col.buffer].rows : row_count);
      steps.push_back(std::move(st));
    }
    j["steps"] = std::move(steps);
  }
  return j;
}

}  // namespace flashstep
