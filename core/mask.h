// The attention mask: which keys each query sees. One value, asked per cell (`visible(i, j)`),
// per row (`keys(i)`, the run of keys the row sees) and per tile (`tile(...)`: empty, partial or
// full), by the recorded engines, the narration, the IO model, the fast kernels and, through
// shaders/mask.glsl, the shaders. Nothing else knows which mask it is, so a new mask is written
// here once for the CPU and once in mask.glsl for the GPU.
//
// Every mask FlashStep has or plans (none, causal, and later sliding window, prefix-LM,
// documents) lets a query see one contiguous run of keys, [keys(i).begin, keys(i).end); an empty
// run (begin = end) is a row with no visible key, whose output is 0.
//
// Scenario files and the command line keep `causal` (true: top-left causal); Mask::of() reads it
// and Mask::ask_in() writes it.
#pragma once

#include "core/scenario.h"

#include <string>
#include <string_view>

namespace flashstep {

// A tile of scores against the mask: no visible cell, some, or all.
enum class TileKind { empty, partial, full };

class Mask {
 public:
  // The values are those of MASK_NONE, MASK_CAUSAL in shaders/mask.glsl (the GPU engine passes
  // kind() as the MASK define).
  enum class Kind { none = 0, causal = 1 };

  struct KeyRange {
    int begin = 0, end = 0;  // keys [begin, end) are visible
    int size() const { return end > begin ? end - begin : 0; }
  };

  // n_queries × n_keys scores. Kind::causal is top-left: query i sees keys j ≤ i.
  Mask(Kind kind, int n_queries, int n_keys) : kind_(kind), nq_(n_queries), nk_(n_keys) {}
  // What a scenario's `causal` flag means: top-left causal, or no mask.
  static Mask causal_if(bool causal, int n_queries, int n_keys) {
    return Mask(causal ? Kind::causal : Kind::none, n_queries, n_keys);
  }
  // The mask a scenario asks for (N queries, N keys).
  static Mask of(const Resolved& r);
  // The inverse of of(): sets the scenario's fields so that it asks for this mask (a Resolved
  // rebuilt from a Recording, app/ui/views/memory_logic.cpp's comparable()). A new kind is read
  // and written here, nowhere else.
  void ask_in(Scenario& s) const;

  Kind kind() const { return kind_; }
  int n_queries() const { return nq_; }
  int n_keys() const { return nk_; }
  std::string_view name() const;  // "none", "causal"
  // Why query i does not see key j, for the screen: "key 5 comes after query 3 (causal)".
  std::string hidden_because(int i, int j) const;

  // The keys query i sees.
  KeyRange keys(int i) const {
    switch (kind_) {
      case Kind::causal: return {0, i + 1 < nk_ ? i + 1 : nk_};
      case Kind::none: break;
    }
    return {0, nk_};
  }
  // Whether query i sees key j.
  bool visible(int i, int j) const {
    const KeyRange k = keys(i);
    return j >= k.begin && j < k.end;
  }
  // Rows [r0, r0 + nr) × keys [c0, c0 + nc): empty iff no cell is visible, full iff all are.
  TileKind tile(int r0, int nr, int c0, int nc) const;

 private:
  Kind kind_;
  int nq_, nk_;
};

}  // namespace flashstep
