// The views by kind. The algorithm table's row names the ViewKind that draws its recordings
// (core/algorithms.h); this registry gives that kind's draw function and the options type it
// keeps (one per kind, in a ViewStates), and says whether it finds its buffers in a recording.
// The app draws every recording through it and never switches on a kind.
//
// Adding a view: its ViewKind value (core/algorithms.h), its file(s) here — a draw function
// `void draw_x_view(const ViewInput&, XViewOptions&)`, an options struct naming its kind
// (`static constexpr ViewKind kKind`, with a `bool show_toolbar` that presentation mode and
// Compare turn off) and a `bool x_view_draws(const Recording&)` — and one
// line in view_registry.cpp. tests/app/test_view_registry.cpp checks that every row's view is
// registered and draws that row's recording.
#pragma once

#include "app/ui/model/view_options.h"
#include "app/ui/views/view.h"
#include "core/algorithms.h"

#include <vector>

namespace flashstep::ui {

// Where a view is drawn: the lesson's tab (its toolbar as its options say), presentation mode
// and `shot --panel view` (no toolbar, and nothing the room clicks changes the lecturer's
// options), or one of the Compare tab's two columns.
enum class ViewPlace { lesson, presented, compare };

struct ViewEntry {
  ViewKind kind;
  // Draws `vi` into the current window with this kind's options from `views`.
  void (*draw)(const ViewInput& vi, ViewStates& views, ViewPlace place);
  // Whether the recording holds what the view draws (its buffers and shape).
  bool (*draws)(const Recording& rec);
};

// Every registered view; find_view() gives the one of `kind`, nullptr when none is.
const std::vector<ViewEntry>& view_registry();
const ViewEntry* find_view(ViewKind kind);

// What a presented draw keeps of the copy it drew on: nothing, unless the options type has an
// overload (the matrix view keeps what it measured of its own layout, view_options.h).
template <class Options>
void keep_after_presenting(Options&, const Options&) {}

// The draw function of a view whose options are `Options` (view_registry.cpp's lines).
// With `toolbar_in_compare` false, the Compare tab's narrow columns draw it without its toolbar.
template <class Options, void (*Draw)(const ViewInput&, Options&), bool toolbar_in_compare = true>
void draw_view(const ViewInput& vi, ViewStates& views, ViewPlace place) {
  Options& opt = views.get<Options>();
  switch (place) {
    case ViewPlace::lesson: Draw(vi, opt); return;
    case ViewPlace::presented: {
      Options shown = opt;
      shown.show_toolbar = false;
      Draw(vi, shown);
      keep_after_presenting(opt, shown);
      return;
    }
    case ViewPlace::compare:
      if (!toolbar_in_compare) opt.show_toolbar = false;
      Draw(vi, opt);
      return;
  }
}

}  // namespace flashstep::ui
