// Must not compile: a weave task awaiting an awaitable no weave scheduler
// knows about. tests/CMakeLists.txt runs the compiler on it and expects the
// promise's message; with WEAVE_ONLY_OWN_AWAITABLES it must compile.
#include <coroutine>

#include "weave/exec/load.hpp"
#include "weave/exec/policy.hpp"
#include "weave/exec/task.hpp"

weave::task<int> lookup(const int& x) {
#ifndef WEAVE_ONLY_OWN_AWAITABLES
  co_await std::suspend_always{};
#endif
  co_return co_await weave::load<weave::interleaved_policy>(x);
}

int main() { return lookup(1).valid() ? 0 : 1; }
