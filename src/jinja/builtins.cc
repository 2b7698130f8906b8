// Name tables of the implemented filters and tests (see builtins.h).
#include "jinja/builtins.h"

namespace ltl::ct {

namespace {

struct Named {
  const char* name;
  int id;
};

#define F(n, id) \
  { n, static_cast<int>(FilterId::id) }
const Named kFilters[] = {
    F("abs", kAbs),
    F("attr", kAttr),
    F("batch", kBatch),
    F("capitalize", kCapitalize),
    F("center", kCenter),
    F("count", kCount),
    F("d", kDefault),
    F("default", kDefault),
    F("dictsort", kDictsort),
    F("e", kEscape),
    F("escape", kEscape),
    F("first", kFirst),
    F("float", kFloat),
    F("forceescape", kForceescape),
    F("format", kFormat),
    F("groupby", kGroupby),
    F("indent", kIndent),
    F("int", kInt),
    F("items", kItems),
    F("join", kJoin),
    F("last", kLast),
    F("length", kLength),
    F("list", kList),
    F("lower", kLower),
    F("map", kMap),
    F("max", kMax),
    F("min", kMin),
    F("rejectattr", kRejectattr),
    F("reject", kReject),
    F("replace", kReplace),
    F("reverse", kReverse),
    F("round", kRound),
    F("safe", kSafe),
    F("selectattr", kSelectattr),
    F("select", kSelect),
    F("slice", kSlice),
    F("sort", kSort),
    F("string", kString),
    F("striptags", kStriptags),
    F("sum", kSum),
    F("title", kTitle),
    F("tojson", kTojson),
    F("trim", kTrim),
    F("truncate", kTruncate),
    F("unique", kUnique),
    F("upper", kUpper),
    F("wordcount", kWordcount),
};
#undef F

#define T(n, id) \
  { n, static_cast<int>(TestId::id) }
const Named kTests[] = {
    T("odd", kOdd),
    T("even", kEven),
    T("divisibleby", kDivisibleby),
    T("defined", kDefined),
    T("undefined", kUndefined),
    T("filter", kFilter),
    T("test", kTest),
    T("none", kNone),
    T("boolean", kBoolean),
    T("false", kFalse),
    T("true", kTrue),
    T("integer", kInteger),
    T("float", kFloat),
    T("lower", kLower),
    T("upper", kUpper),
    T("string", kString),
    T("mapping", kMapping),
    T("number", kNumber),
    T("sequence", kSequence),
    T("iterable", kIterable),
    T("callable", kCallable),
    T("sameas", kSameas),
    T("escaped", kEscaped),
    T("in", kIn),
    T("==", kEq),
    T("eq", kEq),
    T("equalto", kEq),
    T("!=", kNe),
    T("ne", kNe),
    T(">", kGt),
    T("gt", kGt),
    T("greaterthan", kGt),
    T("ge", kGe),
    T(">=", kGe),
    T("<", kLt),
    T("lt", kLt),
    T("lessthan", kLt),
    T("<=", kLe),
    T("le", kLe),
};
#undef T

const char* const kUnsupportedFilters[] = {"filesizeformat", "pprint",   "random", "urlencode",
                                           "urlize",         "wordwrap", "xmlattr"};

}  // namespace

int LookupFilter(std::string_view name) {
  for (const Named& f : kFilters) {
    if (name == f.name) return f.id;
  }
  return -1;
}

int LookupTest(std::string_view name) {
  for (const Named& t : kTests) {
    if (name == t.name) return t.id;
  }
  return -1;
}

bool IsUnsupportedJinjaFilter(std::string_view name) {
  for (const char* n : kUnsupportedFilters) {
    if (name == n) return true;
  }
  return false;
}

}  // namespace ltl::ct
