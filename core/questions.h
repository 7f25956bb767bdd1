// "Predict the next value": questions asked before a step is shown, made from the Recording
// (so they hold for any input, not only a lesson's preset), and the scoring of an answer.
//
// A question belongs to a step: it is asked while the step before it is on screen, and its
// answer is what the step leaves behind. The events asked about: the step where a row's m
// changes (its new m, or the rescale factor e^(m_old − m_new) it applies to l and O), l after
// a step, the tile a tiled step works on next (the loop order; a tile's m and l follow from
// scores not yet on screen, so tile steps ask this instead), and the HBM reads counted when a
// pass ends.
//
// "Right" means right at the digits the screen shows: values are shown with num()'s 5
// significant digits (core/text.h, as in the sentences, registers and tooltips), and an answer
// is right when it equals the value rounded to the significant digits the student typed, up to
// those 5; at least 3 are asked for (fewer only where the value shown has fewer: 1, 0.5), so
// "2.72" is right for 2.7183 and "3" is not. A 16-bit run's value is asked "in fp16" (or bf16),
// and an answer within one step of the format of it is right as well: 27.4746 (e³ + e², worked
// out exactly) for the 27.469 that fp16 holds, its step there 1/64. Counts and tiles are whole
// numbers, right only when equal.
#pragma once

#include "core/recording.h"

#include <string>
#include <string_view>
#include <vector>

namespace flashstep {

enum class QuestionKind { m, l, rescale, tile, hbm_reads };

struct Question {
  int step = 0;  // 0-based: asked before this step is shown; answered by the state after it
  QuestionKind kind = QuestionKind::m;
  int row = -1;         // the row asked about (m, l, rescale); −1: none
  std::string prompt;   // in markup (core/markup.h): "What is m after step 5?", "…, in fp16?"
  std::string hint;     // how to answer: "a number", "a tile as i, j"
  double value = 0;     // m, l, rescale, hbm_reads
  int tile_i = 0, tile_j = 0;  // tile: counted from 1, as shown
  // tile: the loop the step moves along from the tile before it, 'i' (Q blocks inner, as
  // FlashAttention-1 and the backward) or 'j' (K/V blocks inner, FlashAttention-2's forward);
  // 0 when it jumps or follows no tile. Each loop order a recording has is asked once first.
  char moves = 0;
  int digits = 5;       // significant digits shown; 0: a whole number, exact
  // In a 16-bit run (fp16, bf16), the spacing of the format at the value: an answer within it
  // of the value is right too (the prompt names the format). 0 otherwise.
  double slack = 0;
  std::string shown;    // the answer as the screen shows it: "2.7183", "(2, 1)", "1024"
};

inline constexpr int kShownDigits = 5;     // num()'s default: what the screen shows
inline constexpr int kFewestDigits = 3;    // what an answer must give at least
inline constexpr int kMaxQuestions = 10;

// Up to `max_questions` questions, in step order, at least a few steps apart, mixing the
// kinds the recording has. None for a recording without steps.
std::vector<Question> make_questions(const Recording& rec, int max_questions = kMaxQuestions);

// The question asked at step k, or nullptr.
const Question* question_at(const std::vector<Question>& qs, int step);

struct Verdict {
  bool accepted = false;  // false: `error` says why the input is not an answer (ask again)
  std::string error;
  bool right = false;
  std::string yours, answer;  // as shown: "2.72", "2.7183"
  // "you: 2.72, right: 2.7183 ✓" / "you: 3, right: 2.7183 ✗"
  std::string line() const;
};

// The student's input against the question's answer (see the top of this file).
Verdict score(const Question& q, std::string_view input);

}  // namespace flashstep
