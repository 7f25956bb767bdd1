// House widget helpers shared by the views: the "(?)" help marker, value cells, register
// boxes, colour legends, and the themes. Everything draws into the current ImGui window.
// Defined in widgets.cpp, but for the text section (rich_text.cpp) and the fields (fields.cpp).
#pragma once

#include "app/ui/model/text_lines.h"
#include "app/ui/views/view.h"
#include "app/ui/style.h"
#include "app/ui/views/view_logic.h"

#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace flashstep::ui {

// The themes (view.h's Palette defaults are the dark one).
Palette dark_palette();
Palette light_palette();
Palette projector_palette();
Palette palette_for(Theme theme);
const Palette& palette_of(Theme theme);  // the same, made once per theme

// ---- colours ----
ImU32 with_alpha(ImU32 c, float alpha);
ImU32 mix(ImU32 a, ImU32 b, float t);
ImU32 text_over(ImU32 fill);  // black or white, whichever reads on `fill`
// The fill of a heatmap or vector cell: heat(t), red for inf/nan, grey for undefined/−∞.
ImU32 cell_fill(const Palette& pal, CellKind kind, float t);
// The fill of value v of a heatmap with range r: viridis, or the diverging map when r holds
// values of both signs.
ImU32 value_fill(const Palette& pal, CellKind kind, const ValueRange& r, double v);

// ---- text ----
// `unicode` when the current font has the glyph `probe`, `ascii` otherwise ("Kᵀ" / "K^T").
const char* pick(const char* unicode, ImWchar probe, const char* ascii);
void text_centered(ImDrawList* dl, ImVec2 center, ImU32 col, const char* text, float size = 0);
// Text in the markup of core/markup.h, laid out as a paper prints it: x_{i} and e^{m₀ − m₁} at
// 0.7× the size on a lowered or raised baseline, \~m with a tilde drawn over the letter.
// draw_rich draws one line at pos and returns its width (nothing is drawn if measure_only);
// wrap_rich breaks text into lines no wider than width at spaces; text_rich draws it wrapped at
// the cursor in the current font and colour.
float draw_rich(ImDrawList* dl, ImVec2 pos, ImU32 col, std::string_view text, float size = 0,
                bool measure_only = false);
std::vector<std::string> wrap_rich(std::string_view text, float width, float size);
void text_rich(std::string_view text, float width);
// The lines text_rich takes for `text` (its '\n's and its wrapping) in the current font.
int text_rich_lines(std::string_view text, float width);
// Texts measured once for text_rich at `size` (0: the current font's), each added by
// measure_rich, then their lines counted at any width without measuring (model/text_lines.h).
MeasuredTexts measured_texts(float size = 0);
void measure_rich(MeasuredTexts& texts, std::string_view text);
// Draws the first candidate no wider than max_w at pos (left-aligned); returns its width.
float text_fit(ImDrawList* dl, ImVec2 pos, ImU32 col, std::initializer_list<const char*> candidates,
               float max_w, float size = 0);
// A tooltip with a bold-ish first line and a wrapped body.
void tooltip(const std::string& title, const std::string& body);

// ---- fields ----
// Fields whose value is applied only when the user commits it: Enter, Tab or leaving the field
// (ImGui's deactivation after an edit). Escape puts back the value in use: the form's, or in a
// refused field the one still in use (committed, so the form takes it back). While the text
// being typed differs from the form's value the field is "pending", and not_applied_line() says
// so with the value in use, so a keystroke in the middle of "2048" is never taken for 204. A
// committed value that was refused (its error is said by the caller) stays in the field with a
// red border, and the line names the value still in use.
struct FieldEdit {
  std::string key;     // "window/id", for field_state()
  std::string label;   // the field's name in messages ("N"); the id without "##" unless set
  std::string text;    // what the field shows
  std::string in_use;  // the value in use, as text
  bool committed = false;  // this frame: a changed text was committed (text holds it)
  bool pending = false;    // being edited, and different from the form's value
  bool refused = false;    // the form's value is not the one in use
};
// value: the form's value as text. running: the value in use when the form's value was refused
// (nullptr when the form is in use).
FieldEdit edit_field(const char* id, const std::string& value, float width, const std::string* running = nullptr);
// "not applied · in use: …" while pending; "not in use · in use: …" while refused; nothing
// otherwise.
void not_applied_line(const FieldEdit& e);
// A panel that says these lines in a place of its own (so that nothing below a field moves when
// one appears): between begin_field_marks() and end_field_marks(), not_applied_line() keeps the
// fields that need a line, in order, and draws nothing; field_state() counts them as marked.
void begin_field_marks();
std::vector<FieldEdit> end_field_marks();
// A whole number as typed: optional spaces around an optional sign and digits. False otherwise.
bool parse_int(const std::string& text, int* v);
// A whole number: the field, − and + (which apply at once; steppers = false leaves them out),
// the label and its (?) help, and the status line. A committed text that is not a whole number
// is refused: *error names it and *v keeps its value. running: as for edit_field. True when *v
// changed.
bool commit_int(const char* id, const char* label, const char* help, int* v, float width, std::string* error,
                const int* running = nullptr, bool steppers = true);
// The same for a finite number (a temperature), without buttons.
bool commit_double(const char* id, const char* label, double* v, float width, std::string* error,
                   const double* running = nullptr);
// What the field `id` of the window named `window` did in the last frame it was drawn (tests
// drive it with the mouse and read it back; a child window's name is its parent's, "/", its own).
struct FieldState {
  ImRect rect;          // where it was drawn; empty if never drawn
  bool pending = false;
  bool refused = false;
  bool marked = false;  // not_applied_line() drew its line for it
  std::string in_use;   // the value in use it named
  std::string shown;    // the text the field showed
};
FieldState field_state(const std::string& window, const char* id);
ImRect field_rect(const std::string& window, const char* id);  // field_state(…).rect

// ---- dialogs ----
// Red that reads on the popup's background, dark or light: a dialog's error line.
ImVec4 error_colour();
bool key_pressed(ImGuiKey key);          // this frame, not repeated while held
float button_width(const char* label);   // the width ImGui::Button(label) takes

// ---- items ----
// Nothing drawn can be pointed at: a picture for a slide (shot, gif, the export dialog) or
// presentation mode, which takes no mouse. No "(?)" markers and no hints meant for the mouse.
// draw_frame sets it for each frame.
void set_picture_mode(bool on);
bool picture_mode();
// A figure is being drawn (shot, gif, an export), not the window the user works in: fields show
// the value in use, never the text being typed in the window, and leave that text untouched.
// draw_frame sets it for each frame.
void set_figure_mode(bool on);
bool figure_mode();
// The current window's text drawn at `f` times its size, and the space between its items with
// it (ImGui's ItemSpacing is in pixels of the UI scale, not of the font, so a smaller font alone
// leaves lines as far apart: at a large scale the text would never fit). Undone by set(1), or
// when it goes out of scope (in the window it was set in: set(1) before that window's End).
class TextScale {
 public:
  TextScale();
  ~TextScale();
  TextScale(const TextScale&) = delete;
  TextScale& operator=(const TextScale&) = delete;
  void set(float f);
  float get() const { return f_; }

 private:
  ImVec2 spacing_;
  // The window's own font scale when made (a view Compare or a slide draws smaller): f is
  // relative to it, and it is what the scale goes back to. Set absolutely, the legend of a
  // view drawn at half size came out whole size and left the rest of the view at it.
  float base_ = 1.0f;
  float f_ = 1.0f;
  bool pushed_ = false;
};
// The largest scale from 1 down to `lowest`, by twentieths, at which `height()` (measured at the
// scale of the moment) is at most `room`; the text is left at that scale (at `lowest` when
// none fits).
float shrink_to_fit(TextScale& t, float room, const std::function<float()>& height, float lowest = 0.5f);
// How small presenting may draw a panel's text to fit it: half the size it has at font 1×
// (a font made larger with Ctrl+= gives way first where the screen cannot hold it).
inline float lowest_text_scale(float font_scale) { return 0.5f / std::max(font_scale, 1.0f); }
// "(?)" on the same line as the previous item; hovering shows `text`. Nothing in a picture.
void help_marker(const char* text);
// The same at an absolute screen position (for views that draw with the draw list).
void help_marker_at(ImVec2 pos, const char* text);

// ---- drawn shapes ----
// An outline at least min_size px on each side, so a one-cell highlight stays visible.
void outline(ImDrawList* dl, ImVec2 p0, ImVec2 p1, ImU32 col, float thickness, float min_size = 0);
// Diagonal stripes over a cell, so inf / nan stays distinct from an orange "written" outline
// whatever the hues.
void hatch(ImDrawList* dl, ImVec2 p0, ImVec2 p1, ImU32 col, float spacing);
// The read / written outlines of a cell or region (read outside, written inside).
void mark_outline(ImDrawList* dl, const Palette& pal, ImVec2 p0, ImVec2 p1, std::uint8_t marks, float scale,
                  float min_size = 0);
// The numbers of a row of cells at text size `size`: values[i] (none: an empty cell) with the
// most digits (up to `most`) that fit room(i), a fraction written one way in the row
// (cell_numbers); empty where no form fits or the room is none. Each number, or the room found
// too small, is added to `report` (where given) as group `group`.
std::vector<std::string> fitted_numbers(const std::vector<std::optional<double>>& values, float size,
                                        const std::function<float(int)>& room, int most,
                                        std::vector<WrittenNumber>* report = nullptr, int group = 0);
// A value cell: fill, centred text, marks. Its text at value_cell_text_size(cell height),
// drawn where it is no wider than value_cell_room(the cell's left and right edges).
inline float value_cell_text_size(float height) { return std::min(ImGui::GetFontSize(), height * 0.6f); }
inline float value_cell_room(float x0, float x1) { return x1 - x0 > 8 ? x1 - x0 - 2 : 0.0f; }
void value_cell(ImDrawList* dl, const Palette& pal, ImVec2 p0, ImVec2 p1, ImU32 fill, const char* text,
                std::uint8_t marks, float scale);

// A register ("m", "l", "LSE"): its name and role, the value, and "old → new" when the step
// changed it. Returns the box's size.
struct RegisterBox {
  const char* name = "m";
  const char* role = "";  // "running max"
  const char* role_short = "";  // where the role does not fit: "∑ exp(x − m)" for "sum of exp(x − m)"
  CellChange change;
  std::uint8_t marks = 0;
  std::string reason;  // why the value is inf/nan, shown on hover
  // How far a move into this step has gone (app/ui/model/transition.h): below 1 the new value
  // slides in over the old one as it fades out. 1: the step itself.
  float fade = 1.0f;
};
// Draws the box; its second line, "old → new" where the step changed the value, gives the old
// value fewer digits, then leaves it out, where the box is too narrow for both (`line`: what it
// wrote).
ImVec2 register_box(ImDrawList* dl, const Palette& pal, ImVec2 p0, float width, const RegisterBox& r,
                    float scale, RegisterLine* line = nullptr);
// Its height (two lines of the current font and their padding), for laying one out before drawing.
float register_box_height(float scale);

// The colour bar of the heatmap map, with "low" and "high" labels.
void colour_bar(ImDrawList* dl, ImVec2 p0, ImVec2 size, bool signed_map = false);
// One line of swatches: read, written, current tile, inf/nan, not yet computed. Advances the
// ImGui cursor.
void mark_legend(const Palette& pal, float scale, bool with_current, bool with_registers = false);

// What the current window will have left to scroll at the end of this frame, as ImGui works it
// out from what was laid out in it so far (GetScrollMaxY() is the frame before's). A view drawn
// smaller when it does not fit (Compare, a slide) learns the room it needs from it.
inline float overflow_now() {
  const ImGuiWindow* w = ImGui::GetCurrentWindow();
  return std::ceil(w->DC.CursorMaxPos.y - w->DC.CursorStartPos.y) + 2.0f * w->WindowPadding.y -
         (w->InnerRect.Max.y - w->InnerRect.Min.y);
}
// The scale a view is drawn at in a region `height` high where nothing scrolls (a slide, a side
// of Compare): its full scale `full`, smaller in proportion where it was seen to need more
// (`need`, at the full scale; 0: not seen yet), down to `floor`, its size at font 1×. Matrix
// views fit any height and never ask: a font made larger gave their labels and the close-up the
// room the matrices need (FlashAttention-2 at font 2×: cells of 3 px, one row of the tile at a
// time). They are drawn at `floor`, and the font enlarges the text around them.
inline float fitted_scale(bool matrix, float need, float height, float full, float floor) {
  if (matrix) return floor;
  return std::max(need > height ? full * height / need : full, floor);
}
// What a view drawn at `scale` in a region `height` high with `over` left to scroll needs at the
// full scale `full`, the most `need` has seen: 2% more than in proportion, since a view's fixed
// parts do not shrink with it (taken in proportion, the next frame still had a few pixels over).
inline void learn_need(float& need, float height, float over, float scale, float full) {
  if (over > 0) need = std::max(need, (height + over) * full / scale * 1.02f);
}

}  // namespace flashstep::ui
