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

std::string region_name(const Recording& rec, const Step& step, const Region& g) {
  const BufferInfo& b = rec.buffers[g.buffer];
  const std::string& n = b.name;
  const bool one_row = g.r1 - g.r0 == 1, whole_cols = g.c0 == 0 && g.c1 == b.cols;
  const bool one_cell = one_row && g.c1 - g.c0 == 1;
  if (step.tile_i >= 0 || step.tile_j >= 0) {
    const std::string i = sub(step.tile_i + 1), j = sub(step.tile_j + 1);
    // The block index of the rows' role: a key-row buffer's tile is K_j, a score's S_ij.
    if (b.row_axis == Axis::key) return n + j;
    if (b.row_axis == Axis::query && b.col_axis == Axis::key)
      return (n == "P" ? std::string("\\~P") : n) + i + j;  // markup: the tilde drawn over the tiles' P
    if (n == "O_acc")  // after tile j, or after the last tile when the Q block is done
      return strf("O%s^{(%d)} (not yet divided)", i.c_str(), step.tile_j >= 0 ? step.tile_j + 1 : rec.Tc);
    return n + i;
  }
  if (n == "m_tree" || n == "l_tree") {
    // m and l of a node always travel together: one name for both.
    if (one_cell && g.c0 < rec.chunks) return strf("(m, l) of worker %d", g.c0 + 1);
    if (g.c0 == b.cols - 1) return "global (m, l)";
    return strf("(m, l) of merge %d", g.c0 - rec.chunks + 1);
  }
  if (takes_qkv(rec.algorithm)) {  // rows are queries or keys: q₃, k₃, O₃
    if (g.r0 == 0 && g.r1 == b.rows && whole_cols) return n;
    if (one_cell && (n == "S" || n == "P")) return strf("%s_{%d,%d}", n.c_str(), g.r0 + 1, g.c0 + 1);
    if (one_row && whole_cols) {
      if (n == "Q" || n == "K" || n == "V" || n == "O")
        return std::string(1, static_cast<char>(n[0] - 'A' + 'a')) + sub(g.r0 + 1);
      if (n == "O_acc") return "O" + sub(g.r0 + 1) + "^{(j)} (accumulator)";
      return n + sub(g.r0 + 1);
    }
  } else if (one_cell) {
    if (b.cols == 1) return n;
    return n + sub(g.c0 + 1);
  }
  return strf("%s[%d..%d, %d..%d]", n.c_str(), g.r0 + 1, g.r1, g.c0 + 1, g.c1);
}

std::vector<OnChip> on_chip(const Recording& rec, const Step& step) {
  std::vector<OnChip> out;
  auto same = [](const Region& a, const Region& b) {
    return a.buffer == b.buffer && a.r0 == b.r0 && a.r1 == b.r1 && a.c0 == b.c0 && a.c1 == b.c1;
  };
  auto find = [&](const Region& g) -> OnChip* {
    for (OnChip& o : out)
      if (same(o.region, g)) return &o;
    return nullptr;
  };
  auto add = [&](const Region& g, bool loaded, bool back) {
    if (OnChip* o = find(g)) {
      o->loaded |= loaded;
      o->written_back |= back;
      return;
    }
    const std::string name = region_name(rec, step, g);
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
  for (const Region& g : step.reads) {
    const bool hbm = rec.buffers[g.buffer].space == Space::hbm;
    add(g, hbm, false);
  }
  for (const Region& g : step.writes) add(g, false, rec.buffers[g.buffer].space == Space::hbm);
  return out;
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
  r.scenario.causal = rec.causal;
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
