// AppState: the one object that owns what the window shows. It holds the lesson, the Inputs
// form, the Scenario and the Recording made from it, the Cursor and the Timeline (playhead),
// the "panel open" flags and each panel's small options struct. Panels (panel_*.cpp) read it
// and call its methods; the frame loop (frame.cpp) draws them as a flat list.
//
// Invariant: `rec` is never null and always matches `scenario`; bad input leaves both as they
// were (the message goes to the status bar and the log), so the student never loses the last
// valid state.
//
// Its methods live in app_state.cpp (messages, fonts, the frame's tick), lesson_work.cpp (each
// lesson's kept work and undo), lesson_recording.cpp (recording the form, in the background
// where allowed) and compare_state.cpp (the Compare tab).
#pragma once

#include "app/ui/labs/lab_measure.h"
#include "app/ui/labs/lab_overflow.h"
#include "app/ui/labs/lab_scale.h"
#include "app/ui/model/ask.h"
#include "app/ui/model/inputs.h"
#include "app/ui/model/open_job.h"
#include "app/ui/model/pen.h"
#include "app/ui/model/record_job.h"
#include "app/ui/model/text_lines.h"
#include "app/ui/model/theme.h"
#include "app/ui/model/timeline.h"
#include "app/ui/model/transition.h"
#include "app/ui/model/tour_state.h"
#include "app/ui/model/view_options.h"
#include "app/ui/views/hit_map.h"
#include "core/lessons.h"
#include "core/recording.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace flashstep::ui {

// What keeps a scenario from being recorded in the window (too big to keep every step);
// empty when it can be.
std::string too_big(const Resolved& r);

enum class Severity { info, warning, error };

struct LogEntry {
  double time = 0;  // seconds since the app started
  Severity severity = Severity::info;
  std::string text;
};

struct PanelFlags {
  bool lessons = true, inputs = true, view = true, explanation = true, pseudocode = true,
       memory = true, timeline = true, status = true, log = false, shortcuts = false;
};

// The tabs of the central area, and their one name each: in scenario files ("layout.tab"), in
// lesson files ("tab", core/lessons.h), and as `--panel` names (except the lesson's own tab,
// whose panel is "view").
enum class Tab { lesson, steps, compare, overflow_lab, scale_lab, measure_lab };
inline constexpr std::pair<Tab, std::string_view> kTabNames[] = {
    {Tab::lesson, "lesson"},          {Tab::steps, "steps"},         {Tab::compare, "compare"},
    {Tab::overflow_lab, "overflow-lab"}, {Tab::scale_lab, "scale-lab"}, {Tab::measure_lab, "measure-lab"}};
inline std::string_view tab_name(Tab t) {
  for (const auto& [tab, name] : kTabNames)
    if (tab == t) return name;
  return "lesson";
}
inline std::optional<Tab> parse_tab(std::string_view name) {
  for (const auto& [tab, n] : kTabNames)
    if (n == name) return tab;
  return std::nullopt;
}

// One key press (or auto-repeat) as the window reported it: GLFW's key code and modifiers.
struct KeyPress {
  int key = 0;
  bool shift = false, ctrl = false, repeat = false;
};

// Names a recording for what was measured on it (a view's room, the rows of a table): not by its
// address, which a new recording may take over once the old one is freed.
class RecordingKey {
 public:
  RecordingKey() = default;
  explicit RecordingKey(const std::shared_ptr<const Recording>& r) : rec_(r) {}
  bool is(const std::shared_ptr<const Recording>& r) const { return rec_.lock() == r; }
  bool expired() const { return rec_.expired(); }

 private:
  std::weak_ptr<const Recording> rec_;
};

// A Recording with the Cursor that plays it; the Cursor points into the Recording, so the two
// travel together.
struct Played {
  std::shared_ptr<const Recording> rec;
  std::unique_ptr<Cursor> cursor;
  void set(std::shared_ptr<const Recording> r);
  void seek(int k, int part = -1);
  // The step shown: rec.steps[k], or while a part of it is shown, the step as of that part
  // (step_as_of_part: only what is written so far counts as written).
  const Step* step() const;
  const StepPart* part() const;  // the part of step() shown, nullptr for the whole step

 private:
  Step as_of_part_;
};

// Two algorithms on the same input under one playhead.
struct CompareState {
  Algorithm a = Algorithm::safe, b = Algorithm::online;
  Backend backend_a = Backend::cpu, backend_b = Backend::cpu;  // GPU only where it is available
  Played left, right;
  Timeline timeline;  // as long as the longer of the two
  std::string error;
  bool dirty = true;  // re-record on the next frame
  // A side on the GPU records on the backend's thread where the window allows it; the pair is
  // shown once both sides have arrived (AppState::tick), and the previous pair until then.
  RecordJob jobs[2];
  std::shared_ptr<Recording> arrived[2];
  std::uint64_t ticket = 0;  // of the pair being recorded: a newer one drops older results
  bool recording() const { return jobs[0].active() || jobs[1].active(); }
  float progress() const;  // of the sides still recording
  ViewStates views[2];  // the left and right views' options
  // The lines of the sides' wrapping text: the most any step of either side takes at `width`,
  // by font size, found once per pair and size; and the height the views have been seen to
  // need (their height and what was left to scroll), which the text gives way to (panel_compare.cpp).
  struct SentenceRoom {
    RecordingKey a, b;
    float width = 0, scale = 0;
    std::vector<std::pair<float, int>> lines;  // font size, lines
    float view_need = 0;
  } sentence_room;
  // As drawn in the last frame: how far right the controls (presets, pickers, the GPU box) went
  // and the tab's right edge, px.
  float controls_right = 0, controls_edge = 0;
};

class AppState {
 public:
  AppState();

  // ---- what is shown ----
  int lesson = 0;
  Inputs inputs;           // the form, possibly not yet valid
  Scenario scenario;       // the scenario `played` was recorded from
  std::string input_error; // why the form is not in use; empty when it is
  Played played;
  Timeline timeline;
  PanelFlags panels;
  Tab tab = Tab::lesson;
  bool tab_changed = false;  // select `tab` in the tab bar on the next frame
  Theme theme = Theme::dark;
  float ui_scale = 1.0f;    // what sizes are multiplied by: screen DPI × font_scale
  float font_scale = 1.0f;  // the user's choice, 1..3 (View ▸ Font size, Ctrl+= / Ctrl+-)
  // The scale at font 1× (the screen's and presentation mode's): where a larger font leaves no
  // room, a view is drawn no smaller than this.
  float font_1x_scale() const { return ui_scale / (font_scale > 1.0f ? font_scale : 1.0f); }
  bool presenting = false;  // presentation mode: one big view, keyboard stepping
  bool presentation_memory = true;  // the memory panel under the view in presentation mode (M)
  Transition motion;  // the lesson's move between steps (View ▸ Animate steps)
  Pen pen;            // the pointer and pen of presentation mode (L)
  bool background_allowed = true;  // false: record on the calling thread (exports, tests)
  bool quit_requested = false;
  // Every key press since the last frame, from the window's key callback: ImGui 1.86 drops a
  // key pressed and released within one frame, which is what a presentation clicker sends.
  // The shortcuts read these when key_presses_from_window, else what ImGui saw.
  std::vector<KeyPress> key_presses;
  bool key_presses_from_window = false;

  // ---- files: the menu and the keys ask, the frame loop (which owns the dialogs) acts ----
  std::string document_path;              // the scenario file last opened or saved; "" = none
  std::vector<std::string> recent_files;  // most recent first
  struct Requests {
    bool open = false, save = false, save_as = false, export_dialog = false;
    std::string open_path;  // open this file (recent files, drag and drop)
    bool open_tour = false;  // File ▸ Open tour…
  } requests;

  // ---- panel options ----
  ViewStates views;  // the lesson's view's options, by kind
  MemoryPanelOptions memory_panel;
  CompareState compare;
  // The height a tab on a slide was seen to need, at the full scale, for one recording (the
  // lesson's view), window size and scale: where it needs more than the slide has (a font made
  // larger), it is drawn smaller, down to its size at font 1× (panel_view.cpp).
  struct PresentedRoom {
    RecordingKey rec;  // the lesson's view's recording; none for a lab
    float width = 0, height = 0, scale = 0;
    float need = 0;   // seen above the font-1× size
    float tight = 0;  // seen at or below it
    // This room, or a new one where any of those changed.
    PresentedRoom& at(const std::shared_ptr<const Recording>& r, float w, float h, float s) {
      if (!rec.is(r) || width != w || height != h || scale != s) *this = {RecordingKey(r), w, h, s, 0, 0};
      return *this;
    }
  };
  std::map<Tab, PresentedRoom> presented_rooms;  // each tab's, so that going back finds it
  // The Steps tab's rows, whose explanations wrap onto one to several lines: each row's top in
  // the table for one recording, column width and font size (an ImGuiListClipper takes every
  // row as high as the first, and scrolled to the wrong step); the playhead the table last
  // scrolled to; and, for tests, where the playhead's row and the rows in sight were last drawn
  // (screen y).
  // Every step's sentence of a recording measured at one font size (text_lines.h), for the
  // Steps tab and Compare to count lines at any width: the last few, most recent first
  // (panels.h's step_sentences).
  struct StepSentences {
    RecordingKey rec;
    const void* font = nullptr;  // the ImFont they were measured in
    MeasuredTexts texts;
  };
  std::vector<StepSentences> step_sentences;
  struct StepsTableLayout {
    RecordingKey rec;
    float width = 0, font = 0;
    bool stacked = false;     // a narrow tab: each step's explanation under its line, not beside it
    std::vector<double> top;  // step_count() + 1 entries, from 0
    int followed = -2;
    int refollowed = 0;  // times it followed the same playhead again after laying out again
    float row_y0 = 0, row_y1 = 0, seen_y0 = 0, seen_y1 = 0;
    float off = 0;  // the most a row drawn last frame stood from where its height put it
  } steps_table;
  Quiz quiz;        // View ▸ Ask me first: questions before steps (ask.h)
  GoToBox go_to;    // Ctrl+G
  OverflowLab overflow_lab;
  ScaleLab scale_lab;
  MeasureLab measure_lab;
  struct PseudocodePanel {
    bool follow = true;    // scroll the highlighted line into view
    int scrolled_to = -1;  // the step (and part) it last scrolled for, at this panel height
    int scrolled_part = -1;
    float scrolled_height = 0;
    int settle = 0;  // frames left to repeat the scroll while the layout settles
    // As drawn in the last frame: one leading space's width, the least width any line's text
    // was wrapped to, and the font's size, px.
    float indent_w = 0, narrowest = 0, font_size = 0;
  } pseudocode;
  struct ExplanationPanel {
    // As drawn in the last frame, in the window: how the line above the sentence said how to
    // walk the step's parts (0 not, 1 in brief, 2 in full), the scale of that line's text (1:
    // the font's), and where the sentence and the panel's visible content end, px.
    int key_hint = 0;
    float where_scale = 1, sentence_top = 0, sentence_bottom = 0, room_bottom = 0;
  } explanation;
  TourState tour;  // the guided tour: on or off, its stop, a tour file (tour_state.h)
  // What the lesson's view, the memory panel and the pseudocode drew where in this frame
  // (cleared when the frame starts): outlines and clicks find elements on screen through it.
  HitMap hits;

  // ---- messages ----
  // Every message goes to the log. The status bar shows the last one only while it belongs to
  // the moment (status_line()): an input error while the form is not in use, "recording…"
  // while the job runs, any other message for a few seconds and never past a change of lesson
  // or document.
  enum class Topic { event, input, recording };
  std::vector<LogEntry> log;
  std::string status;  // the last message
  Severity status_severity = Severity::info;
  void note(Severity s, std::string text, Topic topic = Topic::event);
  struct StatusLine {
    std::string text;  // empty: nothing to say
    Severity severity = Severity::info;
  };
  StatusLine status_line() const;
  void new_context() { ++context_; }  // a lesson or a document opened: older messages are done
  static constexpr double kEventSeconds = 8.0, kProblemSeconds = 20.0;

  // ---- background recording, and a scenario file being read (document.h) ----
  RecordJob job;
  OpenJob opening;

  // ---- each lesson's work ----
  // What a lesson showed when it was left: the inputs in use and the playhead. Opening the
  // lesson again brings them back (an accidental ↓ loses nothing); reset_inputs() goes back to
  // the lesson's own example. Kept while the app runs and in the saved session (app/session.h).
  // The recording is kept too, while the recordings of the lessons left fit in kept_budget
  // bytes, so opening the lesson again shows it at once; the one left longest ago is let go
  // first (said in the status line), and is recorded again when its lesson is opened.
  struct Kept {
    Inputs inputs;
    int playhead = 0;
    std::shared_ptr<const Recording> rec;  // made from `inputs`; null: not kept
    Scenario scenario;                     // what rec was recorded from
    std::size_t bytes = 0;                 // rec->memory_bytes()
    std::uint64_t left = 0;                // when the lesson was left (a count): oldest first
  };
  std::map<std::string, Kept> kept;  // by lesson id; never the lesson shown
  int kept_generation = 0;           // counts changes of `kept`, so the session saves only news
  std::size_t kept_budget = std::size_t{1} << 30;  // bytes of recordings the lessons left keep

  // ---- actions ----
  // Opens a lesson as it was left (kept), or on its example the first time.
  void open_lesson(int index);
  bool open_lesson(std::string_view id);
  // Opens a lesson on given inputs (a scenario file): the inputs it had go to its undo history.
  void open_lesson_with(int index, const Inputs& in);
  // The form changed: re-record if it is valid, keeping the playhead in the same pass.
  void inputs_changed();
  // The user changed the form (the Inputs panel): as inputs_changed(), and undoable.
  void inputs_edited();
  // Undo and redo of input changes, per lesson (Ctrl+Z, Ctrl+Shift+Z or Ctrl+Y). False when
  // there is nothing to undo or redo.
  bool undo_inputs();
  bool redo_inputs();
  bool can_undo() const;
  bool can_redo() const;
  // Back to the lesson's own example, undoably. False when it is already showing it.
  bool reset_inputs();
  // A refused form takes back the inputs in use (Esc): false when the form is in use.
  bool revert_inputs();
  // The inputs the recording on screen was made from: the last valid form.
  const Inputs& inputs_in_use() const { return in_use_; }
  // Why `in` cannot be recorded in the window (bad field, too big, not on this GPU); empty
  // when it can. Changes nothing.
  std::string check(const Inputs& in) const;
  void set_theme(Theme t);
  // Font size steps of View ▸ Font size and Ctrl+= / Ctrl+−, 1× to 3×.
  void set_font_scale(float f);
  void bigger_font();
  void smaller_font();
  // The playback speed of the lesson's and Compare's timelines: the nearest of Timeline::kSpeeds.
  void set_play_speed(double steps_per_second);
  void seek(int k, int part = -1);                 // the lesson's playhead
  // The lesson's playhead at step k: now, or when the background recording arrives.
  void place_playhead(int k);
  void sync_cursor();               // after moving `timeline` directly
  // After the user moved or started the active timeline (keys, buttons, scrubber, Steps tab):
  // the recording it steps becomes visible, so a lab tab gives way to the lesson's view.
  void timeline_used();
  void cancel_recording();
  // Stops Compare's recordings on the GPU; the pair shown stays.
  void cancel_compare();
  // Per frame: collects a finished background recording, plays, re-records compare.
  void tick(double dt);

  // The timeline the controls and keys drive: the compare playhead on the Compare tab.
  Timeline& active_timeline();
  // The same, with Compare's recordings made first when they are due (a picture of the Compare
  // tab, before any frame), and a seek of it.
  Timeline& settled_timeline();
  void seek_active(int k, int part = -1);
  const Lesson& current_lesson() const;
  double clock() const;  // seconds since start

 private:
  void adopt(std::shared_ptr<const Recording> rec, const Scenario& s, bool keep_pass);
  void record_now(const Scenario& s, bool keep_pass);
  void compare_update();
  void compare_collect();
  void compare_install();
  void compare_sync();
  void enter_lesson(int index, const Inputs* with);
  // Lets the recordings of the lessons left go, oldest first, until they fit kept_budget.
  void trim_kept();
  // While a lesson's first recording runs in the background: an empty recording of its
  // algorithm, so nothing of the lesson left is drawn under this one's name.
  void show_pending();
  Inputs example_inputs(int index) const;
  // A running background recording is dropped (newer inputs, another lesson): logged.
  void supersede_job(const std::string& why);
  void push_undo(const Inputs& before);
  void restore_inputs(const Inputs& in);
  static constexpr std::size_t kUndoDepth = 100;
  std::map<std::string, std::vector<Inputs>> undo_, redo_;  // by lesson id, oldest first
  Inputs in_use_;          // the inputs of the recording on screen
  Inputs pending_inputs_;  // the inputs of the background recording
  bool opened_ = false;  // a lesson has been opened (before: nothing to keep)
  std::uint64_t lessons_left_ = 0;  // counts lessons left, for Kept::left
  int pending_playhead_ = -1;  // where a background recording of kept inputs opens
  long long pending_steps_ = 0;
  std::uint64_t ticket_ = 0;
  Scenario pending_;  // scenario of the running background job
  bool pending_keep_pass_ = false;
  bool pending_quiet_ = false;  // a small GPU recording: no "Recording…" / "Recorded" notes
  double start_time_ = 0;
  Topic status_topic_ = Topic::event;
  double status_time_ = 0;
  int status_context_ = 0, context_ = 0;
};

}  // namespace flashstep::ui
