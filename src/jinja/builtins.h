// Names of the filters and tests the engine implements (ids used by the parser and evaluator),
// and of the Jinja2 built-ins it knowingly does not implement (reported as unsupported rather
// than unknown, so a template that needs one is named as such).
// Internal to src/jinja/ (tests/build/internal_headers.cmake).
#pragma once

#include <string_view>

namespace ltl::ct {

enum class FilterId : int {
  kAbs,
  kAttr,
  kBatch,
  kCapitalize,
  kCenter,
  kCount,
  kDefault,
  kDictsort,
  kEscape,
  kFirst,
  kFloat,
  kForceescape,
  kFormat,
  kGroupby,
  kIndent,
  kInt,
  kItems,
  kJoin,
  kLast,
  kLength,
  kList,
  kLower,
  kMap,
  kMax,
  kMin,
  kRejectattr,
  kReject,
  kReplace,
  kReverse,
  kRound,
  kSafe,
  kSelectattr,
  kSelect,
  kSlice,
  kSort,
  kString,
  kStriptags,
  kSum,
  kTitle,
  kTojson,
  kTrim,
  kTruncate,
  kUnique,
  kUpper,
  kWordcount,
  kCount_,  // number of filters
};

enum class TestId : int {
  kBoolean,
  kCallable,
  kDefined,
  kDivisibleby,
  kEq,
  kEscaped,
  kEven,
  kFalse,
  kFilter,
  kFloat,
  kGe,
  kGt,
  kIn,
  kInteger,
  kIterable,
  kLe,
  kLower,
  kLt,
  kMapping,
  kNe,
  kNone,
  kNumber,
  kOdd,
  kSameas,
  kSequence,
  kString,
  kTest,
  kTrue,
  kUndefined,
  kUpper,
  kCount_,
};

// -1 when unknown.
int LookupFilter(std::string_view name);
int LookupTest(std::string_view name);
// Jinja2 built-ins this engine does not implement.
bool IsUnsupportedJinjaFilter(std::string_view name);

}  // namespace ltl::ct
