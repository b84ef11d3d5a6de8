#pragma once
// A bounded FIFO that overwrites its oldest element when full (R-EXEC-2). Not synchronized: the
// executor guards it with its own mutex.

#include <cstddef>
#include <utility>
#include <vector>

namespace asuka {

template <typename T>
class RingBuffer {
public:
  explicit RingBuffer(std::size_t capacity) : slots_(capacity > 0 ? capacity : 1) {}

  std::size_t capacity() const { return slots_.size(); }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  bool full() const { return size_ == slots_.size(); }

  /// Appends; when full, the oldest element is dropped first. Returns true if one was dropped.
  bool push_back(T value) {
    bool dropped = false;
    if (full()) {
      pop_front();
      dropped = true;
    }
    slots_[(head_ + size_) % slots_.size()] = std::move(value);
    ++size_;
    return dropped;
  }

  T& front() { return slots_[head_]; }
  const T& front() const { return slots_[head_]; }

  /// Removes and returns the oldest element. Precondition: !empty().
  T pop_front() {
    T value = std::move(slots_[head_]);
    slots_[head_] = T();  // release what the slot holds (shared_ptr clouds) right away
    head_ = (head_ + 1) % slots_.size();
    --size_;
    return value;
  }

  void clear() {
    while (!empty()) pop_front();
  }

private:
  std::vector<T> slots_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

}  // namespace asuka
