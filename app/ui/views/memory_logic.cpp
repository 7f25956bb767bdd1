// What the memory panel reasons about: the regions a step names, what sits on chip, the tile
// budget and the recording's shape for another algorithm (view_logic.h).
#include "app/ui/views/view_logic.h"

#include "core/algorithms.h"
#include "core/text.h"

#include <algorithm>

namespace flashstep::ui {

// ---- [SECTION] memory -----------------------------------------------------------------------

long long region_elements(const Region& g) {
  return static_cast<long long>(std::max(g.r1 - g.r0, 0)) * std::max(g.c1 - g.c0, 0);
}

// Named by the buffer's declarations (core/recording.h), not its name: a block by its rows' role,
// a row of a one-letter input of features as the papers name vectors (q₃, k₃), a partial sum
// with its superscript.
std::string region_name(const Recording& rec, const Step& step, const Region& g) {
  const BufferInfo& b = rec.buffers[g.buffer];
  const std::string& n = b.name;
  const std::string& sym = b.shown();
  const bool one_row = g.r1 - g.r0 == 1, whole_cols = g.c0 == 0 && g.c1 == b.cols;
  const bool one_cell = one_row && g.c1 - g.c0 == 1;
  const bool key_rows = b.row_axis == Axis::key, scores = b.row_axis == Axis::query && b.col_axis == Axis::key;
  if (step.tile_i >= 0 || step.tile_j >= 0) {
    const std::string i = sub(step.tile_i + 1), j = sub(step.tile_j + 1);
    if (!b.partial.empty()) {  // after the other role's block k, or after the last when the block is done
      const int k = key_rows ? (step.tile_i >= 0 ? step.tile_i + 1 : rec.Tr) : (step.tile_j >= 0 ? step.tile_j + 1 : rec.Tc);
      return strf("%s%s^{(%d)} (%s)", sym.c_str(), (key_rows ? j : i).c_str(), k, b.partial.c_str());
    }
    // The block index of the rows' role: a key-row buffer's tile is K_j, a score's S_ij.
    if (key_rows) return sym + j;
    if (scores) return sym + i + j;
    return sym + i;
  }
  if (n == "m_tree" || n == "l_tree") {
    // m and l of a node always travel together: one name for both.
    if (one_cell && g.c0 < rec.chunks) return strf("(m, l) of worker %d", g.c0 + 1);
    if (g.c0 == b.cols - 1) return "global (m, l)";
    return strf("(m, l) of merge %d", g.c0 - rec.chunks + 1);
  }
  if (b.row_axis != Axis::none) {  // rows are queries or keys: q₃, k₃, O₃
    if (g.r0 == 0 && g.r1 == b.rows && whole_cols) return n;
    if (one_cell && scores) return strf("%s_{%d,%d}", sym.c_str(), g.r0 + 1, g.c0 + 1);
    if (one_row && whole_cols) {
      if (!b.partial.empty()) return sym + sub(g.r0 + 1) + (key_rows ? "^{(i)}" : "^{(j)}") + " (accumulator)";
      // A row of an input of one letter, a matrix of features, is a vector, in lower case as the
      // papers and the pseudocode write qᵢ, kⱼ, vⱼ; what the steps write keeps its capital as the
      // narration writes it (Oᵢ = Oᵢ⁽ᴺ⁾ / l), and a longer name its letters (dOᵢ).
      if (!b.written && b.col_axis == Axis::feature && sym.size() == 1 && sym[0] >= 'A' && sym[0] <= 'Z')
        return std::string(1, static_cast<char>(sym[0] - 'A' + 'a')) + sub(g.r0 + 1);
      return sym + sub(g.r0 + 1);
    }
  } else if (one_cell) {
    if (b.cols == 1) return n;
    return n + sub(g.c0 + 1);
  }
  // 1-based ranges; a range of one index is that index (dS[1..8, 8], not dS[1..8, 8..8]).
  auto range = [](int lo, int hi) { return hi - lo == 1 ? strf("%d", hi) : strf("%d..%d", lo + 1, hi); };
  return n + "[" + range(g.r0, g.r1) + ", " + range(g.c0, g.c1) + "]";
}

namespace {

// A region the step before read or wrote is still on chip.
bool still_on_chip(const Step* before, const Region& g) {
  if (!before) return false;
  for (const auto* list : {&before->reads, &before->writes})
    for (const Region& b : *list)
      if (b == g) return true;
  return false;
}

}  // namespace

bool hbm_read(const Recording& rec, const Step* before, const Region& g) {
  return rec.buffers[static_cast<std::size_t>(g.buffer)].space == Space::hbm && !still_on_chip(before, g);
}

bool hbm_written(const Recording& rec, const Step& step, const Region& g) {
  return rec.buffers[static_cast<std::size_t>(g.buffer)].space == Space::hbm && !step.keeps(g);
}

std::vector<OnChip> on_chip(const Recording& rec, const Step& step, const Step* before) {
  std::vector<OnChip> out;
  auto find = [&](const Region& g) -> OnChip* {
    for (OnChip& o : out)
      if (o.region == g) return &o;
    return nullptr;
  };
  auto add = [&](const Region& g, bool loaded, bool back, const Step& named_by) {
    if (OnChip* o = find(g)) {
      o->loaded |= loaded;
      o->written_back |= back;
      return;
    }
    const std::string name = region_name(rec, named_by, g);
    for (OnChip& o : out)
      if (o.name == name && o.buffer != g.buffer) {  // the l of an (m, l) pair already listed
        o.elements += region_elements(g);
        o.loaded |= loaded;
        o.written_back |= back;
        return;
      }
    OnChip o;
    o.name = name;
    o.buffer = g.buffer;
    o.region = g;
    o.elements = region_elements(g);
    o.loaded = loaded;
    o.written_back = back;
    o.space = rec.buffers[g.buffer].space;
    out.push_back(std::move(o));
  };
  for (const Region& g : step.reads) add(g, hbm_read(rec, before, g), false, step);
  for (const Region& g : step.writes) add(g, false, hbm_written(rec, step, g), step);
  // A held partial sum is still the one of the blocks before this one: O₂⁽¹⁾ while S₂₂ is
  // computed, O₂⁽²⁾ once the part that updates it is done.
  for (const Region& g : step.held) {
    Step earlier = step;
    int& block = rec.buffers[static_cast<std::size_t>(g.buffer)].row_axis == Axis::key ? earlier.tile_i : earlier.tile_j;
    if (block > 0) --block;
    add(g, false, false, earlier);
  }
  return out;
}

const TileShape& step_tile(const Recording& rec, const Step* step) {
  const AlgorithmInfo& row = info(rec.algorithm);
  if (row.runs_after && step && step->line > 0 && step->line <= own_line_offset(rec.algorithm))
    return info(*row.runs_after).tile;
  return row.tile;
}

void paper_blocks(int M, int N, int d, int& Br, int& Bc) {
  if (d <= 0 || N <= 0 || M <= 0) {
    Br = Bc = 0;
    return;
  }
  const SramBlocks b = sram_blocks(M, d);
  Bc = std::min(b.Bc, N);
  Br = std::min(b.Br, N);
}

Resolved comparable(const Recording& rec, Algorithm a) {
  Resolved r;
  r.scenario.algorithm = a;
  r.scenario.precision = rec.precision;
  rec.mask.ask_in(r.scenario);
  r.rows = rec.rows;
  r.n = rec.n;
  r.d = rec.d;
  r.scale = rec.scale;
  r.chunks = std::max(rec.chunks, 1);
  // The recording's parameters; one that `a` does not take is dropped (resolve() would refuse it).
  for (const auto& [key, value] : rec.params)
    if (const ParamDecl* p = find_param(key); p && takes(a, *p)) r.scenario.params[key] = value;
  if (rec.Br > 0 && rec.Bc > 0) {
    r.Br = rec.Br;
    r.Bc = rec.Bc;
  } else {
    paper_blocks(kDefaultSram, rec.n, rec.d, r.Br, r.Bc);
  }
  r.Tr = r.Br > 0 ? (r.n + r.Br - 1) / r.Br : 0;
  r.Tc = r.Bc > 0 ? (r.n + r.Bc - 1) / r.Bc : 0;
  return r;
}

}  // namespace flashstep::ui
