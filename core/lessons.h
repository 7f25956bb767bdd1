// The lesson catalogue: each lesson is data (a preset scenario and the words around it), in
// teaching order. The app's sidebar, `flashstep lessons` and the exporters all read this list.
#pragma once

#include "core/scenario.h"

#include <string>
#include <vector>

namespace flashstep {

struct Lesson {
  std::string id;       // "online", "attn-tiled", ...
  std::string title;    // "3. Online softmax (2 passes)"
  std::string summary;  // two or three sentences: what to watch for
  Scenario scenario;    // the preset it opens with
  std::string backend = "cpu";
};

const std::vector<Lesson>& lessons();
const Lesson* find_lesson(std::string_view id);

}  // namespace flashstep
