// Fonts and the ImGui style, shared by the window and the off-screen renderer so an exported
// picture looks exactly like the window. Sizes are multiplied by the UI scale at load time
// (fonts are rasterised at the final size, never scaled up as bitmaps).
#pragma once

#include "app/ui/model/theme.h"

#include <imgui.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace flashstep::ui {

enum class FontRole { ui, large, mono };

inline constexpr float kBaseFontSize = 17.0f;
// Presentation mode multiplies every size by this on top of the user's font scale.
inline constexpr float kPresentationScale = 1.5f;

// Adds the three fonts to the current context's atlas at `scale` (DejaVu Sans and Sans Mono
// with the glyphs the lessons use: subscripts, −, √, ∑, ≈, arrows; ImGui's own as fallback).
void load_fonts(float scale);
ImFont* font(FontRole role);  // the current context's font for `role`

// The theme's ImGui style with every size multiplied by `scale`. The docked panels' background
// is left to the framebuffer clear (clear_colour()): the panels tile the screen, so drawing
// their backgrounds too would blend a second full-screen layer, a third of a frame on llvmpipe.
// Floating windows (log, shortcuts) set their own opaque background.
void apply_style(float scale, Theme theme = Theme::dark);
ImVec4 clear_colour(Theme theme = Theme::dark);

// Before an item of width `w` in a row of items that wraps: on the same line as the previous
// item, `spacing` after it (ItemSpacing where negative), when it fits in the window, else on a
// new line. Not before the first item of a row.
bool flow_next(float w, float spacing = -1.0f);  // true: on the same line

// Splits text into lines no wider than `width` in the current font, breaking only at spaces
// (ImGui's own wrapping also breaks after '.', which splits numbers such as 0.14814) and at
// '\n'; a word wider than the line is cut between characters.
std::vector<std::string> wrap_words(std::string_view text, float width);
// Draws text wrapped by wrap_words() at the current cursor, the first line at the cursor's x
// and the following ones `hanging` px further in.
void text_wrapped_words(std::string_view text, float width, float hanging = 0.0f);

}  // namespace flashstep::ui
