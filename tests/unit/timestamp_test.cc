// Timestamp forms in gateway logs: epoch numbers by magnitude and every date-time form, against
// epoch values computed by hand (2025-07-24T10:00:00Z = 1753351200).
#include "read/timestamp.h"

#include <gtest/gtest.h>

namespace ltl {
namespace {

double Ts(const char* s) {
  double v = -1;
  EXPECT_TRUE(ParseTimestamp(s, &v)) << s;
  return v;
}

TEST(Timestamp, EpochUnitsByMagnitude) {
  EXPECT_DOUBLE_EQ(Ts("1753351200"), 1753351200.0);
  EXPECT_DOUBLE_EQ(Ts("1753351200.25"), 1753351200.25);
  EXPECT_DOUBLE_EQ(Ts("1753351200123"), 1753351200.123);
  EXPECT_DOUBLE_EQ(Ts("1753351200123456"), 1753351200.123456);
  EXPECT_NEAR(Ts("1753351200123456789"), 1753351200.123456789, 1e-6);
  EXPECT_DOUBLE_EQ(Ts("12.5"), 12.5);  // a relative time in seconds stays as it is
  EXPECT_DOUBLE_EQ(EpochSecondsFromNumber(1753351200000.0), 1753351200.0);
}

TEST(Timestamp, IsoAndSqlForms) {
  const double t = 1753351200.0;  // 2025-07-24 10:00:00 UTC
  EXPECT_DOUBLE_EQ(Ts("2025-07-24T10:00:00Z"), t);
  EXPECT_DOUBLE_EQ(Ts("2025-07-24T10:00:00"), t);  // no zone: UTC
  EXPECT_DOUBLE_EQ(Ts("2025-07-24T12:00:00+02:00"), t);
  EXPECT_DOUBLE_EQ(Ts("2025-07-24T05:30:00-0430"), t);
  EXPECT_DOUBLE_EQ(Ts("2025-07-24T11:00:00+01"), t);
  EXPECT_DOUBLE_EQ(Ts("2025-07-24 10:00:00"), t);
  EXPECT_DOUBLE_EQ(Ts("2025-07-24 10:00:00.250"), t + 0.25);
  EXPECT_NEAR(Ts("2025-07-24 10:00:00.123456"), t + 0.123456, 1e-6);  // Langfuse
  EXPECT_DOUBLE_EQ(Ts("2025-07-24 10:00:00.5+00"), t + 0.5);          // Postgres timestamptz
  EXPECT_DOUBLE_EQ(Ts("2025-07-24T10:00:00.5Z"), t + 0.5);
  EXPECT_DOUBLE_EQ(Ts("2025-07-24 10:00:00 UTC"), t);
  EXPECT_DOUBLE_EQ(Ts("2025-07-24T10:00Z"), t);
  EXPECT_DOUBLE_EQ(Ts("2025-07-24"), t - 10 * 3600);
  EXPECT_DOUBLE_EQ(Ts("1970-01-01T00:00:00Z"), 0.0);
  EXPECT_DOUBLE_EQ(Ts("2000-03-01T00:00:00Z"), 951868800.0);  // after a leap day
}

TEST(Timestamp, RejectsNonTimes) {
  double v;
  for (const char* s : {"", "abc", "2025-13-01", "2025-07-24T10", "2025-07-24T10:00:00+5",
                        "2025-07-24X10:00:00", "nan", "10:00:00"})
    EXPECT_FALSE(ParseTimestamp(s, &v)) << s;
}

}  // namespace
}  // namespace ltl
