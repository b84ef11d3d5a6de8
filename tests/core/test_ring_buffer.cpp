// RingBuffer: the bounded drop-oldest queue behind the executor (R-EXEC-2).

#include <memory>

#include <gtest/gtest.h>

#include <asuka/core/ring_buffer.hpp>

namespace asuka {
namespace {

TEST(RingBufferTest, R_EXEC_2_FifoUntilFullThenDropsOldest) {
  RingBuffer<int> buffer(3);
  EXPECT_TRUE(buffer.empty());
  EXPECT_FALSE(buffer.push_back(1));
  EXPECT_FALSE(buffer.push_back(2));
  EXPECT_FALSE(buffer.push_back(3));
  EXPECT_TRUE(buffer.full());
  EXPECT_TRUE(buffer.push_back(4));  // 1 dropped
  EXPECT_EQ(buffer.size(), 3u);
  EXPECT_EQ(buffer.pop_front(), 2);
  EXPECT_FALSE(buffer.push_back(5));
  EXPECT_EQ(buffer.pop_front(), 3);
  EXPECT_EQ(buffer.pop_front(), 4);
  EXPECT_EQ(buffer.front(), 5);
  EXPECT_EQ(buffer.pop_front(), 5);
  EXPECT_TRUE(buffer.empty());
}

TEST(RingBufferTest, PopReleasesSharedOwnershipAtOnce) {
  RingBuffer<std::shared_ptr<int>> buffer(2);
  auto value = std::make_shared<int>(7);
  buffer.push_back(value);
  EXPECT_EQ(value.use_count(), 2);
  buffer.pop_front();
  EXPECT_EQ(value.use_count(), 1);  // the slot does not keep a cloud alive
  buffer.push_back(value);
  buffer.clear();
  EXPECT_EQ(value.use_count(), 1);
}

TEST(RingBufferTest, ZeroCapacityBecomesOne) {
  RingBuffer<int> buffer(0);
  EXPECT_EQ(buffer.capacity(), 1u);
  EXPECT_FALSE(buffer.push_back(1));
  EXPECT_TRUE(buffer.push_back(2));
  EXPECT_EQ(buffer.pop_front(), 2);
}

}  // namespace
}  // namespace asuka
