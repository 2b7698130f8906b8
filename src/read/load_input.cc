// LoadInput: open, peek, detect, dispatch (see load_input.h).
#include "read/load_input.h"

#include <fmt/format.h>

#include <cstring>

#include "read/input_stream.h"
#include "read/trace_readers.h"

namespace ltl {
namespace {

// Replays bytes read for format detection before the rest of the stream.
class PeekedStream : public InputStream {
 public:
  PeekedStream(std::unique_ptr<InputStream> in, std::string head)
      : in_(std::move(in)), head_(std::move(head)) {}
  Result<size_t> Read(char* buf, size_t cap) override {
    if (pos_ < head_.size()) {
      size_t n = std::min(cap, head_.size() - pos_);
      std::memcpy(buf, head_.data() + pos_, n);
      pos_ += n;
      return n;
    }
    return in_->Read(buf, cap);
  }
  uint64_t raw_bytes_read() const override { return in_->raw_bytes_read(); }
  uint64_t raw_size() const override { return in_->raw_size(); }
  const char* encoding() const override { return in_->encoding(); }

 private:
  std::unique_ptr<InputStream> in_;
  std::string head_;
  size_t pos_ = 0;
};

constexpr size_t kPeekBytes = 1 << 16;

}  // namespace

Result<LoadedInput> LoadInput(const std::string& path, InputFormat format, ReadContext* ctx) {
  LoadedInput out;
  auto opened = OpenInput(path);
  if (!opened.ok()) return opened.status();
  std::unique_ptr<InputStream> raw = std::move(opened.value());
  // Peek at the head: up to the first newline past kPeekBytes is not needed, 64 KiB decides.
  std::string head;
  head.resize(kPeekBytes);
  size_t got = 0;
  while (got < head.size()) {
    auto n = raw->Read(head.data() + got, head.size() - got);
    if (!n.ok()) return n.status();
    if (*n == 0) break;
    got += *n;
  }
  head.resize(got);
  if (format == InputFormat::kAuto) {
    auto detected = DetectFormat(head, ctx->name);
    if (!detected.ok()) return detected.status();
    format = *detected;
  }
  out.format = format;
  PeekedStream in(std::move(raw), std::move(head));
  out.encoding = in.encoding();
  Status st;
  switch (format) {
    case InputFormat::kMooncake: st = ReadMooncake(&in, ctx, &out.records); break;
    case InputFormat::kBailian: st = ReadBailian(&in, ctx, &out.records); break;
    default:
      return Status::InvalidArgument(
          fmt::format("{}: format '{}' is not readable yet", ctx->name, FormatName(format)));
  }
  if (!st.ok()) return st;
  out.bytes = in.raw_bytes_read();
  return out;
}

}  // namespace ltl
