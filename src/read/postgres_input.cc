// PostgresStream: rows of one table through a libpq server-side cursor, written out as the CSV
// `COPY ... TO STDOUT WITH (FORMAT csv, HEADER)` gives (psql's \copy): the text output of each
// value, NULL as an empty unquoted field, a value quoted (quotes doubled) when it is empty or holds
// a comma, quote, CR or LF, or is `\.`; records end in LF. The CSV form is kept (rather than a
// second row path) so a table and its \copy export give the same report by construction.
#include "read/postgres_input.h"

#include <libpq-fe.h>

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <ctime>
#include <vector>

namespace ltl {
namespace {

constexpr std::string_view kDefaultTable = "LiteLLM_SpendLogs";
constexpr std::string_view kDefaultTimeColumn = "startTime";
// Rows per FETCH adapt to the rows' size: a batch's CSV stays between these bounds when it can.
constexpr size_t kBatchBytesLow = 4u << 20, kBatchBytesHigh = 32u << 20;
constexpr int kBatchRowsMin = 1, kBatchRowsMax = 10000, kBatchRowsStart = 100;

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string PercentDecode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && HexValue(s[i + 1]) >= 0 && HexValue(s[i + 2]) >= 0) {
      out += static_cast<char>(HexValue(s[i + 1]) * 16 + HexValue(s[i + 2]));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

// The URI split into what libpq is given and the parameters that are ours.
struct ParsedUri {
  std::string conninfo;  // the URI without table= and time_column=
  std::string table, time_column;
};

ParsedUri ParseUri(std::string_view uri) {
  ParsedUri p;
  const size_t q = uri.find('?');
  p.conninfo = std::string(uri.substr(0, q));
  if (q == std::string_view::npos) return p;
  std::string_view rest = uri.substr(q + 1);
  std::vector<std::string_view> kept;
  while (!rest.empty()) {
    const size_t amp = rest.find('&');
    std::string_view kv = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
    const size_t eq = kv.find('=');
    const std::string_view key = kv.substr(0, eq);
    const std::string_view value = eq == std::string_view::npos ? "" : kv.substr(eq + 1);
    if (key == "table")
      p.table = PercentDecode(value);
    else if (key == "time_column")
      p.time_column = PercentDecode(value);
    else if (!kv.empty())
      kept.push_back(kv);
  }
  for (size_t i = 0; i < kept.size(); ++i) {
    p.conninfo += i == 0 ? '?' : '&';
    p.conninfo += kept[i];
  }
  return p;
}

// libpq's message (often several lines: "connection to server ... failed: ...") as one line.
std::string OneLine(const char* msg) {
  std::string out;
  std::string_view s = msg ? msg : "";
  while (!s.empty()) {
    size_t nl = s.find('\n');
    std::string_view line = s.substr(0, nl);
    s = nl == std::string_view::npos ? std::string_view() : s.substr(nl + 1);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.remove_suffix(1);
    while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
    if (line.empty()) continue;
    if (!out.empty()) out += "; ";
    out += line;
  }
  return out.empty() ? std::string("unknown error") : out;
}

// A table name as given (`name` or `schema.name`) as quoted identifiers.
Result<std::string> QuotedTable(PGconn* conn, const std::string& table) {
  std::string out;
  size_t start = 0;
  for (;;) {
    const size_t dot = table.find('.', start);
    const std::string part = table.substr(start, dot == std::string::npos ? dot : dot - start);
    char* q = PQescapeIdentifier(conn, part.data(), part.size());
    if (!q) return Status::InvalidArgument(OneLine(PQerrorMessage(conn)));
    if (!out.empty()) out += '.';
    out += q;
    PQfreemem(q);
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return out;
}

// Seconds since the epoch as a timestamp literal PostgreSQL reads for both `timestamp` (the zone
// is ignored: LiteLLM's DateTime columns hold UTC) and `timestamptz` (the zone is used).
std::string TimestampParam(double epoch_seconds) {
  const double whole = std::floor(epoch_seconds);
  auto micros = static_cast<long long>(std::llround((epoch_seconds - whole) * 1e6));
  auto secs = static_cast<time_t>(whole);
  if (micros >= 1000000) {
    ++secs;
    micros -= 1000000;
  }
  struct tm tm {};
  gmtime_r(&secs, &tm);
  return fmt::format("{:04}-{:02}-{:02} {:02}:{:02}:{:02}.{:06}+00", tm.tm_year + 1900,
                     tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, micros);
}

void AppendCsvField(std::string* out, const char* v, size_t n, bool null) {
  if (null) return;
  const bool quote = n == 0 || std::memchr(v, ',', n) || std::memchr(v, '"', n) ||
                     std::memchr(v, '\n', n) || std::memchr(v, '\r', n) ||
                     (n == 2 && v[0] == '\\' && v[1] == '.');
  if (!quote) {
    out->append(v, n);
    return;
  }
  out->push_back('"');
  for (size_t i = 0; i < n; ++i) {
    if (v[i] == '"') out->push_back('"');
    out->push_back(v[i]);
  }
  out->push_back('"');
}

class PostgresStream : public InputStream {
 public:
  explicit PostgresStream(PGconn* conn) : conn_(conn) {}
  ~PostgresStream() override { PQfinish(conn_); }

  Result<size_t> Read(char* buf, size_t cap) override {
    while (pos_ == pending_.size()) {
      if (done_) return size_t{0};
      Status st = FetchBatch();
      if (!st.ok()) return st;
    }
    const size_t n = std::min(cap, pending_.size() - pos_);
    std::memcpy(buf, pending_.data() + pos_, n);
    pos_ += n;
    return n;
  }
  uint64_t raw_bytes_read() const override { return produced_; }
  uint64_t raw_size() const override { return 0; }
  const char* encoding() const override { return "postgresql"; }

 private:
  Status FetchBatch() {
    pending_.clear();
    pos_ = 0;
    PGresult* res = PQexec(conn_, fmt::format("FETCH {} FROM ltl_rows", batch_rows_).c_str());
    if (PQresultStatus(res) != PGRES_TUPLES_OK) {
      std::string msg = OneLine(PQresultErrorMessage(res));
      PQclear(res);
      done_ = true;
      return Status::IoError("PostgreSQL query failed: " + msg);
    }
    const int cols = PQnfields(res), rows = PQntuples(res);
    if (!header_written_) {
      for (int c = 0; c < cols; ++c) {
        if (c) pending_ += ',';
        const char* name = PQfname(res, c);
        AppendCsvField(&pending_, name, std::strlen(name), false);
      }
      pending_ += '\n';
      header_written_ = true;
    }
    for (int r = 0; r < rows; ++r) {
      for (int c = 0; c < cols; ++c) {
        if (c) pending_ += ',';
        AppendCsvField(&pending_, PQgetvalue(res, r, c),
                       static_cast<size_t>(PQgetlength(res, r, c)), PQgetisnull(res, r, c) != 0);
      }
      pending_ += '\n';
    }
    PQclear(res);
    produced_ += pending_.size();
    if (rows < batch_rows_) {  // the cursor is exhausted: end the read-only transaction
      done_ = true;
      PQclear(PQexec(conn_, "CLOSE ltl_rows"));
      PQclear(PQexec(conn_, "COMMIT"));
    }
    if (pending_.size() > kBatchBytesHigh)
      batch_rows_ = std::max(kBatchRowsMin, batch_rows_ / 2);
    else if (pending_.size() < kBatchBytesLow)
      batch_rows_ = std::min(kBatchRowsMax, batch_rows_ * 2);
    return Status::Ok();
  }

  PGconn* conn_;
  std::string pending_;
  size_t pos_ = 0;
  uint64_t produced_ = 0;
  int batch_rows_ = kBatchRowsStart;
  bool header_written_ = false, done_ = false;
};

Status RunCommand(PGconn* conn, const std::string& sql, const std::vector<std::string>& params) {
  std::vector<const char*> values;
  for (const auto& p : params) values.push_back(p.c_str());
  PGresult* res = PQexecParams(conn, sql.c_str(), static_cast<int>(values.size()), nullptr,
                               values.empty() ? nullptr : values.data(), nullptr, nullptr, 0);
  const bool ok = PQresultStatus(res) == PGRES_COMMAND_OK;
  std::string msg = ok ? std::string() : OneLine(PQresultErrorMessage(res));
  PQclear(res);
  return ok ? Status::Ok() : Status::InvalidArgument(msg);
}

}  // namespace

bool IsPostgresUri(std::string_view path) {
  return path.starts_with("postgresql://") || path.starts_with("postgres://");
}

std::string RedactPostgresUri(std::string_view uri) {
  const size_t scheme = uri.find("://");
  if (scheme == std::string_view::npos) return std::string(uri);
  const size_t auth_begin = scheme + 3;
  size_t auth_end = uri.find_first_of("/?", auth_begin);
  if (auth_end == std::string_view::npos) auth_end = uri.size();
  std::string out(uri.substr(0, auth_begin));
  const std::string_view auth = uri.substr(auth_begin, auth_end - auth_begin);
  const size_t at = auth.rfind('@');
  if (at != std::string_view::npos) {
    const std::string_view user = auth.substr(0, at);
    out += user.substr(0, user.find(':'));
    out += auth.substr(at);
  } else {
    out += auth;
  }
  const size_t q = uri.find('?', auth_end);
  out += uri.substr(auth_end, q == std::string_view::npos ? q : q - auth_end);
  if (q == std::string_view::npos) return out;
  std::string_view rest = uri.substr(q + 1);
  bool first = true;
  while (!rest.empty()) {
    const size_t amp = rest.find('&');
    const std::string_view kv = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
    if (kv.starts_with("password=") || kv == "password") continue;
    out += first ? '?' : '&';
    out += kv;
    first = false;
  }
  return out;
}

Result<std::unique_ptr<InputStream>> OpenPostgres(const std::string& uri,
                                                  const PostgresQueryOptions& options) {
  const std::string shown = RedactPostgresUri(uri);
  ParsedUri parsed = ParseUri(uri);
  const std::string table = parsed.table.empty() ? std::string(kDefaultTable) : parsed.table;
  std::string time_column = options.time_column;
  if (time_column.empty()) time_column = parsed.time_column;
  if (time_column.empty()) time_column = std::string(kDefaultTimeColumn);

  // The URI is checked by libpq before any connection attempt, so a typo is reported as such.
  char* parse_error = nullptr;
  PQconninfoOption* info = PQconninfoParse(parsed.conninfo.c_str(), &parse_error);
  if (!info) {
    std::string msg = OneLine(parse_error ? parse_error : "invalid connection URI");
    if (parse_error) PQfreemem(parse_error);
    return Status::InvalidArgument(fmt::format("{}: invalid PostgreSQL URI: {}", shown, msg));
  }
  PQconninfoFree(info);

  PGconn* conn = PQconnectdb(parsed.conninfo.c_str());
  if (!conn) return Status::IoError(fmt::format("{}: cannot connect: out of memory", shown));
  std::unique_ptr<PGconn, void (*)(PGconn*)> guard(conn, PQfinish);
  if (PQstatus(conn) != CONNECTION_OK)
    return Status::IoError(
        fmt::format("{}: cannot connect: {}", shown, OneLine(PQerrorMessage(conn))));

  auto qtable = QuotedTable(conn, table);
  if (!qtable.ok())
    return Status::InvalidArgument(fmt::format("{}: {}", shown, qtable.status().message()));
  auto qcol = QuotedTable(conn, time_column);
  if (!qcol.ok())
    return Status::InvalidArgument(fmt::format("{}: {}", shown, qcol.status().message()));

  std::string sql = "DECLARE ltl_rows NO SCROLL CURSOR FOR SELECT * FROM " + *qtable;
  std::vector<std::string> params;
  if (options.since) {
    params.push_back(TimestampParam(*options.since));
    sql += fmt::format(" WHERE {} >= ${}", *qcol, params.size());
  }
  if (options.until) {
    params.push_back(TimestampParam(*options.until));
    sql += fmt::format(" {} {} < ${}", params.size() == 1 ? "WHERE" : "AND", *qcol, params.size());
  }
  if (Status st = RunCommand(conn, "BEGIN TRANSACTION READ ONLY", {}); !st.ok())
    return Status::IoError(fmt::format("{}: {}", shown, st.message()));
  if (Status st = RunCommand(conn, sql, params); !st.ok())
    return Status::InvalidArgument(fmt::format("{}: table {}: {}", shown, table, st.message()));
  return std::unique_ptr<InputStream>(new PostgresStream(guard.release()));
}

}  // namespace ltl
