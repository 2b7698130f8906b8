// libFuzzer target: the Qwen-bailian trace reader (properties in trace_reader_fuzz_impl.h).
#include "fuzz/trace_reader_fuzz_impl.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ltl::fuzz::FuzzTraceReader(&ltl::ReadBailian, data, size);
  return 0;
}
