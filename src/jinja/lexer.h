// Lexer: template source -> tokens, as Jinja2's lexer does with transformers' settings
// (trim_blocks, lstrip_blocks, keep_trailing_newline=False): newlines normalised to \n, one
// trailing newline dropped, `{%- -%}` / `{{- -}}` / `{#- -#}` strip all whitespace on that side,
// `{%+` / `+%}` opt out of lstrip / trim, `{% raw %}` passes text through, comments vanish.
// Every token carries its 1-based line and column for error messages.
// Internal to src/jinja/ (tests/build/internal_headers.cmake).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ltl::ct {

enum class Tok : uint8_t {
  kData,
  kVarBegin,
  kVarEnd,
  kBlockBegin,
  kBlockEnd,
  kName,
  kString,
  kInteger,
  kFloat,
  // operators
  kAdd,
  kSub,
  kMul,
  kDiv,
  kFloorDiv,
  kPow,
  kMod,
  kTilde,
  kLBracket,
  kRBracket,
  kLParen,
  kRParen,
  kLBrace,
  kRBrace,
  kEq,
  kNe,
  kGt,
  kGe,
  kLt,
  kLe,
  kAssign,
  kDot,
  kColon,
  kPipe,
  kComma,
  kSemicolon,
  kEof,
};

struct Token {
  Tok type = Tok::kEof;
  int line = 1, column = 1;
  std::string text;  // data text, name, or decoded string literal
  int64_t int_value = 0;
  double float_value = 0;
};

const char* TokName(Tok t);

// Tokenizes `source`; throws TemplateError (kSyntax) with the position on malformed input.
std::vector<Token> Tokenize(std::string_view source);

}  // namespace ltl::ct
