// PostgreSQL as an input: `postgresql://user@host/db?table=NAME` streamed through libpq as
// `COPY (SELECT * FROM NAME) TO STDOUT WITH (FORMAT csv, HEADER)` in a read-only transaction: the
// same CSV bytes `psql -c "\copy (SELECT * FROM NAME) TO STDOUT CSV HEADER"` writes, so the rows go
// down the one CSV row path (detection, sources, locator) like the piped form. Streaming: the
// server sends rows while earlier ones are processed, and one row is held at a time.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"
#include "read/input_stream.h"

namespace ltl {

// --since/--until, pushed into the query as a WHERE on the time column: timestamps the tool formats
// itself, quoted by libpq as literals (COPY takes no bound parameters), never the user's text.
struct PostgresQueryOptions {
  std::optional<double> since, until;  // seconds since the epoch (UTC); since <= t < until
  std::string time_column;             // "" = startTime (LiteLLM_SpendLogs)
};

// True for postgresql:// and postgres:// URIs.
bool IsPostgresUri(std::string_view path);

// The only form of a URI ever printed: what libpq parses from it reduced to user, host, port and
// database (`postgresql://user@host:port/db`, a socket directory as `?host=/dir`), with anything
// that could be part of a password scrubbed; every other parameter is left out.
std::string RedactPostgresUri(std::string_view uri);

// Connects, starts the COPY of `table` (the URI's `table=` parameter, `schema.table`
// allowed, quoted as identifiers) and returns the rows as CSV. Errors are one line naming the
// redacted URI: cannot connect (refused, authentication), no such table or column, bad URI.
Result<std::unique_ptr<InputStream>> OpenPostgres(const std::string& uri,
                                                  const PostgresQueryOptions& options);

}  // namespace ltl
