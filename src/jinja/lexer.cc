// Jinja2 lexing with transformers' whitespace settings (see lexer.h).
#include "jinja/lexer.h"

#include <charconv>
#include <cstdlib>
#include <cstring>

#include "jinja/errors.h"
#include "jinja/py_unicode.h"

namespace ltl::ct {

const char* TokName(Tok t) {
  switch (t) {
    case Tok::kData:
      return "template data";
    case Tok::kVarBegin:
      return "begin of print statement";
    case Tok::kVarEnd:
      return "end of print statement";
    case Tok::kBlockBegin:
      return "begin of statement block";
    case Tok::kBlockEnd:
      return "end of statement block";
    case Tok::kName:
      return "name";
    case Tok::kString:
      return "string";
    case Tok::kInteger:
      return "integer";
    case Tok::kFloat:
      return "float";
    case Tok::kAdd:
      return "'+'";
    case Tok::kSub:
      return "'-'";
    case Tok::kMul:
      return "'*'";
    case Tok::kDiv:
      return "'/'";
    case Tok::kFloorDiv:
      return "'//'";
    case Tok::kPow:
      return "'**'";
    case Tok::kMod:
      return "'%'";
    case Tok::kTilde:
      return "'~'";
    case Tok::kLBracket:
      return "'['";
    case Tok::kRBracket:
      return "']'";
    case Tok::kLParen:
      return "'('";
    case Tok::kRParen:
      return "')'";
    case Tok::kLBrace:
      return "'{'";
    case Tok::kRBrace:
      return "'}'";
    case Tok::kEq:
      return "'=='";
    case Tok::kNe:
      return "'!='";
    case Tok::kGt:
      return "'>'";
    case Tok::kGe:
      return "'>='";
    case Tok::kLt:
      return "'<'";
    case Tok::kLe:
      return "'<='";
    case Tok::kAssign:
      return "'='";
    case Tok::kDot:
      return "'.'";
    case Tok::kColon:
      return "':'";
    case Tok::kPipe:
      return "'|'";
    case Tok::kComma:
      return "','";
    case Tok::kSemicolon:
      return "';'";
    case Tok::kEof:
      return "end of template";
  }
  return "?";
}

namespace {

class Lexer {
 public:
  explicit Lexer(std::string_view raw) {
    // Newlines -> \n; one trailing newline removed (keep_trailing_newline=False).
    src_.reserve(raw.size());
    for (size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] == '\r') {
        src_.push_back('\n');
        if (i + 1 < raw.size() && raw[i + 1] == '\n') ++i;
      } else {
        src_.push_back(raw[i]);
      }
    }
    if (!src_.empty() && src_.back() == '\n') src_.pop_back();
    line_starts_.push_back(0);
    for (size_t i = 0; i < src_.size(); ++i) {
      if (src_[i] == '\n') line_starts_.push_back(i + 1);
    }
  }

  std::vector<Token> Run() {
    size_t pos = 0;
    bool line_starting = true;
    const std::string_view s = src_;
    while (pos < s.size()) {
      size_t tag = FindTagStart(pos);
      if (tag == std::string_view::npos) {
        Emit(Tok::kData, pos, std::string(s.substr(pos)));
        break;
      }
      char kind = s[tag + 1];  // '{', '%' or '#'
      char sign = tag + 2 < s.size() && (s[tag + 2] == '-' || s[tag + 2] == '+') ? s[tag + 2] : 0;
      size_t after_sign = tag + 2 + (sign ? 1 : 0);
      std::string_view text = s.substr(pos, tag - pos);
      // {% raw %}: the root rule tries the raw pattern before ordinary tags.
      size_t raw_end = kind == '%' ? MatchRawBegin(after_sign) : std::string_view::npos;
      EmitText(text, pos, sign, kind != '{', line_starting);
      line_starting = false;
      if (raw_end != std::string_view::npos) {
        pos = LexRaw(raw_end, &line_starting);
        continue;
      }
      if (kind == '#') {
        pos = SkipComment(tag, after_sign, &line_starting);
        continue;
      }
      Emit(kind == '{' ? Tok::kVarBegin : Tok::kBlockBegin, tag, std::string());
      pos = LexTag(after_sign, kind == '%', &line_starting);
    }
    Emit(Tok::kEof, s.size(), std::string());
    return std::move(tokens_);
  }

 private:
  [[noreturn]] void Error(size_t at, const std::string& msg) {
    auto [line, col] = Position(at);
    throw TemplateError(ErrorKind::kSyntax, msg, line, col);
  }

  std::pair<int, int> Position(size_t at) const {
    size_t lo = 0, hi = line_starts_.size();
    while (hi - lo > 1) {
      size_t mid = (lo + hi) / 2;
      if (line_starts_[mid] <= at) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    return {static_cast<int>(lo + 1), static_cast<int>(at - line_starts_[lo] + 1)};
  }

  Token& Emit(Tok type, size_t at, std::string text) {
    Token t;
    t.type = type;
    auto [line, col] = Position(at);
    t.line = line;
    t.column = col;
    t.text = std::move(text);
    tokens_.push_back(std::move(t));
    return tokens_.back();
  }

  size_t FindTagStart(size_t pos) const {
    const std::string_view s = src_;
    while (true) {
      size_t p = s.find('{', pos);
      if (p == std::string_view::npos || p + 1 >= s.size()) return std::string_view::npos;
      char c = s[p + 1];
      if (c == '{' || c == '%' || c == '#') return p;
      pos = p + 1;
    }
  }

  bool IsSpaceAt(size_t i, size_t* next) const {
    size_t j = i;
    uint32_t cp = NextCodePoint(src_, &j);
    if (!IsPySpace(cp)) return false;
    *next = j;
    return true;
  }

  size_t SkipSpaces(size_t i) const {
    size_t next;
    while (i < src_.size() && IsSpaceAt(i, &next)) i = next;
    return i;
  }

  // Python's str.rstrip() length of `text`.
  static size_t RStripLen(std::string_view text) {
    size_t end = text.size();
    while (end > 0) {
      size_t start = PrevCodePointStart(text, end);
      size_t j = start;
      if (!IsPySpace(NextCodePoint(text, &j))) break;
      end = start;
    }
    return end;
  }

  static bool AllSpace(std::string_view text) {
    if (text.empty()) return false;  // \s+ needs one character
    for (size_t i = 0; i < text.size();) {
      if (!IsPySpace(NextCodePoint(text, &i))) return false;
    }
    return true;
  }

  // The data before a tag, with `-` stripping or lstrip_blocks applied (Jinja's OptionalLStrip).
  void EmitText(std::string_view text, size_t at, char sign, bool lstrip_kind, bool line_starting) {
    if (sign == '-') {
      text = text.substr(0, RStripLen(text));
    } else if (sign != '+' && lstrip_kind) {
      size_t nl = text.rfind('\n');
      size_t l_pos = nl == std::string_view::npos ? 0 : nl + 1;
      if ((l_pos > 0 || line_starting) && AllSpace(text.substr(l_pos)))
        text = text.substr(0, l_pos);
    }
    if (!text.empty()) Emit(Tok::kData, at, std::string(text));
  }

  // At `p` (after "{%" and its sign): \s* raw \s* (-%}\s* | %}) ; returns the end or npos.
  size_t MatchRawBegin(size_t p) const {
    const std::string_view s = src_;
    p = SkipSpaces(p);
    if (s.compare(p, 3, "raw") != 0) return std::string_view::npos;
    p = SkipSpaces(p + 3);
    if (s.compare(p, 3, "-%}") == 0) return SkipSpaces(p + 3);
    if (s.compare(p, 2, "%}") == 0) return p + 2;
    return std::string_view::npos;
  }

  size_t LexRaw(size_t pos, bool* line_starting) {
    const std::string_view s = src_;
    size_t search = pos;
    while (true) {
      size_t tag = s.find("{%", search);
      if (tag == std::string_view::npos) Error(pos, "Missing end of raw directive");
      char sign = tag + 2 < s.size() && (s[tag + 2] == '-' || s[tag + 2] == '+') ? s[tag + 2] : 0;
      size_t p = SkipSpaces(tag + 2 + (sign ? 1 : 0));
      if (s.compare(p, 6, "endraw") == 0) {
        p = SkipSpaces(p + 6);
        const size_t end = BlockTagEnd(p);
        if (end != std::string_view::npos) {
          EmitText(s.substr(pos, tag - pos), pos, sign, true, false);
          *line_starting = end > 0 && s[end - 1] == '\n';
          return end;
        }
      }
      search = tag + 2;
    }
  }

  // Where the text after a block tag's end at p starts ("%}", "-%}" or "+%}"), as transformers'
  // settings make it: trim_blocks drops one newline after "%}", "-" strips the whitespace after it,
  // "+" keeps everything. npos when no block end is at p.
  size_t BlockTagEnd(size_t p) const {
    const std::string_view s = src_;
    if (s.compare(p, 3, "+%}") == 0) return p + 3;
    if (s.compare(p, 3, "-%}") == 0) return SkipSpaces(p + 3);
    if (s.compare(p, 2, "%}") != 0) return std::string_view::npos;
    return p + 2 < s.size() && s[p + 2] == '\n' ? p + 3 : p + 2;  // trim_blocks
  }

  size_t SkipComment(size_t tag, size_t p, bool* line_starting) {
    const std::string_view s = src_;
    size_t end = s.find("#}", p);
    if (end == std::string_view::npos) Error(tag, "Missing end of comment tag");
    size_t after = end + 2;
    if (end > p && s[end - 1] == '-') {
      after = SkipSpaces(after);
    } else if (!(end > p && s[end - 1] == '+')) {
      if (after < s.size() && s[after] == '\n') ++after;  // trim_blocks
    }
    *line_starting = after > 0 && s[after - 1] == '\n';
    return after;
  }

  size_t LexTag(size_t p, bool block, bool* line_starting) {
    const std::string_view s = src_;
    std::vector<char> balance;
    while (true) {
      p = SkipSpaces(p);
      if (p >= s.size()) {
        Error(p, block ? "unexpected end of template, expected end of statement block"
                       : "unexpected end of template, expected end of print statement");
      }
      if (balance.empty()) {
        size_t end = std::string_view::npos;
        if (block) {
          end = BlockTagEnd(p);
        } else {
          if (s.compare(p, 3, "-}}") == 0) {
            end = SkipSpaces(p + 3);
          } else if (s.compare(p, 2, "}}") == 0) {
            end = p + 2;
          }
        }
        if (end != std::string_view::npos) {
          Emit(block ? Tok::kBlockEnd : Tok::kVarEnd, p, std::string());
          *line_starting = end > 0 && s[end - 1] == '\n';
          return end;
        }
      }
      char c = s[p];
      if (std::isdigit(static_cast<unsigned char>(c))) {
        p = LexNumber(p);
        continue;
      }
      if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        size_t e = p + 1;
        while (e < s.size() && (std::isalnum(static_cast<unsigned char>(s[e])) || s[e] == '_')) {
          ++e;
        }
        Emit(Tok::kName, p, std::string(s.substr(p, e - p)));
        p = e;
        continue;
      }
      if (c == '\'' || c == '"') {
        p = LexString(p);
        continue;
      }
      p = LexOperator(p, &balance);
    }
  }

  size_t LexNumber(size_t p) {
    const std::string_view s = src_;
    auto digits = [&](size_t i) {  // (\d+_)*\d+
      size_t start = i;
      while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
        ++i;
        if (i + 1 < s.size() && s[i] == '_' && std::isdigit(static_cast<unsigned char>(s[i + 1])))
          ++i;
      }
      return i == start ? std::string_view::npos : i;
    };
    // float_re first (not right after a '.').
    if (p == 0 || s[p - 1] != '.') {
      size_t i = digits(p);
      size_t frac_end = std::string_view::npos;
      if (i < s.size() && s[i] == '.') frac_end = digits(i + 1);
      size_t mant_end = frac_end != std::string_view::npos ? frac_end : i;
      size_t exp_end = std::string_view::npos;
      if (mant_end < s.size() && (s[mant_end] == 'e' || s[mant_end] == 'E')) {
        size_t j = mant_end + 1;
        if (j < s.size() && (s[j] == '+' || s[j] == '-')) ++j;
        exp_end = digits(j);
      }
      size_t end = exp_end != std::string_view::npos ? exp_end : frac_end;
      if (end != std::string_view::npos) {
        std::string text;
        for (size_t k = p; k < end; ++k) {
          if (s[k] != '_') text.push_back(s[k]);
        }
        Token& t = Emit(Tok::kFloat, p, text);
        t.float_value = std::strtod(text.c_str(), nullptr);
        return end;
      }
    }
    // integer_re
    size_t end = p;
    int base = 10;
    if (s[p] == '0' && p + 1 < s.size() &&
        (s[p + 1] == 'b' || s[p + 1] == 'B' || s[p + 1] == 'o' || s[p + 1] == 'O' ||
         s[p + 1] == 'x' || s[p + 1] == 'X')) {
      char b = static_cast<char>(s[p + 1] | 0x20);
      base = b == 'b' ? 2 : b == 'o' ? 8 : 16;
      end = p + 2;
      auto ok = [&](char ch) {
        if (base == 2) return ch == '0' || ch == '1';
        if (base == 8) return ch >= '0' && ch <= '7';
        return std::isxdigit(static_cast<unsigned char>(ch)) != 0;
      };
      size_t q = end;
      while (q < s.size()) {
        if (s[q] == '_' && q + 1 < s.size() && ok(s[q + 1])) {
          q += 2;
        } else if (ok(s[q])) {
          ++q;
        } else {
          break;
        }
      }
      if (q == end) {
        end = p + 1;  // just "0"
        base = 10;
      } else {
        end = q;
      }
    } else if (s[p] == '0') {
      end = p + 1;
      while (end < s.size()) {
        if (s[end] == '0') {
          ++end;
        } else if (s[end] == '_' && end + 1 < s.size() && s[end + 1] == '0') {
          end += 2;
        } else {
          break;
        }
      }
    } else {
      end = p + 1;
      while (end < s.size()) {
        if (std::isdigit(static_cast<unsigned char>(s[end]))) {
          ++end;
        } else if (s[end] == '_' && end + 1 < s.size() &&
                   std::isdigit(static_cast<unsigned char>(s[end + 1]))) {
          end += 2;
        } else {
          break;
        }
      }
    }
    std::string text;
    size_t from = base == 10 ? p : p + 2;
    for (size_t k = from; k < end; ++k) {
      if (s[k] != '_') text.push_back(s[k]);
    }
    int64_t v = 0;
    auto r = std::from_chars(text.data(), text.data() + text.size(), v, base);
    if (r.ec != std::errc()) {
      auto [line, col] = Position(p);
      throw TemplateError(ErrorKind::kUnsupported, "integer literal out of 64-bit range", line,
                          col);
    }
    Token& t = Emit(Tok::kInteger, p, std::string(s.substr(p, end - p)));
    t.int_value = v;
    return end;
  }

  static int HexVal(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    c = static_cast<char>(c | 0x20);
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  }

  // A string literal decoded as Python's unicode-escape codec does (after backslashreplace).
  size_t LexString(size_t p) {
    const std::string_view s = src_;
    char q = s[p];
    size_t i = p + 1;
    std::string out;
    while (true) {
      if (i >= s.size()) Error(p, "unexpected char '" + std::string(1, q) + "'");
      char c = s[i];
      if (c == q) break;
      if (c != '\\') {
        out.push_back(c);
        ++i;
        continue;
      }
      if (i + 1 >= s.size()) Error(p, "unexpected char '" + std::string(1, q) + "'");
      char e = s[i + 1];
      i += 2;
      switch (e) {
        case '\n':
          break;  // line continuation
        case '\\':
          out.push_back('\\');
          break;
        case '\'':
          out.push_back('\'');
          break;
        case '"':
          out.push_back('"');
          break;
        case 'a':
          out.push_back('\a');
          break;
        case 'b':
          out.push_back('\b');
          break;
        case 'f':
          out.push_back('\f');
          break;
        case 'n':
          out.push_back('\n');
          break;
        case 'r':
          out.push_back('\r');
          break;
        case 't':
          out.push_back('\t');
          break;
        case 'v':
          out.push_back('\v');
          break;
        case 'x':
        case 'u':
        case 'U': {
          int n = e == 'x' ? 2 : e == 'u' ? 4 : 8;
          uint32_t cp = 0;
          for (int k = 0; k < n; ++k) {
            int h = i + k < s.size() ? HexVal(s[i + k]) : -1;
            if (h < 0) Error(p, std::string("truncated \\") + e + " escape");
            cp = cp * 16 + static_cast<uint32_t>(h);
          }
          if (cp > 0x10FFFF) Error(p, "illegal Unicode character");
          i += static_cast<size_t>(n);
          AppendUtf8(cp, &out);
          break;
        }
        case 'N':
          throw TemplateError(ErrorKind::kUnsupported, "\\N{...} escapes are not supported",
                              Position(p).first, Position(p).second);
        default:
          if (e >= '0' && e <= '7') {
            uint32_t cp = static_cast<uint32_t>(e - '0');
            for (int k = 0; k < 2 && i < s.size() && s[i] >= '0' && s[i] <= '7'; ++k, ++i) {
              cp = cp * 8 + static_cast<uint32_t>(s[i] - '0');
            }
            AppendUtf8(cp, &out);
          } else {
            out.push_back('\\');  // unknown escapes stay as written
            out.push_back(e);
          }
      }
    }
    Emit(Tok::kString, p, std::move(out));
    return i + 1;
  }

  size_t LexOperator(size_t p, std::vector<char>* balance) {
    const std::string_view s = src_;
    auto two = [&](const char* op) { return s.compare(p, 2, op) == 0; };
    Tok t;
    size_t len = 2;
    if (two("//")) {
      t = Tok::kFloorDiv;
    } else if (two("**")) {
      t = Tok::kPow;
    } else if (two("==")) {
      t = Tok::kEq;
    } else if (two("!=")) {
      t = Tok::kNe;
    } else if (two(">=")) {
      t = Tok::kGe;
    } else if (two("<=")) {
      t = Tok::kLe;
    } else {
      len = 1;
      switch (s[p]) {
        case '+':
          t = Tok::kAdd;
          break;
        case '-':
          t = Tok::kSub;
          break;
        case '*':
          t = Tok::kMul;
          break;
        case '/':
          t = Tok::kDiv;
          break;
        case '%':
          t = Tok::kMod;
          break;
        case '~':
          t = Tok::kTilde;
          break;
        case '[':
          t = Tok::kLBracket;
          break;
        case ']':
          t = Tok::kRBracket;
          break;
        case '(':
          t = Tok::kLParen;
          break;
        case ')':
          t = Tok::kRParen;
          break;
        case '{':
          t = Tok::kLBrace;
          break;
        case '}':
          t = Tok::kRBrace;
          break;
        case '>':
          t = Tok::kGt;
          break;
        case '<':
          t = Tok::kLt;
          break;
        case '=':
          t = Tok::kAssign;
          break;
        case '.':
          t = Tok::kDot;
          break;
        case ':':
          t = Tok::kColon;
          break;
        case '|':
          t = Tok::kPipe;
          break;
        case ',':
          t = Tok::kComma;
          break;
        case ';':
          t = Tok::kSemicolon;
          break;
        default: {
          std::string ch(1, s[p]);
          Error(p, "unexpected char '" + ch + "' at " + std::to_string(p));
        }
      }
    }
    if (t == Tok::kLBrace) balance->push_back('}');
    if (t == Tok::kLParen) balance->push_back(')');
    if (t == Tok::kLBracket) balance->push_back(']');
    if (t == Tok::kRBrace || t == Tok::kRParen || t == Tok::kRBracket) {
      char c = s[p];
      if (balance->empty()) Error(p, std::string("unexpected '") + c + "'");
      char want = balance->back();
      balance->pop_back();
      if (want != c) Error(p, std::string("unexpected '") + c + "', expected '" + want + "'");
    }
    Emit(t, p, std::string());
    return p + len;
  }

  std::string src_;
  std::vector<size_t> line_starts_;
  std::vector<Token> tokens_;
};

}  // namespace

std::vector<Token> Tokenize(std::string_view source) {
  return Lexer(source).Run();
}

}  // namespace ltl::ct
