// The translation unit that the test programs' precompiled headers are made for (tests/CMakeLists.txt:
// flashstep_test_pch); it has no code of its own.
