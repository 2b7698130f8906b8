// Timestamps in gateway logs: epoch numbers in seconds, milliseconds, microseconds or nanoseconds
// (told apart by magnitude), ISO-8601 with or without a zone, and "YYYY-MM-DD HH:MM:SS[.fff]"
// (Postgres/LiteLLM, Langfuse), all converted to epoch seconds. A time without a zone is UTC.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace ltl {

// Epoch seconds from a number whose unit is unknown: below 1e11 seconds (up to year 5138), below
// 1e14 milliseconds, below 1e17 microseconds, else nanoseconds.
double EpochSecondsFromNumber(double v);

// Parses a timestamp text (a number as above, or a date-time). Returns false when it is neither.
bool ParseTimestamp(std::string_view text, double* epoch_seconds);

// Column/key names tried in order for the request time when --ts-column is not given (lower
// case): timestamp, ts, created_at, start_time, starttime, request_created_at, time, ...
const std::vector<std::string_view>& TimestampColumnNames();

// Days since 1970-01-01 of a proleptic Gregorian date.
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d);

}  // namespace ltl
