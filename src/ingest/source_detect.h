// Which source wrote a gateway log: the registered tables (ingest/source_spec.h) are tried on the
// first record (JSON) or the header (CSV); every detect key must be present, the highest priority
// wins, and the generic source is the fallback. Says why, for report.json.
// Internal to src/ingest/ (tests/build/internal_headers.cmake).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ingest/source_spec.h"

namespace ltl {

struct SourceChoice {
  const SourceSpec* source = nullptr;
  std::string reason;  // one sentence, no input text beyond the source's own key names
};

// `record` is the first JSON record's text.
SourceChoice DetectJsonSource(std::string_view record);
// `lower_names` is the CSV header in lower case.
SourceChoice DetectCsvSource(const std::vector<std::string>& lower_names);

// The nested records of a framed JSON value for a source with records_at (OTLP spans), as JSON
// texts appended to *out. Returns false when `value` is not valid JSON.
bool ExpandNestedRecords(const SourceSpec& source, std::string_view value,
                         std::vector<std::string>* out);

}  // namespace ltl
