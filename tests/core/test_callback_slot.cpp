// CallbackSlot (R-CB-1): typed slots, add/remove safe from any thread and from inside a callback.

#include <atomic>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <asuka/core/callback_slot.hpp>
#include <asuka/core/callbacks.hpp>

namespace asuka {
namespace {

TEST(CallbackSlotTest, R_CB_1_CallsInOrderOfAddition) {
  CallbackSlot<void(int)> slot;
  std::vector<int> seen;
  slot.add([&](int x) { seen.push_back(x * 10 + 1); });
  const auto id = slot.add([&](int x) { seen.push_back(x * 10 + 2); });
  slot.add([&](int x) { seen.push_back(x * 10 + 3); });
  EXPECT_NE(id, 0u);
  slot(4);
  EXPECT_EQ(seen, std::vector<int>({41, 42, 43}));

  EXPECT_TRUE(slot.remove(id));
  EXPECT_FALSE(slot.remove(id));
  seen.clear();
  slot(5);
  EXPECT_EQ(seen, std::vector<int>({51, 53}));
  EXPECT_EQ(slot.add(nullptr), 0u);
  EXPECT_EQ(slot.size(), 2u);
}

TEST(CallbackSlotTest, R_CB_1_AddAndRemoveFromInsideACallback) {
  CallbackSlot<void()> slot;
  int removed_runs = 0;
  int added_runs = 0;
  CallbackSlot<void()>::Id self = 0;
  self = slot.add([&] {
    ++removed_runs;
    slot.remove(self);                       // removes itself: no deadlock
    slot.add([&] { ++added_runs; });         // takes effect on the next call
  });
  slot();
  EXPECT_EQ(removed_runs, 1);
  EXPECT_EQ(added_runs, 0);
  slot();
  EXPECT_EQ(removed_runs, 1);
  EXPECT_EQ(added_runs, 1);
}

TEST(CallbackSlotTest, R_CB_1_ConcurrentAddRemoveAndCall) {
  CallbackSlot<void(int)> slot;
  std::atomic<int> total{0};
  std::atomic<bool> stop{false};
  const auto keep = slot.add([&](int x) { total += x; });

  std::thread caller([&] {
    while (!stop) slot(1);
  });
  std::vector<std::thread> mutators;
  for (int t = 0; t < 3; ++t) {
    mutators.emplace_back([&] {
      for (int i = 0; i < 500; ++i) {
        const auto id = slot.add([](int) {});
        EXPECT_TRUE(slot.remove(id));
      }
    });
  }
  for (auto& m : mutators) m.join();
  // On a loaded machine the caller may not have run yet: it must call at least once (no sleep-based timing).
  while (total.load() == 0) std::this_thread::yield();
  stop = true;
  caller.join();
  EXPECT_GT(total.load(), 0);
  EXPECT_EQ(slot.size(), 1u);
  EXPECT_TRUE(slot.remove(keep));
}

TEST(CallbackSlotTest, R_CB_1_ScopedConnectionDisconnectsOnDestruction) {
  CallbackSlot<void()> slot;
  int runs = 0;
  {
    auto connection = connect(slot, [&] { ++runs; });
    slot();
    auto moved = std::move(connection);  // ownership moves; still one subscription
    slot();
  }
  slot();
  EXPECT_EQ(runs, 2);
  EXPECT_TRUE(slot.empty());
}

TEST(CallbackSlotTest, R_CB_1_OdometrySlotsAreProcessWide) {
  int seen = 0;
  auto connection = connect(OdometryCallbacks::on_new_frame, [&](const EstimationFrame::ConstPtr& f) { seen += static_cast<int>(f->id); });
  auto frame = std::make_shared<EstimationFrame>();
  frame->id = 7;
  OdometryCallbacks::on_new_frame(frame);
  EXPECT_EQ(seen, 7);
}

}  // namespace
}  // namespace asuka
