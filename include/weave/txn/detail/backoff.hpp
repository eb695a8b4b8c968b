#pragma once
// Waiting for another committer (its stamping, or a version latch it holds
// for a few stamp updates): spin briefly, then yield, since with more
// threads than cores the one we wait for may need our core.

#include <thread>

namespace weave::txn::detail {

class backoff {
 public:
  void pause() noexcept {
    if (++spins_ < 64) {
#if defined(__x86_64__)
      __builtin_ia32_pause();
#endif
    } else {
      std::this_thread::yield();
    }
  }

 private:
  unsigned spins_ = 0;
};

}  // namespace weave::txn::detail
