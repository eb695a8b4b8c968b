#include "weave/exec/thread_group.hpp"

#include <gtest/gtest.h>
#include <pthread.h>

#include <atomic>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

namespace {

TEST(thread_group, runs_every_body_once_and_joins) {
  std::vector<std::atomic<int>> runs(8);
  {
    weave::thread_group group(runs.size(), [&](std::size_t t) { runs[t].fetch_add(1); });
    group.join();
    for (const auto& r : runs) EXPECT_EQ(r.load(), 1);
  }
  for (const auto& r : runs) EXPECT_EQ(r.load(), 1);
}

// A body that throws when the group copies it into its k-th thread: the
// threads already started are joined (a joinable std::thread left behind
// would end the process) and none runs its body.
struct copies_until {
  std::atomic<int>* copies_left;
  std::atomic<int>* bodies_run;
  copies_until(std::atomic<int>* left, std::atomic<int>* run) : copies_left(left), bodies_run(run) {}
  copies_until(const copies_until& o) : copies_left(o.copies_left), bodies_run(o.bodies_run) {
    if (copies_left->fetch_sub(1) <= 0) throw std::runtime_error("no more copies");
  }
  void operator()(std::size_t) const { bodies_run->fetch_add(1); }
};

TEST(thread_group, all_or_none_when_a_thread_cannot_start) {
  for (int started = 0; started < 5; ++started) {
    std::atomic<int> left{started}, run{0};
    EXPECT_THROW(weave::thread_group(8, copies_until(&left, &run)), std::runtime_error);
    EXPECT_EQ(run.load(), 0) << started << " threads started";
  }
}

// A thread the system cannot start (here: every new thread asks for a stack
// of 48 TiB) is a std::system_error that says which one.
TEST(thread_group, says_which_thread_could_not_start) {
  pthread_attr_t old;
  ASSERT_EQ(::pthread_getattr_default_np(&old), 0);
  pthread_attr_t huge;
  ASSERT_EQ(::pthread_attr_init(&huge), 0);
  ASSERT_EQ(::pthread_attr_setstacksize(&huge, std::size_t{48} << 40), 0);
  ASSERT_EQ(::pthread_setattr_default_np(&huge), 0);
  std::string message;
  std::atomic<int> run{0};
  try {
    weave::thread_group group(4, [&](std::size_t) { run.fetch_add(1); });
  } catch (const std::system_error& e) {
    message = e.what();
  }
  ASSERT_EQ(::pthread_setattr_default_np(&old), 0);
  ::pthread_attr_destroy(&huge);
  ::pthread_attr_destroy(&old);
  EXPECT_NE(message.find("cannot start thread"), std::string::npos) << message;
  EXPECT_NE(message.find(" of 4"), std::string::npos) << message;
  EXPECT_EQ(run.load(), 0);
}

}  // namespace
