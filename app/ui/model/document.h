// Scenario files in the window: the whole state a lecturer prepares (lesson, inputs,
// parameters, playhead, which panels are open and which tab is shown) to and from the
// ScenarioDocument of core/scenario_json.h. No ImGui here (tests/app/test_document.cpp).
//
// Loading is all or nothing: a file that does not parse, has a newer version, names an unknown
// lesson or holds inputs the window cannot record is refused with one message, and the state
// the student had stays as it was.
#pragma once

#include "app/ui/model/app_state.h"
#include "core/scenario_json.h"

#include <string>
#include <vector>

namespace flashstep::ui {

// The document that reproduces what `app` shows.
ScenarioDocument make_document(const AppState& app);
Json layout_json(const AppState& app);  // the "layout" part: panels, tab, compare pair

// Puts `doc` into `app`: the lesson, its form from doc.scenario, a recording made at once (not
// in the background, so the playhead can be placed), the layout, the playhead (clamped to the
// recording). False with `error` set, and `app` unchanged, when it cannot.
bool apply_document(AppState& app, const ScenarioDocument& doc, std::string& error);

// The lessons' kept work (AppState::kept) for the saved session: {"lessons": [document, …]},
// one scenario document per lesson left with its inputs and playhead. Reading is per lesson:
// one that cannot be used (unknown lesson, too big) is skipped with a notice, the rest come back.
Json kept_to_json(const AppState& app);
void kept_from_json(AppState& app, const Json& j, std::vector<std::string>& notices);

// File versions: they note what happened in the status bar and the log. save_document writes
// atomically; open_document reads, parses and applies. On success the file becomes
// app.document_path and the first of app.recent_files (add_recent, app/settings.h).
bool save_document(AppState& app, const std::string& path);
bool open_document(AppState& app, const std::string& path);
// The window's way to open: the file is read and parsed off the UI thread (AppState::opening,
// with progress and cancel in the status bar), so a 50 MB file never freezes the window.
// poll_open_document, once per frame, applies it when it is ready; true on that frame.
void begin_open_document(AppState& app, const std::string& path);
bool poll_open_document(AppState& app);

}  // namespace flashstep::ui
