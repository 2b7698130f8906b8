// PostgresStream: the rows of one table streamed by the server as
// `COPY (SELECT ...) TO STDOUT WITH (FORMAT csv, HEADER)` (what psql's \copy writes) in a read-only
// transaction. The server writes rows as fast as the socket takes them while the workers process
// the ones already read, so there is no round trip per batch (issue 30, item 4: the FETCH cursor
// waited for each batch); libpq hands over one row at a time, so only the row being copied out is
// held whatever the table's row sizes (issue 35, item 14). The CSV form keeps one row path, so a
// table and its \copy export give the same report by construction.
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
#include <utility>
#include <vector>

namespace ltl {
namespace {

constexpr std::string_view kDefaultTable = "LiteLLM_SpendLogs";
constexpr std::string_view kDefaultTimeColumn = "startTime";

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

// Seconds since the epoch as a timestamp PostgreSQL reads for both `timestamp` (the zone
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

// The COPY's rows, one at a time from libpq, copied into the reader's buffer.
class PostgresStream : public InputStream {
 public:
  PostgresStream(PGconn* conn, std::unique_ptr<NoticeContext> notices)
      : notices_(std::move(notices)), conn_(conn) {}
  ~PostgresStream() override {
    if (row_) PQfreemem(row_);
    PQfinish(conn_);
  }

  Result<size_t> Read(char* buf, size_t cap) override {
    size_t n = 0;
    while (n < cap && !done_) {
      if (pos_ == len_) {
        // The first row of a call may wait for the server; later ones are taken only when libpq
        // already holds them (or the socket has them now), so the reader gets what has arrived.
        if (n > 0 && !PQconsumeInput(conn_)) break;
        Status st = NextRow(/*wait=*/n == 0);
        if (!st.ok()) return st;
        if (pos_ == len_) break;  // none in hand yet, or the end
      }
      const size_t take = std::min(cap - n, len_ - pos_);
      std::memcpy(buf + n, row_ + pos_, take);
      pos_ += take;
      n += take;
    }
    produced_ += n;
    return n;
  }
  uint64_t raw_bytes_read() const override { return produced_; }
  uint64_t raw_size() const override { return 0; }
  const char* encoding() const override { return "postgresql"; }

 private:
  // Replaces the row held by the next one; at the end of the COPY checks how the command ended and
  // commits the read-only transaction.
  Status NextRow(bool wait) {
    if (row_) PQfreemem(row_);
    row_ = nullptr;
    pos_ = len_ = 0;
    char* data = nullptr;
    const int got = PQgetCopyData(conn_, &data, wait ? 0 : 1);
    if (got > 0) {
      row_ = data;
      len_ = static_cast<size_t>(got);
      return Status::Ok();
    }
    if (got == 0) return Status::Ok();  // not in hand yet (only when not waiting)
    done_ = true;
    if (got == -2) return Failure(PQerrorMessage(conn_));
    // -1: the COPY is over; its result says whether it ended well (a statement timeout or a
    // cancelled query ends it early with an error).
    Status st = Status::Ok();
    while (PGresult* res = PQgetResult(conn_)) {
      if (st.ok() && PQresultStatus(res) != PGRES_COMMAND_OK)
        st = Failure(PQresultErrorMessage(res));
      PQclear(res);
    }
    if (st.ok()) PQclear(PQexec(conn_, "COMMIT"));
    return st;
  }

  Status Failure(const char* message) const {
    return Status::IoError("PostgreSQL query failed: " +
                           Scrub(OneLine(message), notices_->secrets));
  }

  std::unique_ptr<NoticeContext> notices_;  // outlives conn_ (PQfinish may still send notices)
  PGconn* conn_;
  char* row_ = nullptr;  // the row being copied out (libpq's allocation), or null
  size_t pos_ = 0, len_ = 0;
  uint64_t produced_ = 0;
  bool done_ = false;
};

Status RunCommand(PGconn* conn, const std::string& sql) {
  PGresult* res = PQexec(conn, sql.c_str());
  const bool ok = PQresultStatus(res) == PGRES_COMMAND_OK;
  std::string msg = ok ? std::string() : OneLine(PQresultErrorMessage(res));
  PQclear(res);
  return ok ? Status::Ok() : Status::InvalidArgument(msg);
}

// `text` as a quoted SQL literal (COPY takes no bound parameters).
Result<std::string> Literal(PGconn* conn, const std::string& text) {
  char* q = PQescapeLiteral(conn, text.data(), text.size());
  if (!q) return Status::InvalidArgument(OneLine(PQerrorMessage(conn)));
  std::string out = q;
  PQfreemem(q);
  return out;
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

  // The bounds are timestamps this function formatted, quoted as literals by libpq.
  std::string where;
  for (const auto& [bound, op] : {std::pair{options.since, ">="}, std::pair{options.until, "<"}}) {
    if (!bound) continue;
    auto lit = Literal(conn, TimestampParam(*bound));
    if (!lit.ok())
      return Status::InvalidArgument(
          fmt::format("{}: {}", shown, Scrub(lit.status().message(), secrets)));
    where += fmt::format(" {} {} {} {}", where.empty() ? "WHERE" : "AND", *qcol, op, *lit);
  }
  if (Status st = RunCommand(conn, "BEGIN TRANSACTION READ ONLY"); !st.ok())
    return Status::IoError(fmt::format("{}: {}", shown, Scrub(st.message(), secrets)));
  const std::string sql =
      fmt::format("COPY (SELECT * FROM {}{}) TO STDOUT WITH (FORMAT csv, HEADER)", *qtable, where);
  PGresult* res = PQexec(conn, sql.c_str());
  const bool copying = PQresultStatus(res) == PGRES_COPY_OUT;
  const std::string msg = copying ? std::string() : OneLine(PQresultErrorMessage(res));
  PQclear(res);
  if (!copying)
    return Status::InvalidArgument(
        fmt::format("{}: table {}: {}", shown, table, Scrub(msg, secrets)));
  PGconn* owned = guard.release();
  return std::unique_ptr<InputStream>(new PostgresStream(owned, std::move(notices)));
}

}  // namespace ltl
