// One fuzz target for libFuzzer; WEAVE_FUZZ_TARGET names it (CMakeLists.txt).

#include "fuzz/targets.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  WEAVE_FUZZ_TARGET(data, size);
  return 0;
}
