// PostgresStream: rows of one table through a libpq server-side cursor, written out as the CSV
// `COPY ... TO STDOUT WITH (FORMAT csv, HEADER)` gives (psql's \copy): the text output of each
// value, NULL as an empty unquoted field, a value quoted (quotes doubled) when it is empty or holds
// a comma, quote, CR or LF, or is `\.`; records end in LF. The CSV form is kept (rather than a
// second row path) so a table and its \copy export give the same report by construction.
#include "read/postgres_input.h"

#include <libpq-fe.h>
#include <poll.h>

#include <fmt/format.h>
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <memory>
#include <vector>

namespace ltl {
namespace {

constexpr std::string_view kDefaultTable = "LiteLLM_SpendLogs";
constexpr std::string_view kDefaultTimeColumn = "startTime";
// Rows per FETCH are sized by bytes (issue 35, item 14: a fixed first batch of 100 rows held six
// 100 MB rows at once, 1.7 GB): the first FETCH takes one row, each next one as many rows of the
// largest size seen so far as fit in kBatchBytes (at least one, at most kBatchRowsMax). Only a row
// larger than every row before it can make a batch exceed kBatchBytes by more than one row.
constexpr size_t kBatchBytes = 16u << 20;
constexpr int kBatchRowsMax = 10000, kBatchRowsStart = 1;

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

// What must never be printed from a URI (issue 35, item 8): the userinfo after the user name (also
// split at each ':' and '@', since libpq ends the userinfo at the first '@' and a raw '@' in a
// password leaves the rest in the host), the values of every query parameter whose name holds
// "pass" in any case (password=, sslpassword=, PASSWORD=), with `all_values` every query value
// (for libpq's parse errors, which quote the token they could not read), and what libpq itself
// parsed as password and sslpassword; each raw and percent-decoded.
std::vector<std::string> UriSecrets(std::string_view uri, bool all_values) {
  std::vector<std::string> out;
  auto add = [&](std::string_view v) {
    if (v.empty()) return;
    out.emplace_back(v);
    std::string d = PercentDecode(v);
    if (d != v && !d.empty()) out.push_back(std::move(d));
  };
  const size_t scheme = uri.find("://");
  const size_t auth_begin = scheme == std::string_view::npos ? 0 : scheme + 3;
  size_t auth_end = uri.find_first_of("/?", auth_begin);
  if (auth_end == std::string_view::npos) auth_end = uri.size();
  const std::string_view auth = uri.substr(auth_begin, auth_end - auth_begin);
  const size_t at = auth.rfind('@');
  if (at != std::string_view::npos) {
    const std::string_view userinfo = auth.substr(0, at);
    const size_t colon = userinfo.find(':');
    if (colon != std::string_view::npos) add(userinfo.substr(colon + 1));
    // Every piece after the first, at ':' and '@' (the user name is the first piece).
    size_t start = 0;
    bool first = true;
    for (size_t i = 0; i <= userinfo.size(); ++i) {
      if (i < userinfo.size() && userinfo[i] != ':' && userinfo[i] != '@') continue;
      if (!first) add(userinfo.substr(start, i - start));
      first = false;
      start = i + 1;
    }
  }
  const size_t q = uri.find('?', auth_end);
  std::string_view rest = q == std::string_view::npos ? std::string_view() : uri.substr(q + 1);
  while (!rest.empty()) {
    const size_t amp = rest.find('&');
    const std::string_view kv = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
    const size_t eq = kv.find('=');
    if (eq == std::string_view::npos) continue;
    std::string key(kv.substr(0, eq));
    for (char& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (all_values || key.find("pass") != std::string::npos) add(kv.substr(eq + 1));
  }
  char* err = nullptr;
  if (PQconninfoOption* info = PQconninfoParse(ParseUri(uri).conninfo.c_str(), &err)) {
    for (PQconninfoOption* o = info; o->keyword; ++o)
      if (o->val &&
          (std::strcmp(o->keyword, "password") == 0 || std::strcmp(o->keyword, "sslpassword") == 0))
        add(o->val);
    PQconninfoFree(info);
  }
  if (err) PQfreemem(err);
  // Longest first, so a secret holding another is removed whole.
  std::sort(out.begin(), out.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  return out;
}

// `text` with every occurrence of each secret replaced by "***".
std::string Scrub(std::string text, const std::vector<std::string>& secrets) {
  for (const std::string& secret : secrets) {
    for (size_t at = text.find(secret); at != std::string::npos; at = text.find(secret, at + 3)) {
      text.replace(at, secret.size(), "***");
    }
  }
  return text;
}

// libpq's notices and warnings (it prints them raw on stderr by default): one scrubbed line each,
// control characters escaped, as the tool's own warnings are.
struct NoticeContext {
  std::string shown;
  std::vector<std::string> secrets;
};

void PrintNotice(void* arg, const char* message) {
  const auto* ctx = static_cast<const NoticeContext*>(arg);
  std::string line = Scrub(OneLine(message), ctx->secrets);
  std::string escaped;
  for (unsigned char c : line) {
    if (c < 0x20 || c == 0x7F)
      escaped += fmt::format("\\x{:02x}", c);
    else
      escaped += static_cast<char>(c);
  }
  std::fprintf(stderr, "llmtrafficlens: warning: %s: server notice: %s\n", ctx->shown.c_str(),
               escaped.c_str());
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
  PostgresStream(PGconn* conn, std::unique_ptr<NoticeContext> notices)
      : notices_(std::move(notices)), conn_(conn) {}
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
      std::string msg = Scrub(OneLine(PQresultErrorMessage(res)), notices_->secrets);
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
      const size_t row_start = pending_.size();
      for (int c = 0; c < cols; ++c) {
        if (c) pending_ += ',';
        AppendCsvField(&pending_, PQgetvalue(res, r, c),
                       static_cast<size_t>(PQgetlength(res, r, c)), PQgetisnull(res, r, c) != 0);
      }
      pending_ += '\n';
      largest_row_ = std::max(largest_row_, pending_.size() - row_start);
    }
    PQclear(res);
    produced_ += pending_.size();
    if (rows < batch_rows_) {  // the cursor is exhausted: end the read-only transaction
      done_ = true;
      PQclear(PQexec(conn_, "CLOSE ltl_rows"));
      PQclear(PQexec(conn_, "COMMIT"));
    }
    batch_rows_ = static_cast<int>(
        std::clamp<size_t>(kBatchBytes / std::max<size_t>(largest_row_, 1), 1, kBatchRowsMax));
    return Status::Ok();
  }

  std::unique_ptr<NoticeContext> notices_;  // outlives conn_ (PQfinish may still send notices)
  PGconn* conn_;
  std::string pending_;
  size_t pos_ = 0;
  uint64_t produced_ = 0;
  int batch_rows_ = kBatchRowsStart;
  size_t largest_row_ = 0;  // the largest row so far, as CSV bytes
  bool header_written_ = false, done_ = false;
};

Status RunCommand(PGconn* conn, const std::string& sql, const std::vector<std::string>& params) {
  std::vector<const char*> values;
  values.reserve(params.size());
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
  // What libpq reads from the URI, of which only host, port, database and user are printed:
  // every other parameter may carry a secret (password, sslpassword, and whatever a later libpq
  // adds), and the userinfo's password never appears (issue 35, item 8; before, only
  // `user:password@` and a lower-case `password=` were removed).
  char* err = nullptr;
  PQconninfoOption* info = PQconninfoParse(ParseUri(uri).conninfo.c_str(), &err);
  if (err) PQfreemem(err);
  if (!info) return "postgresql://(a URI libpq cannot parse)";
  std::string host, port, dbname, user;
  for (PQconninfoOption* o = info; o->keyword; ++o) {
    if (!o->val) continue;
    const std::string_view k = o->keyword;
    if (k == "host") host = o->val;
    if (k == "port") port = o->val;
    if (k == "dbname") dbname = o->val;
    if (k == "user") user = o->val;
  }
  PQconninfoFree(info);
  const bool socket = !host.empty() && host.front() == '/';
  std::string out = "postgresql://";
  if (!user.empty()) out += user + "@";
  if (!host.empty() && !socket)
    out += host.find(':') != std::string::npos ? "[" + host + "]" : host;
  if (!port.empty()) out += ":" + port;
  out += "/" + dbname;
  if (socket) out += "?host=" + host;
  // A raw '@' in a password leaves part of it in what libpq calls the host: scrubbed too.
  return Scrub(std::move(out), UriSecrets(uri, false));
}

Result<std::unique_ptr<InputStream>> OpenPostgres(const std::string& uri,
                                                  const PostgresQueryOptions& options) {
  const std::string shown = RedactPostgresUri(uri);
  auto notices = std::make_unique<NoticeContext>();
  notices->shown = shown;
  notices->secrets = UriSecrets(uri, false);
  const std::vector<std::string>& secrets = notices->secrets;
  ParsedUri parsed = ParseUri(uri);
  const std::string table = parsed.table.empty() ? std::string(kDefaultTable) : parsed.table;
  std::string time_column = options.time_column;
  if (time_column.empty()) time_column = parsed.time_column;
  if (time_column.empty()) time_column = std::string(kDefaultTimeColumn);

  // The URI is checked by libpq before any connection attempt, so a typo is reported as such.
  char* parse_error = nullptr;
  PQconninfoOption* info = PQconninfoParse(parsed.conninfo.c_str(), &parse_error);
  if (!info) {
    // libpq quotes the token it could not read, which may be the password (a '%' not followed
    // by two hex digits): every value of the URI is scrubbed from its message.
    std::string msg =
        Scrub(OneLine(parse_error ? parse_error : "invalid connection URI"), UriSecrets(uri, true));
    if (parse_error) PQfreemem(parse_error);
    return Status::InvalidArgument(fmt::format("{}: invalid PostgreSQL URI: {}", shown, msg));
  }
  PQconninfoFree(info);

  // Started without blocking so the notice processor is in place before the server's first
  // message (PQconnectdb would print the notices sent during the connection raw), then polled to
  // completion as PQconnectdb does.
  PGconn* conn = PQconnectStart(parsed.conninfo.c_str());
  if (!conn) return Status::IoError(fmt::format("{}: cannot connect: out of memory", shown));
  std::unique_ptr<PGconn, void (*)(PGconn*)> guard(conn, PQfinish);
  PQsetNoticeProcessor(conn, PrintNotice, notices.get());
  if (PQstatus(conn) != CONNECTION_BAD) {
    PostgresPollingStatusType poll_state = PGRES_POLLING_WRITING;
    while (poll_state != PGRES_POLLING_OK && poll_state != PGRES_POLLING_FAILED) {
      pollfd pfd{PQsocket(conn),
                 static_cast<short>(poll_state == PGRES_POLLING_READING ? POLLIN : POLLOUT), 0};
      if (::poll(&pfd, 1, -1) < 0 && errno != EINTR) break;
      poll_state = PQconnectPoll(conn);
    }
  }
  if (PQstatus(conn) != CONNECTION_OK)
    return Status::IoError(fmt::format("{}: cannot connect: {}", shown,
                                       Scrub(OneLine(PQerrorMessage(conn)), secrets)));

  auto qtable = QuotedTable(conn, table);
  if (!qtable.ok())
    return Status::InvalidArgument(
        fmt::format("{}: {}", shown, Scrub(qtable.status().message(), secrets)));
  auto qcol = QuotedTable(conn, time_column);
  if (!qcol.ok())
    return Status::InvalidArgument(
        fmt::format("{}: {}", shown, Scrub(qcol.status().message(), secrets)));

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
    return Status::IoError(fmt::format("{}: {}", shown, Scrub(st.message(), secrets)));
  if (Status st = RunCommand(conn, sql, params); !st.ok())
    return Status::InvalidArgument(
        fmt::format("{}: table {}: {}", shown, table, Scrub(st.message(), secrets)));
  PGconn* owned = guard.release();
  return std::unique_ptr<InputStream>(new PostgresStream(owned, std::move(notices)));
}

}  // namespace ltl
