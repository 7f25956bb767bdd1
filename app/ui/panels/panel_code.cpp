// The explanation panel (the step's sentence with its real numbers, large and wrapped) and the
// pseudocode panel (the algorithm in the paper's notation, the step's lines highlighted).
#include "app/ui/panels/panels.h"
#include "app/ui/style.h"
#include "app/ui/views/hit_map.h"
#include "app/ui/widgets.h"
#include "core/algorithms.h"
#include "core/engine.h"
#include "core/text.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <string>
#include <vector>

namespace flashstep::ui {

namespace {

// The pseudocode pads its "# pass" comments with runs of spaces to line them up in a wide
// editor; in a narrow panel that padding only pushes the comment onto a line of its own.
std::string tighten(const std::string& line) {
  const std::size_t hash = line.find("  #");
  if (hash == std::string::npos) return line;
  std::size_t end = hash;
  while (end > 0 && line[end - 1] == ' ') --end;
  return line.substr(0, end) + "   " + line.substr(line.find('#', hash));
}

int leading_spaces(const std::string& line) {
  int n = 0;
  while (n < static_cast<int>(line.size()) && line[static_cast<std::size_t>(n)] == ' ') ++n;
  return n;
}

// A pseudocode line wrapped at its spaces into rows no wider than `width` where it can be;
// a row still wider (one token: "rowmax(S_{ij})),", at a large font in a narrow panel) is
// broken after an opening parenthesis or a comma outside the markup's braces, as late as fits.
std::vector<std::string> wrap_code(std::string_view text, float width, float size) {
  std::vector<std::string> rows;
  for (std::string row : wrap_rich(text, width, size)) {
    while (draw_rich(nullptr, ImVec2(0, 0), 0, row, size, true) > width) {
      std::size_t cut = 0;
      int depth = 0;
      for (std::size_t k = 0; k + 1 < row.size(); ++k) {
        const char c = row[k];
        if (c == '{') ++depth;
        else if (c == '}') --depth;
        else if (depth == 0 && (c == '(' || c == ',') &&
                 draw_rich(nullptr, ImVec2(0, 0), 0, row.substr(0, k + 1), size, true) <= width)
          cut = k + 1;
      }
      if (cut == 0) break;  // nothing to break at that fits: the row stays whole (drawn smaller)
      rows.push_back(row.substr(0, cut));
      row.erase(0, cut);
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

// The font-1× size as a fraction of the font's size now: how far the pseudocode gives way.
float font_1x_fraction(const AppState& app) { return std::min(1.0f, app.font_1x_scale() / app.ui_scale); }

// The pseudocode's columns at the font of the moment: the line numbers' width and one leading
// space's (1.6 spaces, as an editor indents). Where a larger font (Ctrl+=) would leave the most
// indented line's text less than eight ems, the indentation gives way, down to its width at
// font 1×: at font 2× in a 1280 × 800 window the loops' bodies had some 90 px, a word a line.
struct CodeColumns {
  float num_w = 0, indent_w = 0;
};
CodeColumns code_columns(const AppState& app, const std::vector<std::string>& lines, float width) {
  const float num_w = ImGui::CalcTextSize("00  ").x, full = ImGui::CalcTextSize(" ").x * 1.6f;
  // A space at font 1×'s size, whole pixels as CalcTextSize gives it.
  const float size_1x = ImGui::GetFontSize() * font_1x_fraction(app);
  const float floor = std::ceil(ImGui::GetFont()->CalcTextSizeA(size_1x, FLT_MAX, 0.0f, " ").x) * 1.6f;
  int deepest = 0;
  for (const std::string& l : lines) deepest = std::max(deepest, leading_spaces(l));
  // Continuation lines hang four leading spaces further in (below).
  const float fit = (width - num_w - 8.0f * ImGui::GetFontSize()) / static_cast<float>(deepest + 4);
  return {num_w, std::clamp(fit, floor, full)};
}

// How the line above the step's sentence says how to walk the step's parts.
enum class KeyHint { none, brief, full };

// The line above the step's sentence: its pass, its label, the part shown (and, with `hint`,
// how to walk the parts).
std::string step_where(const AppState& app, const Step& step, KeyHint hint) {
  const Recording& rec = *app.played.rec;
  const std::string pass =
      step.pass >= 1 && step.pass <= rec.pass_count() ? rec.pass_names[static_cast<std::size_t>(step.pass - 1)] : "";
  const int parts = static_cast<int>(step.parts.size());
  std::string where = "pass " + std::to_string(step.pass) + ": " + pass + "  ·  " + step.label;
  if (parts >= 2)
    where += app.played.part() ? "  ·  part " + std::to_string(app.played.cursor->part() + 1) + "/" + std::to_string(parts)
                               : "  ·  " + std::to_string(parts) + " parts";
  // How to walk the parts goes first, with where the step is: the step's sentence under it
  // may be longer than the panel, and the hint must not be the line it cuts.
  if (parts >= 2 && hint == KeyHint::full)
    where += app.played.part() ? " (keys ‘.’ and ‘,’ walk them; → the next whole step)"
                               : " (each a few pseudocode lines: the keys ‘,’ and ‘.’ walk them)";
  if (parts >= 2 && hint == KeyHint::brief) where += " (keys ‘,’ and ‘.’)";
  return where;
}

// The heights of the grey line above the sentence and of the step's sentence (or part's), as
// drawn at the text scale of the moment.
float where_height(const AppState& app, const Step& step, float width, KeyHint hint) {
  return static_cast<float>(wrap_words(step_where(app, step, hint), width).size()) *
         ImGui::GetTextLineHeightWithSpacing();
}
float sentence_height(const AppState& app, const Step& step, float width) {
  const StepPart* part = app.played.part();
  ImGui::PushFont(font(FontRole::large));
  const float h = static_cast<float>(text_rich_lines(part ? part->text : step.text, width)) *
                  ImGui::GetTextLineHeightWithSpacing();
  ImGui::PopFont();
  return h;
}

}  // namespace

// The height of the explanation as draw_explanation_panel lays it out when presenting (no
// hint about the keys), at the window's font scale of the moment.
float explanation_height(const AppState& app, float width) {
  const Recording& rec = *app.played.rec;
  const Step* step = app.played.step();
  float h = 0;
  auto words = [&](const std::string& t) {
    h += static_cast<float>(wrap_words(t, width).size()) * ImGui::GetTextLineHeightWithSpacing();
  };
  if (app.inputs.backend == Backend::gpu && !gpu_backend())
    words("GPU backend not available here (no OpenGL 4.3 compute context): this is the CPU run.");
  if (app.tab == Tab::compare) {
    words("Compare: each algorithm's sentence is under its view.");
  } else if (!step) {
    h += ImGui::GetTextLineHeightWithSpacing();
  } else {
    h += where_height(app, *step, width, KeyHint::none) + sentence_height(app, *step, width);
  }
  for (const std::string& n : rec.notices) words("note: " + n);
  for (const std::string& n : rec.derived) words("note: " + n);
  return h;
}

namespace {

// Presenting a row that runs another first (lesson 12: FlashAttention-2's forward, then its
// backward), the half the step is not in is folded to one line: its 33 lines at a size a room
// reads do not fit a 1080p slide's column.
struct Fold {
  int first = 0, last = 0;  // lines folded, 1-based; none when first == 0
  std::string text;
  bool has(int line) const { return first > 0 && line >= first && line <= last; }
};

Fold fold_of(const AppState& app) {
  const Recording& rec = *app.played.rec;
  const Step* step = app.played.step();
  if (!app.presenting || rec.step_count() == 0 || !step || step->line <= 0) return {};
  const AlgorithmInfo& row = info(rec.algorithm);
  if (!row.runs_after) return {};
  const int own = own_line_offset(rec.algorithm), n = static_cast<int>(pseudocode(rec.algorithm).size());
  if (step->line <= own) return {own + 1, n, "… then the backward"};
  return {1, own, "… the forward first"};
}

}  // namespace

std::string pseudocode_note(const Recording& rec) {
  if (rec.scale == 1.0 || takes_qkv(rec.algorithm)) return {};
  return "Run with a scale: each xᵢ above stands for s·xᵢ, s = " + num(rec.scale) + ".";
}

float pseudocode_height(const AppState& app, float width) {
  const Recording& rec = *app.played.rec;
  const auto& lines = pseudocode(rec.step_count() > 0 ? rec.algorithm : app.inputs.algorithm);
  const CodeColumns cols = code_columns(app, lines, width);
  const float nw = cols.num_w, iw = cols.indent_w;
  const Fold fold = fold_of(app);
  float total = fold.first > 0 ? ImGui::GetTextLineHeightWithSpacing() : 0.0f;
  for (int i = 1; i <= static_cast<int>(lines.size()); ++i) {
    if (fold.has(i)) continue;
    const std::string& raw = lines[static_cast<std::size_t>(i - 1)];
    const int lead = leading_spaces(raw);
    const float indent = nw + static_cast<float>(lead) * iw;
    total += static_cast<float>(wrap_code(tighten(raw.substr(static_cast<std::size_t>(lead))),
                                          std::max(width - indent - 4.0f * iw, 40.0f * app.ui_scale), ImGui::GetFontSize())
                                    .size()) *
             ImGui::GetTextLineHeightWithSpacing();
  }
  if (const std::string note = pseudocode_note(rec); !note.empty())
    total += static_cast<float>(wrap_rich(note, width, ImGui::GetFontSize()).size()) *
             ImGui::GetTextLineHeightWithSpacing();
  return total;
}

void draw_explanation_panel(AppState& app, const PanelRect& r) {
  if (!begin_panel("Explanation", r, &app.panels.explanation)) {
    ImGui::End();
    return;
  }
  app.hits.add_panel("Explanation", Rect{r.pos.x, r.pos.y, r.size.x, r.size.y, true});
  const Recording& rec = *app.played.rec;
  const Step* step = app.played.step();
  const float width = ImGui::GetContentRegionAvail().x;
  // Presenting (no mouse to scroll with), the text is drawn smaller where that makes all of it
  // fit, down to half its size at font 1×: no line is cut at the panel's bottom edge.
  TextScale scale;
  if (app.presenting)
    shrink_to_fit(scale, ImGui::GetContentRegionAvail().y, [&] { return explanation_height(app, width); },
                  lowest_text_scale(app.font_scale));
  if (app.inputs.backend == Backend::gpu && !gpu_backend()) {
    ImGui::PushStyleColor(ImGuiCol_Text, palette_of(app.theme).write);
    text_wrapped_words("GPU backend not available here (no OpenGL 4.3 compute context): this is the CPU run.", width);
    ImGui::PopStyleColor();
  }
  if (app.tab == Tab::compare) {
    text_wrapped_words("Compare: each algorithm's sentence is under its view.", width);
  } else if (!step) {
    ImGui::TextDisabled("No steps recorded.");
  } else {
    const StepPart* part = app.played.part();
    // The step's sentence is what the panel is for. In the window, where it and the grey line
    // above it do not fit the panel together (a larger font: at 1.5× the line took four of the
    // panel's some eight lines and the sentence was cut after its second), the line says how to
    // walk the parts in brief, then not at all (its tooltip says it), then its text gives way,
    // by twentieths, down to its font-1× size. Presenting, the panel's text is fitted as a whole
    // (above), with no hint.
    const bool parts = step->parts.size() >= 2 && !app.presenting;
    const ImVec2 top = ImGui::GetCursorScreenPos();
    // The last line needs no spacing under it.
    const float avail = ImGui::GetContentRegionAvail().y, room = avail + ImGui::GetStyle().ItemSpacing.y;
    const float sentence_h = sentence_height(app, *step, width);
    auto fits = [&](KeyHint h) { return where_height(app, *step, width, h) + sentence_h <= room; };
    const KeyHint hint = !parts ? KeyHint::none : fits(KeyHint::full) ? KeyHint::full
                                              : fits(KeyHint::brief) ? KeyHint::brief : KeyHint::none;
    TextScale where_scale;
    if (!app.presenting && hint == KeyHint::none)
      shrink_to_fit(where_scale, room - sentence_h, [&] { return where_height(app, *step, width, KeyHint::none); },
                    font_1x_fraction(app));
    app.explanation.where_scale = where_scale.get();
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetColorU32(ImGuiCol_TextDisabled));
    text_wrapped_words(step_where(app, *step, hint), width);
    ImGui::PopStyleColor();
    where_scale.set(1.0f);
    if (parts && hint != KeyHint::full && ImGui::IsWindowHovered() &&
        ImGui::IsMouseHoveringRect(top, ImVec2(top.x + width, ImGui::GetCursorScreenPos().y)))
      tooltip("The step's parts", "One per pseudocode line: the keys ‘,’ and ‘.’ walk them, → goes to the next whole step.");
    app.explanation.key_hint = static_cast<int>(hint);
    app.explanation.room_bottom = top.y + avail;
    ImGui::PushFont(font(FontRole::large));
    app.explanation.sentence_top = ImGui::GetCursorScreenPos().y;
    text_rich(part ? part->text : step->text, width);
    app.explanation.sentence_bottom = ImGui::GetCursorScreenPos().y - ImGui::GetStyle().ItemSpacing.y;
    ImGui::PopFont();
  }
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetColorU32(ImGuiCol_TextDisabled));
  for (const std::string& n : rec.notices) text_wrapped_words("note: " + n, width);
  for (const std::string& n : rec.derived) text_wrapped_words("note: " + n, width);
  ImGui::PopStyleColor();
  scale.set(1.0f);
  ImGui::End();
}

void draw_pseudocode_panel(AppState& app, const PanelRect& r) {
  if (!begin_panel("Pseudocode", r, &app.panels.pseudocode)) {
    ImGui::End();
    return;
  }
  {
    const ImVec2 wp = ImGui::GetWindowPos(), ws = ImGui::GetWindowSize();
    app.hits.add_panel("Pseudocode", Rect{wp.x, wp.y, ws.x, ws.y, true});
  }
  const Recording& rec = *app.played.rec;
  const Step* step = app.played.step();
  const auto& lines = pseudocode(rec.step_count() > 0 ? rec.algorithm : app.inputs.algorithm);
  // The step's lines are highlighted; when one of its parts is shown, that part's lines are,
  // and the rest of the step's lines only faintly.
  const StepPart* part = app.played.part();
  const int first = step ? step->line : 0, last = step ? std::max(step->line, step->line_end) : 0;
  const int part_first = part ? part->line : first, part_last = part ? part->line_end : last;
  const float s = app.ui_scale;
  const float width = ImGui::GetContentRegionAvail().x;
  // Presenting, the algorithm is drawn smaller where that makes all of it fit.
  TextScale scale;
  if (app.presenting)
    shrink_to_fit(scale, ImGui::GetContentRegionAvail().y, [&] { return pseudocode_height(app, width); },
                  lowest_text_scale(app.font_scale));
  const CodeColumns cols = code_columns(app, lines, width);
  const float num_w = cols.num_w, indent_w = cols.indent_w;
  app.pseudocode.indent_w = indent_w;
  app.pseudocode.narrowest = width;
  app.pseudocode.font_size = ImGui::GetFontSize();
  const float min_text = font_1x_fraction(app);
  const float line_h = ImGui::GetTextLineHeightWithSpacing();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  std::vector<float> tops;  // where each line starts, in the window's content
  const Fold fold = fold_of(app);
  for (int i = 1; i <= static_cast<int>(lines.size()); ++i) {
    tops.push_back(ImGui::GetCursorPosY());
    if (i == fold.first) {
      // One dimmed line for the half folded away; its lines are found there.
      const ImVec2 p = ImGui::GetCursorScreenPos();
      const float x0 = ImGui::GetCursorPosX();
      ImGui::TextDisabled("%d–%d", fold.first, fold.last);
      ImGui::SameLine(x0 + ImGui::CalcTextSize("00–00  ").x);
      ImGui::TextDisabled("%s", fold.text.c_str());
      for (int k = fold.first; k <= fold.last; ++k) {
        if (k > i) tops.push_back(tops.back());
        app.hits.add_code_line(k, lines[static_cast<std::size_t>(k - 1)],
                               Rect{p.x - 4 * s, p.y - 1, width + 4 * s, line_h + 2, true});
      }
      i = fold.last;
      continue;
    }
    const std::string& raw = lines[static_cast<std::size_t>(i - 1)];
    const int lead = leading_spaces(raw);
    const std::string text = tighten(raw.substr(static_cast<std::size_t>(lead)));
    const float indent = num_w + static_cast<float>(lead) * indent_w;
    // Continuation lines hang two indent steps further in, so a wrapped line reads as one.
    const float hanging = 4.0f * indent_w;
    const float wrap_w = std::max(width - indent - hanging, 40.0f * s);
    const std::vector<std::string> rows = wrap_code(text, wrap_w, ImGui::GetFontSize());
    app.pseudocode.narrowest = std::min(app.pseudocode.narrowest, width - indent - hanging);
    const bool in_step = i >= first && i <= last;
    const bool on = i >= part_first && i <= part_last;
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float h = static_cast<float>(rows.size()) * line_h - ImGui::GetStyle().ItemSpacing.y;
    if (on) {
      dl->AddRectFilled(ImVec2(p.x - 4 * s, p.y - 1), ImVec2(p.x + width, p.y + h + 1),
                        with_alpha(palette_of(app.theme).current, palette_of(app.theme).light ? 0.18f : 0.22f));
      dl->AddRectFilled(ImVec2(p.x - 4 * s, p.y - 1), ImVec2(p.x - 1 * s, p.y + h + 1), palette_of(app.theme).current);
    } else if (in_step) {
      dl->AddRectFilled(ImVec2(p.x - 4 * s, p.y - 1), ImVec2(p.x + width, p.y + h + 1),
                        with_alpha(palette_of(app.theme).current, 0.07f));
    }
    app.hits.add_code_line(i, raw, Rect{p.x - 4 * s, p.y - 1, width + 4 * s, h + 2, true});
    const float x0 = ImGui::GetCursorPosX();
    ImGui::TextDisabled("%d", i);
    const Palette& pal = palette_of(app.theme);
    const ImU32 ink = on || in_step ? pal.text : mix(pal.text, pal.text_dim, 0.5f);
    for (std::size_t k = 0; k < rows.size(); ++k) {
      if (k == 0) ImGui::SameLine(x0 + indent);
      else ImGui::SetCursorPosX(x0 + indent + hanging);
      const ImVec2 at = ImGui::GetCursorScreenPos();
      // A row wrap_code could not break to fit ("rowsum(P̃ᵢⱼ)" at a large font) is drawn
      // smaller, down to its font-1× size, on the same line height.
      const float room = width - indent - (k == 0 ? 0.0f : hanging), fs = ImGui::GetFontSize();
      const float need = draw_rich(nullptr, at, ink, rows[k], fs, true);
      const float size = need > room ? std::max(fs * room / need, fs * min_text) : fs;
      const float w = draw_rich(dl, at, ink, rows[k], size);
      ImGui::Dummy(ImVec2(std::max(w, 1.0f), ImGui::GetTextLineHeight()));
    }
    // Keep the highlighted line in view as the playhead moves, without fighting the user's
    // own scrolling while it stays put.
    // The key changes with the step, its part and the panel's height (a layout that settles
    // over the first frames, a resized window).
    auto& f = app.pseudocode;
    const int at = app.played.cursor->position(), at_part = app.played.cursor->part();
    const float height = ImGui::GetWindowHeight();
    if (on && i == part_first && f.follow) {
      if (f.scrolled_to != at || f.scrolled_part != at_part || f.scrolled_height != height) f.settle = 3;
      if (f.settle > 0) {
        // Presenting, the line before the step's starts the panel, so no line is cut at its
        // top edge; in the window the step's line sits a third of the way down.
        if (app.presenting)
          ImGui::SetScrollY(std::max(0.0f, tops[static_cast<std::size_t>(std::max(i - 2, 0))] -
                                               ImGui::GetStyle().WindowPadding.y));
        else
          ImGui::SetScrollHereY(0.3f);
        --f.settle;
      }
      f.scrolled_to = at;
      f.scrolled_part = at_part;
      f.scrolled_height = height;
    }
  }
  if (const std::string note = pseudocode_note(rec); !note.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetColorU32(ImGuiCol_TextDisabled));
    text_rich(note, width);
    ImGui::PopStyleColor();
  }
  scale.set(1.0f);
  ImGui::End();
}

}  // namespace flashstep::ui
