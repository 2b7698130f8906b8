// What is printed of a PostgreSQL URI (issue 35, item 8): only user, host, port and database, as
// libpq parses them, never a password, an sslpassword, any other parameter, or a piece of a
// password a raw '@' pushed into the host. Expected strings written by hand from libpq's URI rules
// (https://www.postgresql.org/docs/15/libpq-connect.html, "Connection URIs", read 2026-12-06).
#include <gtest/gtest.h>

#include <string>

#include "read/postgres_input.h"

namespace ltl {
namespace {

TEST(PostgresRedact, OnlyUserHostPortDatabase) {
  EXPECT_EQ(RedactPostgresUri("postgresql://ltl:s3cret@db.example:5433/logs?table=T"),
            "postgresql://ltl@db.example:5433/logs");
  EXPECT_EQ(RedactPostgresUri("postgres://ltl@/logs?host=/run/pg&sslpassword=S5l&table=T"),
            "postgresql://ltl@/logs?host=/run/pg");
  EXPECT_EQ(RedactPostgresUri("postgresql://h/d?password=P4ss&sslmode=require"),
            "postgresql://h/d");
  EXPECT_EQ(RedactPostgresUri("postgresql://u@[::1]:5432/d"), "postgresql://u@[::1]:5432/d");
  // Percent-encoded user names are decoded by libpq; a password never appears either way.
  EXPECT_EQ(RedactPostgresUri("postgresql://a%40b:p%40ss@h/d"), "postgresql://a@b@h/d");
}

TEST(PostgresRedact, NothingOfAPasswordLeaks) {
  const char* secrets[] = {"Pct-s3cret", "Caps-s3cret", "Sign-s3cret", "S5l-s3cret"};
  const std::string uris[] = {
      "postgresql://ltl:pa%zzPct-s3cret@h/d",             // libpq cannot parse it
      "postgresql://ltl@h/d?PASSWORD=Caps-s3cret",        // not a libpq keyword
      "postgresql://ltl:At@Sign-s3cret@h/d",              // a raw '@' in the password
      "postgresql://ltl@h/d?sslpassword=S5l-s3cret&x=1",  // unknown parameter: unparseable
  };
  for (const std::string& uri : uris) {
    const std::string shown = RedactPostgresUri(uri);
    SCOPED_TRACE(shown);
    EXPECT_EQ(shown.rfind("postgresql://", 0), 0u);
    for (const char* s : secrets) EXPECT_EQ(shown.find(s), std::string::npos);
  }
}

}  // namespace
}  // namespace ltl
