// File ▸ Export (Ctrl+E): a modal that exports the picture of the window or of one panel (PNG
// at 1×, 2× or 4× the screen's resolution, optionally on a transparent background), an
// animation of a range of steps (GIF at a chosen frame rate, with a progress bar and Cancel),
// or the Recording (JSON, as `flashstep run` writes it). Enter exports, Escape cancels; saving
// over a file asks first; what went wrong stays in the dialog in red and goes to the log.
//
// The frame loop owns one ExportDialog. It calls draw_export_dialog() inside the ImGui frame,
// after the panels, and export_dialog_tick() between frames (after the buffers are swapped):
// the exports render off-screen with the window's OpenGL context and their own ImGui context,
// which is safe only outside the window's frame. The work itself is ExportJob's
// (export_job.h).
#pragma once

#include "app/export/export_job.h"

#include <string>

struct GLFWwindow;

namespace flashstep::ui {

struct ExportDialog {
  // ---- the choices, kept from one export to the next ----
  ExportRequest::Kind kind = ExportRequest::png;
  std::string panel;             // "" = the whole window, else a name from panel_names()
  int multiple = 1;              // 1×, 2× or 4× the screen's resolution
  bool transparent = false;      // PNG
  int from = 1, to = 1;          // GIF: steps as the timeline numbers them (from 1)
  float fps = 4.0f;              // GIF
  bool parts = false;            // GIF: a frame for each part of a tiled step
  int tween = 0;                 // GIF: in-between frames per move between steps
  bool json_steps = true, json_output = true;
  std::string path;              // the file field
  bool path_typed = false;       // the user edited the field: stop proposing names
  std::string last_folder;       // where the last export went; "" = the working folder

  // ---- while it is open ----
  bool open = false;
  bool want_popup = false, first_frame = false, close_requested = false;
  bool start_requested = false;  // Export was pressed: export_dialog_tick() starts `pending`
  ExportRequest pending;
  std::string error;             // why the last export failed (red), until the next try
  std::string notice;            // what happened otherwise ("Export cancelled: …")
  std::string replace;           // the existing file the export asks to replace; "" = not asking
  // An active text field keeps its own copy of the text: a new proposal gets a new field (and
  // the keyboard focus back when the old one had it).
  int field_generation = 0;
  bool field_active = false;
  ExportJob job;
};

// Opens on app.requests.export_dialog (the File menu and Ctrl+E set it) and draws the modal
// while it is open. Call every frame, inside the ImGui frame, outside any window.
void draw_export_dialog(AppState& app, ExportDialog& d);

// Between frames: starts the export the dialog asked for (a PNG or JSON is written there and
// then), or renders the next frame of a GIF being written. host: the window, whose OpenGL
// context renders; null: a hidden window of the job's own.
void export_dialog_tick(AppState& app, ExportDialog& d, GLFWwindow* host);

// Whether an export is running or about to start: the frame loop should not sleep.
bool export_dialog_busy(const ExportDialog& d);

}  // namespace flashstep::ui
