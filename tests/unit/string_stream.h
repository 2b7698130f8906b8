// StringStream: an InputStream over a string that hands out at most `step` bytes per Read, so
// readers' tests can feed the same input whole or a few bytes at a time.
#pragma once

#include <algorithm>
#include <cstring>
#include <string>

#include "read/input_stream.h"

namespace ltl::testing {

class StringStream : public InputStream {
 public:
  explicit StringStream(std::string s, size_t step = 1 << 20) : s_(std::move(s)), step_(step) {}
  Result<size_t> Read(char* buf, size_t cap) override {
    size_t n = std::min({cap, step_, s_.size() - pos_});
    std::memcpy(buf, s_.data() + pos_, n);
    pos_ += n;
    return n;
  }
  uint64_t raw_bytes_read() const override { return pos_; }
  uint64_t raw_size() const override { return s_.size(); }
  const char* encoding() const override { return "plain"; }

 private:
  std::string s_;
  size_t step_, pos_ = 0;
};

}  // namespace ltl::testing
