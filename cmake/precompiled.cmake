# Precompiled headers: Eigen's core (in about 200 of the build's translation units), nlohmann-json
# (80) and doctest (the tests) are parsed once per target instead of once per file. Eigen alone
# costs 1.2 s of CPU per file at -O3, json 1.0 s; the sanitizer build parses them again.
# FLASHSTEP_PCH=OFF builds without them, which also checks that every file includes what it uses.
option(FLASHSTEP_PCH "Precompile the headers most files include (Eigen, nlohmann-json, doctest)" ON)

set(flashstep_pch_headers <Eigen/Core> <nlohmann/json.hpp> <algorithm> <cmath> <cstdint> <limits>
                          <memory> <optional> <string> <string_view> <vector>)

# flashstep_precompile(TARGET [EXTRA_HEADER...]): TARGET's files start from the common headers
# (and EXTRA_HEADERs) precompiled for it.
function(flashstep_precompile target)
  if(FLASHSTEP_PCH)
    target_precompile_headers(${target} PRIVATE ${flashstep_pch_headers} ${ARGN})
  endif()
endfunction()

# flashstep_precompile_like(TARGET FROM): TARGET reuses FROM's precompiled headers, which needs the
# same compile flags (CMake adds -Winvalid-pch: under -Werror a header that does not fit fails the
# build rather than being parsed again unnoticed).
function(flashstep_precompile_like target from)
  if(FLASHSTEP_PCH)
    target_precompile_headers(${target} REUSE_FROM ${from})
  endif()
endfunction()
