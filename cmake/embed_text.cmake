# Turns text files into one C++ file of raw string literals, so the executable carries them and
# needs no data directory at run time (shaders/*.comp for the GPU engine, assets/lessons/*.json
# for the lesson catalogue). Each entry is {PREFIX + file name, contents}.
# Usage: cmake -DOUT=out.cpp -DSOURCES="a;b" -DINCLUDE=core/lessons.h -DNAMESPACE=flashstep
#              -DFUNCTION=embedded_lesson_files -DTYPE=LessonFile -DPREFIX=assets/lessons/
#              -DDELIM=json -DFROM=assets/lessons/ -P cmake/embed_text.cmake
set(body "// Generated from ${FROM} by cmake/embed_text.cmake; edit those files instead.\n")
string(APPEND body "#include \"${INCLUDE}\"\n\nnamespace ${NAMESPACE} {\n\n")
string(APPEND body "const std::vector<${TYPE}>& ${FUNCTION}() {\n")
string(APPEND body "  static const std::vector<${TYPE}> kFiles = {\n")
foreach(src IN LISTS SOURCES)
  get_filename_component(name "${src}" NAME)
  file(READ "${src}" text)
  string(FIND "${text}" ")${DELIM}\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${src} contains the raw-string delimiter )${DELIM}\"")
  endif()
  string(APPEND body "      {\"${PREFIX}${name}\", R\"${DELIM}(${text})${DELIM}\"},\n")
endforeach()
string(APPEND body "  };\n  return kFiles;\n}\n\n}  // namespace ${NAMESPACE}\n")
# Only touch the file when it changes, so an unrelated reconfigure rebuilds nothing.
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT "${old}" STREQUAL "${body}")
  file(WRITE "${OUT}" "${body}")
endif()
