// The Recording as JSON: the schema of `flashstep run` and of the app's JSON export.
// Non-finite numbers are the strings "inf", "-inf", "nan"; undefined m or l entries are null.
#pragma once

#include "core/recording.h"

#include <nlohmann/json.hpp>

namespace flashstep {

using Json = nlohmann::ordered_json;

Json number_json(double x);
Json recording_json(const Recording& rec, bool include_steps, bool include_output = true);

}  // namespace flashstep
