// Status and Result<T>: how every stage reports failure without exceptions on hot paths.
// A Status carries a code and a one-line message that is safe to print (never prompt text).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace ltl {

class Status {
 public:
  enum class Code {
    kOk = 0,
    kInvalidArgument,
    kIoError,
    kCorrupt,
    kNotFound,
    kLimit,
    kInterrupted
  };

  Status() = default;
  static Status Ok() { return Status(); }
  static Status InvalidArgument(std::string msg) {
    return Status(Code::kInvalidArgument, std::move(msg));
  }
  static Status IoError(std::string msg) { return Status(Code::kIoError, std::move(msg)); }
  static Status Corrupt(std::string msg) { return Status(Code::kCorrupt, std::move(msg)); }
  static Status NotFound(std::string msg) { return Status(Code::kNotFound, std::move(msg)); }
  static Status Limit(std::string msg) { return Status(Code::kLimit, std::move(msg)); }
  static Status Interrupted(std::string msg) { return Status(Code::kInterrupted, std::move(msg)); }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  Status(Code code, std::string msg) : code_(code), message_(std::move(msg)) {}
  Code code_ = Code::kOk;
  std::string message_;
};

// Result<T>: a value or a non-ok Status, in the spirit of simdjson's result<T>.
template <typename T>
class Result {
 public:
  Result(T value) : value_(std::move(value)) {}          // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {}  // NOLINT: implicit by design

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T& operator*() { return *value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

#define LTL_RETURN_IF_ERROR(expr)      \
  do {                                 \
    ::ltl::Status _ltl_st = (expr);    \
    if (!_ltl_st.ok()) return _ltl_st; \
  } while (0)

}  // namespace ltl
