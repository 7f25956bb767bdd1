// The Inputs panel: the vector, presets, N, d, precision, scale, causal mask, block sizes or the
// SRAM budget (with the "does the tile fit" check), workers and backend. A typed value applies
// when committed (Enter, Tab, leaving the field: widgets.h), a click applies at once; every
// change re-records through AppState::inputs_changed(), and a bad value leaves the last valid
// recording in place and says why.
#include "app/ui/model/explain.h"
#include "app/ui/panels/panels.h"
#include "app/ui/style.h"
#include "app/ui/widgets.h"
#include "core/algorithms.h"
#include "core/text.h"

#include <imgui_stdlib.h>

#include <algorithm>
#include <climits>

namespace flashstep::ui {

namespace {

constexpr ImU32 kBad = IM_COL32(213, 94, 0, 255);
float g_needed_height = 0;  // what the panel's contents took in the last frame
constexpr ImU32 kOk = IM_COL32(0, 158, 115, 255);
constexpr std::size_t kLongVectorText = 20000;  // characters; about 3,000 values
constexpr int kMessageLines = 2;                // the height of the panel's messages, in lines

// The width of a radio button, and of one followed by its "(?)": the rows of choices flow onto
// the next line (flow_next) rather than past the panel's edge.
float radio_w(const char* label, bool with_help = false) {
  const ImGuiStyle& st = ImGui::GetStyle();
  return ImGui::GetFrameHeight() + st.ItemInnerSpacing.x + ImGui::CalcTextSize(label).x +
         (with_help ? st.ItemSpacing.x + ImGui::CalcTextSize("(?)").x : 0.0f);
}

// The value a field's recording on screen was made with, when the form is not in use (a refused
// value): the field is then marked with it. nullptr while the form is in use.
template <typename T>
const T* running(const AppState& app, const T& v, bool applies = true) {
  return app.input_error.empty() || !applies ? nullptr : &v;
}

bool vector_field(AppState& app) {
  Inputs& in = app.inputs;
  bool changed = false;
  // The vector in use is the recording's, unless the form's is (refused text, or a vector that
  // parses but is refused for another reason).
  const bool refused = !app.input_error.empty() && takes(app.scenario.algorithm, kInputX) &&
                       (!in.vector_error.empty() || app.scenario.x != in.x);
  // A text field lays out every character of its text each frame: a vector of 100,000 values
  // (700 kB of text) would cost the window its frame rate. Long vectors are shown as a summary
  // and replaced by pasting or a preset; Copy gives the whole text.
  FieldEdit e;
  if (in.vector_text.size() > kLongVectorText && in.vector_error.empty()) {
    std::size_t values = 0;
    for (const auto& r : in.x) values += r.size();
    // "100000 values: 3.2, −1.1, …" with as many leading values as the panel's width takes.
    const float room = ImGui::GetContentRegionAvail().x - ImGui::GetFontSize() * 2.0f;
    std::string summary = strf("%zu values", values);
    const std::vector<double>& first = in.x.front();
    for (std::size_t i = 0; i < first.size() && i < 8; ++i) {
      const std::string next = summary + (i == 0 ? ": " : ", ") + num(first[i]);
      if (ImGui::CalcTextSize((next + ", …").c_str()).x > room) break;
      summary = next;
    }
    summary += summary.find(':') == std::string::npos ? "" : ", …";
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted(summary.c_str());
    if (ImGui::IsItemHovered())
      tooltip("x", "Too long to edit as text here. Paste replaces it with the clipboard's text; Copy puts "
                   "all of it on the clipboard.");
    if (ImGui::SmallButton("paste")) {
      const char* clip = ImGui::GetClipboardText();
      if (!clip || !*clip) {
        app.note(Severity::error, "Paste: the clipboard holds no text");
      } else if (edit_vector_text(in, clip)) {
        changed = true;
      }
    }
    ImGui::SameLine();
    if (ImGui::SmallButton("copy")) ImGui::SetClipboardText(in.vector_text.c_str());
  } else {
    const std::string in_use = refused ? format_rows(app.scenario.x) : std::string();
    // Room for its "(?)" on the same line.
    const float help_w = ImGui::GetStyle().ItemSpacing.x + ImGui::CalcTextSize("(?)").x;
    e = edit_field("##x", in.vector_text, ImGui::GetContentRegionAvail().x - help_w,
                   refused ? &in_use : nullptr);
    if (e.committed) {
      edit_vector_text(in, e.text);
      changed = true;
    }
  }
  help_marker("Numbers separated by commas or spaces; ';' starts another row (each row is its own "
              "softmax). inf, -inf, nan and the minus sign − are accepted; an empty value (1,,2) or "
              "an empty row (1,2;;3,4) is not. Enter, Tab or a click elsewhere applies the text; "
              "until then, and while it does not parse, the last valid vector stays in use.");
  not_applied_line(e);  // the vector's own error is said with the panel's messages
  // The preset buttons flow onto as many lines as the panel's width needs.
  const float right = ImGui::GetWindowContentRegionMax().x;
  const ImGuiStyle& st = ImGui::GetStyle();
  bool first = true;
  for (const VectorPreset& p : vector_presets()) {
    if (!first) flow_next(ImGui::CalcTextSize(p.name).x + st.FramePadding.x * 2);
    first = false;
    if (ImGui::SmallButton(p.name)) {
      set_vector(in, {p.values});
      changed = true;
    }
    if (ImGui::IsItemHovered()) tooltip(p.name, p.tooltip);
  }
  if (ImGui::Button("random")) {
    set_vector(in, {random_vector(in.random_n, in.seed)});
    changed = true;
  }
  if (ImGui::IsItemHovered())
    tooltip("random", "n standard-normal values times 3, from the seed.");
  // n and seed share what is left of the line (or the next line, where the two would not fit
  // beside the button at their least); they take effect when random is pressed, and are
  // committed as the other fields are.
  const float label_w = ImGui::CalcTextSize("n seed (?)").x + st.ItemInnerSpacing.x * 2 + st.ItemSpacing.x * 3;
  const float least = ImGui::CalcTextSize("00000").x + st.FramePadding.x * 2;
  flow_next(2 * least + label_w);
  const float field_w = std::max((right - ImGui::GetCursorPosX() - label_w) * 0.5f, least);
  auto small_int = [&](const char* id, const char* label, int value, int lo, int hi, int* out) {
    FieldEdit f = edit_field(id, std::to_string(value), field_w);
    f.label = std::string("random ") + label;
    ImGui::SameLine(0, st.ItemInnerSpacing.x);
    ImGui::TextUnformatted(label);
    int v = 0;
    if (f.committed) {
      if (parse_int(f.text, &v)) *out = std::clamp(v, lo, hi);
      else app.note(Severity::error, std::string(label) + ": '" + f.text + "' is not a whole number");
    }
    return f;
  };
  const FieldEdit fn = small_int("##random_n", "n", in.random_n, 1, kMaxVectorN, &in.random_n);
  flow_next(field_w + st.ItemInnerSpacing.x + ImGui::CalcTextSize("seed (?)").x + st.ItemSpacing.x);
  int seed = static_cast<int>(in.seed);
  const FieldEdit fs = small_int("##random_seed", "seed", seed, 0, INT_MAX, &seed);
  in.seed = static_cast<std::uint64_t>(seed);
  help_marker("Length and seed of the random vector; press random to use it.");
  not_applied_line(fn);
  not_applied_line(fs);
  return changed;
}

// A whole-number field applied on Enter, Tab or leaving it. Out of range values are kept as
// committed: check() names them above the form, the field is marked with the value still in
// use (`in_use`, nullptr while the form is in use), and the last valid recording stays until
// they are fixed. Text that is not a number is refused at once.
bool int_field(AppState& app, const char* label, int* v, const char* help, const int* in_use = nullptr) {
  std::string error;
  const std::string id = std::string("##") + label;
  const bool changed = commit_int(id.c_str(), label, help, v, ImGui::GetFontSize() * 4.5f, &error, in_use);
  if (!error.empty()) app.note(Severity::error, error + " (the value in use stays)");
  return changed;
}

// A parameter's field, from its declaration: a checkbox for a flag, a whole number otherwise,
// marked with the value in use while the form is refused.
bool param_field(AppState& app, const ParamDecl& p) {
  Inputs& in = app.inputs;
  const std::string& help = p.panel_help.empty() ? p.help : p.panel_help;
  if (p.type == ParamType::flag) {
    bool on = form_param(in, p) != 0;
    const bool clicked = ImGui::Checkbox(p.label.c_str(), &on);
    help_marker(help.c_str());
    if (clicked) set_form_param(in, p, on ? 1 : 0);
    return clicked;
  }
  int value = static_cast<int>(form_param(in, p));
  const int in_use = static_cast<int>(param_value(app.scenario, p));
  if (!int_field(app, p.label.c_str(), &value, help.c_str(), running(app, in_use, takes(app.scenario.algorithm, p))))
    return false;
  set_form_param(in, p, value);
  return true;
}

bool scale_field(AppState& app, Inputs& in) {
  bool changed = false;
  ImGui::TextUnformatted("scale");
  flow_next(radio_w("none"));
  if (ImGui::RadioButton("none", in.scale == ScaleChoice::none)) {
    in.scale = ScaleChoice::none;
    changed = true;
  }
  flow_next(radio_w("1/√d"));
  if (ImGui::RadioButton("1/√d", in.scale == ScaleChoice::inv_sqrt_d)) {
    in.scale = ScaleChoice::inv_sqrt_d;
    changed = true;
  }
  flow_next(radio_w("1/T", true));
  if (ImGui::RadioButton("1/T", in.scale == ScaleChoice::temperature)) {
    in.scale = ScaleChoice::temperature;
    changed = true;
  }
  help_marker("What every score is multiplied by before the softmax. 1/√d keeps the variance of "
              "q·k at 1 (see the 1/√d lab); a temperature T multiplies by 1/T: T < 1 sharpens, "
              "T > 1 flattens.");
  if (in.scale == ScaleChoice::temperature) {
    std::string error;
    const double T = 1.0 / app.scenario.scale_value;
    const double* in_use = running(app, T, app.scenario.scale_mode == ScaleMode::value);
    if (commit_double("##T", "T", &in.temperature, ImGui::GetFontSize() * 4.5f, &error, in_use)) changed = true;
    if (!error.empty()) app.note(Severity::error, error + " (the value in use stays)");
  }
  if (const std::string line = scale_line(app); !line.empty()) ImGui::TextDisabled("%s", line.c_str());
  return changed;
}

bool blocks_field(AppState& app) {
  Inputs& in = app.inputs;
  bool changed = false;
  ImGui::TextUnformatted("tiles");
  flow_next(radio_w("from M"));
  if (ImGui::RadioButton("from M", in.blocks == BlockChoice::from_sram)) {
    in.blocks = BlockChoice::from_sram;
    changed = true;
  }
  flow_next(radio_w("Br, Bc", true));
  if (ImGui::RadioButton("Br, Bc", in.blocks == BlockChoice::explicit_blocks)) {
    in.blocks = BlockChoice::explicit_blocks;
    changed = true;
  }
  help_marker(block_rule_help().c_str());
  changed |= int_field(app, "M (SRAM)", &in.M, sram_help().c_str(),
                       running(app, app.scenario.sram, in.blocks == BlockChoice::from_sram && app.scenario.sram > 0));
  if (in.blocks == BlockChoice::from_sram) {
    blocks_from_sram(in.M, in.d, in.Br, in.Bc);
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetColorU32(ImGuiCol_TextDisabled));
    text_wrapped_words(strf("→ Bc = ⌈%d/(4·%d)⌉ = %d, Br = min(Bc, d) = %d", in.M, in.d, in.Bc, in.Br),
                       ImGui::GetContentRegionAvail().x);
    ImGui::PopStyleColor();
  } else {
    const bool same_mode = app.scenario.block_rows > 0;
    changed |= int_field(app, "Br", &in.Br, "Rows of a Q block (queries per tile).",
                         running(app, app.scenario.block_rows, same_mode));
    changed |= int_field(app, "Bc", &in.Bc, "Rows of a K/V block (keys per tile).",
                         running(app, app.scenario.block_cols, same_mode));
  }
  // The tile at its real size (clamped to N, as the engine clamps it).
  const int Br = std::min(in.Br, in.N), Bc = std::min(in.Bc, in.N);
  const TileShape& tile = info(in.algorithm).tile;
  const TileFitLine fit = tile_fit_line(tile, Br, Bc, in.d, in.M);
  ImGui::PushStyleColor(ImGuiCol_Text, fit.problem ? kBad : kOk);
  // A line each, wrapped short of the edge by the "(?)" that follows the last.
  const ImGuiStyle& st = ImGui::GetStyle();
  ImGui::PushTextWrapPos(ImGui::GetWindowContentRegionMax().x - ImGui::CalcTextSize("(?)").x - st.ItemSpacing.x);
  for (const std::string& line : fit.lines) ImGui::TextUnformatted(line.c_str());
  ImGui::PopTextWrapPos();
  ImGui::PopStyleColor();
  help_marker(tile_rule_help(tile).c_str());
  return changed;
}

bool precision_field(Inputs& in) {
  bool changed = false;
  // Seven ems, fewer (down to four) where the label and its "(?)" would not fit beside it; where
  // even four leave them no room the label goes under the box.
  const ImGuiStyle& st = ImGui::GetStyle();
  const float em = ImGui::GetFontSize();
  const float label_w = st.ItemInnerSpacing.x + ImGui::CalcTextSize("precision").x +
                        (picture_mode() ? 0.0f : st.ItemSpacing.x + ImGui::CalcTextSize("(?)").x);
  const float room = ImGui::GetContentRegionAvail().x;
  const bool beside = room - label_w >= 4.0f * em;
  ImGui::SetNextItemWidth(std::min(beside ? room - label_w : room, 7.0f * em));
  const std::string cur(precision_name(in.precision));
  const bool open = ImGui::BeginCombo("##precision", cur.c_str());
  if (open) {
    for (Precision p : kAllPrecisions) {
      const std::string name(precision_name(p));
      if (ImGui::Selectable(name.c_str(), p == in.precision)) {
        in.precision = p;
        changed = true;
      }
    }
    ImGui::EndCombo();
  }
  if (beside) ImGui::SameLine(0, st.ItemInnerSpacing.x);
  ImGui::TextUnformatted("precision");
  help_marker(("The number format every operation rounds to. fp16 overflows above 65504 "
               "(e^{x} for x > 11.09); fp32 and bf16 above about 3.4×10³⁸ (x > 88.72); fp64 above "
               "1.8×10³⁰⁸ (x > 709.78). " + precision_help()).c_str());
  if (const std::string note = precision_note(in.precision); !note.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetColorU32(ImGuiCol_TextDisabled));
    text_wrapped_words(note, ImGui::GetContentRegionAvail().x);
    ImGui::PopStyleColor();
  }
  return changed;
}

bool backend_field(Inputs& in) {
  bool changed = false;
  ImGui::TextUnformatted("backend");
  flow_next(radio_w("CPU"));
  // Without a GPU backend, or for an algorithm with no GPU engine, the run is on the CPU,
  // whatever the lesson or file asked for; the disabled choice says why.
  const GpuChoice choice = gpu_choice(info(in.algorithm), gpu_backend());
  const bool gpu_ok = choice.enabled;
  if (ImGui::RadioButton("CPU", in.backend == Backend::cpu || !gpu_ok)) {
    in.backend = Backend::cpu;
    changed = true;
  }
  flow_next(radio_w("GPU", true));
  if (!gpu_ok) ImGui::BeginDisabled();
  if (ImGui::RadioButton("GPU", in.backend == Backend::gpu && gpu_ok)) {
    in.backend = Backend::gpu;
    changed = true;
  }
  if (!gpu_ok) ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    tooltip("GPU", choice.reason);
  help_marker("CPU: the reference engine in double/float/half. On the CPU, \"HBM\" in the "
              "sentences and the memory panel is main memory (RAM) and \"SRAM\" the caches: the "
              "same slow/fast split, with the GPU's names. GPU: the same algorithm as OpenGL "
              "compute shaders, read back into the same steps.");
  return changed;
}

// The panel's messages: why the form is not in use, and each field whose text is not the value
// in use (being typed, or refused). They have a place of their own under the undo row, as tall
// whether or not there is something to say, so the fields never move when one appears or goes
// and a click lands where it was aimed. What does not fit is in the tooltip.
void draw_messages(const AppState& app, const std::vector<FieldEdit>& marks, ImVec2 at, ImVec2 size) {
  struct Line {
    std::string text;
    ImVec4 colour;
  };
  const ImVec4 pending(0.95f, 0.62f, 0.0f, 1.0f), bad = ImGui::ColorConvertU32ToFloat4(kBad),
               dim = ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled);
  auto in_use = [](const FieldEdit& e) { return e.in_use.empty() ? std::string("(empty)") : e.in_use; };
  std::vector<Line> lines;
  // A figure shows the values in use in every field: nothing is pending or refused in it.
  if (figure_mode()) return;
  for (const FieldEdit& e : marks)
    if (e.pending)
      lines.push_back({e.label + ": not applied · in use: " + in_use(e) + " (Enter applies it, Esc puts it back)", pending});
  for (const FieldEdit& e : marks)
    if (!e.pending && e.refused) lines.push_back({e.label + ": not in use · in use: " + in_use(e), bad});
  if (!app.input_error.empty()) lines.push_back({"Not applied: " + app.input_error, bad});
  // With nothing to say, how a typed value applies: for the window, not for a picture of it.
  if (lines.empty() && !picture_mode())
    lines.push_back({"Enter or Tab applies a typed value; Esc puts back the value in use.", dim});
  // Whole rows only: what does not fit ends in "…", and the tooltip has all of it.
  struct Row {
    std::string text;
    ImVec4 colour;
  };
  std::vector<Row> rows;
  std::string all;
  for (const Line& l : lines) {
    for (std::string& w : wrap_words(l.text, size.x)) rows.push_back({std::move(w), l.colour});
    all += (all.empty() ? "" : "\n") + l.text;
  }
  const bool cut = rows.size() > static_cast<std::size_t>(kMessageLines);
  if (cut) {
    rows.resize(static_cast<std::size_t>(kMessageLines));
    std::string& last = rows.back().text;
    while (!last.empty() && ImGui::CalcTextSize((last + " …").c_str()).x > size.x) {
      const std::size_t space = last.find_last_of(' ');
      last.erase(space == std::string::npos ? 0 : space);
    }
    last += " …";
  }
  ImGui::SetCursorScreenPos(at);
  ImGui::BeginGroup();
  for (const Row& r : rows) {
    ImGui::PushStyleColor(ImGuiCol_Text, r.colour);
    ImGui::TextUnformatted(r.text.c_str());
    ImGui::PopStyleColor();
  }
  ImGui::EndGroup();
  if (cut && ImGui::IsMouseHoveringRect(at, ImVec2(at.x + size.x, at.y + size.y))) tooltip("Inputs", all);
}

}  // namespace

void draw_inputs_panel(AppState& app, const PanelRect& r) {
  if (!begin_panel("Inputs", r, &app.panels.inputs)) {
    ImGui::End();
    return;
  }
  // Undo, redo and the lesson's own example: every input change can be taken back.
  auto small = [&](const char* label, bool enabled, const char* tip) {
    if (!enabled) ImGui::BeginDisabled();
    const bool pressed = ImGui::SmallButton(label);
    if (!enabled) ImGui::EndDisabled();
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) tooltip(label, tip);
    return pressed;
  };
  auto small_w = [](const char* label) { return ImGui::CalcTextSize(label).x + ImGui::GetStyle().FramePadding.x * 2; };
  if (small("undo", app.can_undo(), "Ctrl+Z: the inputs before the last change (this lesson's own history).")) app.undo_inputs();
  flow_next(small_w("redo"));
  if (small("redo", app.can_redo(), "Ctrl+Shift+Z or Ctrl+Y: the change undone, again.")) app.redo_inputs();
  flow_next(small_w("lesson example"));
  if (small("lesson example", true, "Back to the inputs this lesson opens with the first time (Ctrl+Z undoes). "
                                    "Each lesson keeps its own inputs and playhead while you visit others."))
    app.reset_inputs();
  Inputs& in = app.inputs;
  const AlgorithmInfo& row = info(in.algorithm);
  const bool attention = takes_extent(row, Extent::N);  // N, d and a seed rather than a vector
  bool changed = false;
  // The messages' place, filled once the fields have said what they need (draw_messages). A
  // figure says none (it shows the values in use), so it keeps no empty lines for them.
  const ImVec2 messages_at = ImGui::GetCursorScreenPos();
  const ImVec2 messages_size(ImGui::GetContentRegionAvail().x,
                             ImGui::GetTextLineHeightWithSpacing() * static_cast<float>(kMessageLines));
  if (!figure_mode()) ImGui::Dummy(messages_size);
  begin_field_marks();
  if (!attention) {
    ImGui::TextUnformatted("x");
    ImGui::SameLine();
    changed |= vector_field(app);
  } else {
    const bool same_family = takes_extent(info(app.scenario.algorithm), Extent::N);
    bool shape = int_field(app, "N", &in.N, n_field_help(row).c_str(), running(app, app.scenario.n, same_family));
    if (takes_extent(row, Extent::d))
      shape |= int_field(app, "d", &in.d, d_field_help(row).c_str(), running(app, app.scenario.d, same_family));
    if (has_explicit_qkv(in)) {
      ImGui::TextDisabled("Q, K, V given");
      help_marker("The scenario file or a preset gave Q, K and V. Changing N, d or pressing \"random\" "
                  "replaces them with standard-normal numbers from the seed.");
      flow_next(ImGui::CalcTextSize("random").x + ImGui::GetStyle().FramePadding.x * 2);
      if (ImGui::SmallButton("random")) shape = true;
    } else {
      int seed = static_cast<int>(in.seed);
      const int seed_in_use = static_cast<int>(app.scenario.seed);
      if (int_field(app, "seed", &seed, seed_field_help(row).c_str(), running(app, seed_in_use, same_family))) {
        in.seed = static_cast<std::uint64_t>(std::max(seed, 0));
        changed = true;
      }
    }
    if (shape) clear_explicit_qkv(in);
    changed |= shape;
    // Presets where a score overflows to −∞: the case FlashAttention's guard is for. A name
    // wider than the panel (a larger font) gives its button the brief name; the tooltip has it.
    const ImGuiStyle& st = ImGui::GetStyle();
    bool first = true;
    for (int k = 0; k < static_cast<int>(attention_presets().size()); ++k) {
      const AttentionPreset& p = attention_presets()[static_cast<std::size_t>(k)];
      const float room = ImGui::GetWindowContentRegionMax().x - ImGui::GetWindowContentRegionMin().x;
      const char* label = ImGui::CalcTextSize(p.name).x + st.FramePadding.x * 2 <= room ? p.name : p.brief;
      if (!first) flow_next(ImGui::CalcTextSize(label).x + st.FramePadding.x * 2);
      first = false;
      ImGui::PushID(k);
      const bool pressed = ImGui::SmallButton(label);
      ImGui::PopID();
      if (pressed) {
        set_attention_preset(in, k);
        changed = true;
      }
      if (ImGui::IsItemHovered()) tooltip(p.name, attention_preset_tooltip(k, in.precision));
    }
  }
  changed |= precision_field(in);
  changed |= scale_field(app, in);
  if (!attention && in.scale == ScaleChoice::inv_sqrt_d)
    changed |= int_field(app, "d", &in.d, "The head dimension whose √d divides the scores.",
                         running(app, app.scenario.d, takes(app.scenario.algorithm, kInputX)));
  if (info(in.algorithm).takes_mask) {
    if (ImGui::Checkbox("causal mask", &in.causal)) changed = true;
    help_marker("Query i may only attend to keys j ≤ i (a decoder): the upper triangle of S is "
                "−∞ and whole tiles above the diagonal are skipped.");
  }
  if (info(in.algorithm).takes_blocks) {
    ImGui::Separator();
    changed |= blocks_field(app);
  }
  // The parameters the algorithm takes that have no group of their own (core/params.h).
  for (const ParamDecl& p : params())
    if (!p.own_widget && takes(in.algorithm, p)) changed |= param_field(app, p);
  ImGui::Separator();
  changed |= backend_field(in);
  const std::vector<FieldEdit> marks = end_field_marks();
  if (changed) app.inputs_edited();
  g_needed_height = ImGui::GetCursorPosY() + ImGui::GetStyle().WindowPadding.y;
  const ImVec2 end = ImGui::GetCursorScreenPos();
  draw_messages(app, marks, messages_at, messages_size);
  ImGui::SetCursorScreenPos(end);
  ImGui::End();
}

float inputs_panel_height() { return g_needed_height; }

std::string scale_line(const AppState& app) {
  const Inputs& in = app.inputs;
  const bool refused = !app.input_error.empty();
  const Inputs& used = refused ? app.inputs_in_use() : in;
  if (in.scale == ScaleChoice::none && used.scale == ScaleChoice::none) return "";
  const double shown = scale_of(used);
  return "scores × " + num(shown) + (refused && scale_of(in) != shown ? " (in use)" : "");
}

}  // namespace flashstep::ui
