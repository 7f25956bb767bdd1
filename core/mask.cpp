// The attention mask (core/mask.h).
#include "core/mask.h"

namespace flashstep {

Mask Mask::of(const Resolved& r) { return causal_if(r.scenario.causal, r.n, r.n); }

void Mask::ask_in(Scenario& s) const {
  switch (kind_) {
    case Kind::causal: s.causal = true; return;
    case Kind::none: break;
  }
  s.causal = false;
}

std::string_view Mask::name() const {
  switch (kind_) {
    case Kind::causal: return "causal";
    case Kind::none: break;
  }
  return "none";
}

std::string Mask::hidden_because(int i, int j) const {
  switch (kind_) {
    case Kind::causal: return "key " + std::to_string(j + 1) + " comes after query " + std::to_string(i + 1) + " (causal)";
    case Kind::none: break;
  }
  return "query " + std::to_string(i + 1) + " does not see key " + std::to_string(j + 1) + " (" + std::string(name()) + ")";
}

TileKind Mask::tile(int r0, int nr, int c0, int nc) const {
  // Each row sees one run of keys, so the tile is full iff every row's run covers [c0, c0 + nc)
  // and empty iff no row's run meets it. Closed forms where the runs grow with the row.
  switch (kind_) {
    case Kind::none: return TileKind::full;
    case Kind::causal:
      if (c0 > r0 + nr - 1) return TileKind::empty;  // the last row's last key is before c0
      if (c0 + nc - 1 <= r0) return TileKind::full;  // the first row already sees the last key
      return TileKind::partial;
  }
  return TileKind::partial;
}

}  // namespace flashstep
