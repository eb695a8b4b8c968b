#include "weave/txn/detail/spare_vectors.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <thread>
#include <vector>

namespace weave::txn::detail {
namespace {

using spares = spare_vectors<std::uint64_t>;

TEST(spare_vectors, hands_a_vector_on_with_its_storage) {
  std::thread([] {
    std::vector<std::uint64_t> v(100);
    const std::size_t capacity = v.capacity();
    spares::give(v);
    EXPECT_EQ(v.capacity(), 0u);  // taken into the spares
    const std::vector<std::uint64_t> again = spares::take();
    EXPECT_TRUE(again.empty());
    EXPECT_EQ(again.capacity(), capacity);
  }).join();
}

TEST(spare_vectors, frees_a_vector_grown_past_what_it_keeps) {
  std::thread([] {
    std::vector<std::uint64_t> big(std::size_t{1} << 20);  // 8 MiB: a scan of a whole table
    spares::give(big);
    EXPECT_EQ(big.capacity(), 0u);
    EXPECT_EQ(spares::take().capacity(), 0u);  // nothing was kept
  }).join();
}

TEST(spare_vectors, a_spare_vector_goes_back_when_it_ends) {
  std::thread([] {
    std::size_t capacity = 0;
    {
      spare_vector<std::uint64_t> held;
      held->resize(64);
      capacity = held->capacity();
    }
    EXPECT_EQ(spares::take().capacity(), capacity);
  }).join();
}

}  // namespace
}  // namespace weave::txn::detail
