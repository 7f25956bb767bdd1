// A picture of one panel made into a figure for a slide: cropped to what the panel draws, with
// a margin, and, on a transparent background, every drawn pixel ringed by a halo of the theme's
// background colour. A dark theme's light text (and its grey labels) then reads on a white or a
// coloured slide as it does on a dark one: the text keeps the contrast it has in the window,
// against the halo, whatever the slide. `flashstep shot --panel` and the export dialog use it.
#pragma once

#include "app/ui/offscreen.h"

namespace flashstep::ui {

struct FigureOptions {
  int margin = 8;                 // px of background kept around the content
  bool transparent = false;       // the picture's background has alpha 0: add the halo
  unsigned char halo[3] = {0, 0, 0};  // the theme's background colour
  int halo_px = 2;                // its width in pixels (at least 1; at most the margin)
};

Image slide_figure(const Image& img, const FigureOptions& o);

// The figure's options for a picture drawn in `theme` at `scale` pixels per window unit.
FigureOptions figure_options(Theme theme, float scale, bool transparent);

}  // namespace flashstep::ui
