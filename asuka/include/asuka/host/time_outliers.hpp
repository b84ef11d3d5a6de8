#pragma once
// Single stamps far ahead of their stream (issue #12, item 5): one IMU sample stamped +1000 s made
// fastlio wait for that time and drop every later sample; one lidar frame +1000 s silently lost the
// rest of the run. A forward jump larger than `max_jump` is held until the stream's next item
// shows what it was: if that item continues from before the jump, the held one was a lone outlier
// and is dropped (the caller counts and warns) without ever becoming the stream's baseline; if it
// continues from after the jump, the jump was real (a gap in the data) and both go on. Backward
// jumps are the loop-back check's (R-ROS-2), which this does not change.
//
// One stream per instance; the host's producer thread only.

#include <optional>
#include <utility>
#include <vector>

namespace asuka {

template <class Item>
class ForwardJumpFilter {
public:
  explicit ForwardJumpFilter(double max_jump) : max_jump_(max_jump) {}

  /// The next item of the stream with its raw stamp; `release` receives what may go on now, in order;
  /// `dropped(item, stamp, before, after)` receives a held item found to be an outlier, with its stamp
  /// and the stamps before and after it.
  template <class Release, class Dropped>
  void push(Item item, double stamp, Release release, Dropped dropped) {
    if (held_) {
      auto [held, held_stamp] = std::move(*held_);
      held_.reset();
      // Nearer the stamps before the jump than the held one: the held item stood alone.
      if (stamp < held_stamp && stamp - last_ < held_stamp - stamp) {
        dropped(held, held_stamp, last_, stamp);
      } else {
        last_ = held_stamp;
        release(std::move(held));
      }
    }
    if (has_last_ && stamp > last_ + max_jump_) {
      held_.emplace(std::move(item), stamp);
      return;
    }
    last_ = stamp;  // follows the stream, loop-backs included
    has_last_ = true;
    release(std::move(item));
  }

  /// The end of the input: a held item goes on (nothing follows to tell otherwise).
  template <class Release>
  void flush(Release release) {
    if (!held_) return;
    auto held = std::move(held_->first);
    last_ = held_->second;
    held_.reset();
    release(std::move(held));
  }

private:
  double max_jump_;
  bool has_last_ = false;
  double last_ = 0.0;
  std::optional<std::pair<Item, double>> held_;
};

}  // namespace asuka
