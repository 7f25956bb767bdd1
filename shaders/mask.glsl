// The attention mask, as core/mask.h has it: inserted after common.glsl. MASK (a #define the
// engine sets from Mask::kind()) picks the mask; each mask is written once here, and every
// shader asks these functions, never the mask's own rule.
//   visible(i, j)               query i sees key j
//   key_begin(i), key_end(i, n) the run of keys [begin, end) query i sees, of n keys
//   tile_kind(r0, nr, c0, nc)   rows [r0, r0 + nr) x keys [c0, c0 + nc): TILE_EMPTY (no visible
//                               cell), TILE_PARTIAL or TILE_FULL (every cell visible)
#define MASK_NONE 0    // Mask::Kind::none
#define MASK_CAUSAL 1  // Mask::Kind::causal: top-left, query i sees keys j <= i
#ifndef MASK
#define MASK MASK_NONE
#endif

#define TILE_EMPTY 0
#define TILE_PARTIAL 1
#define TILE_FULL 2

int key_begin(int i) { return 0; }

int key_end(int i, int n) {
#if MASK == MASK_CAUSAL
  return min(i + 1, n);
#else
  return n;
#endif
}

bool visible(int i, int j) {
#if MASK == MASK_CAUSAL
  return j <= i;
#else
  return true;
#endif
}

int tile_kind(int r0, int nr, int c0, int nc) {
#if MASK == MASK_CAUSAL
  if (c0 > r0 + nr - 1) return TILE_EMPTY;  // the last row's last key is before c0
  if (c0 + nc - 1 <= r0) return TILE_FULL;  // the first row already sees the last key
  return TILE_PARTIAL;
#else
  return TILE_FULL;
#endif
}
