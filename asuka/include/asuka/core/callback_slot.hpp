#pragma once
// A typed, thread-safe list of callbacks (R-CB-1).
//
// add() and remove() may be called from any thread, also from inside a callback of the same slot.
// call() runs the callbacks on the calling thread, in the order they were added, over a snapshot
// taken when call() starts: a callback added during call() first runs on the next call(), one
// removed during call() may still run once in the current call(). Exceptions thrown by a callback
// propagate to the caller of call().

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace asuka {

template <typename Signature>
class CallbackSlot;

template <typename... Args>
class CallbackSlot<void(Args...)> {
public:
  using Function = std::function<void(Args...)>;
  using Id = std::uint64_t;

  /// Adds a callback and returns its id (never 0). An empty function is ignored and returns 0.
  Id add(Function f) {
    if (!f) return 0;
    std::lock_guard<std::mutex> lock(mutex_);
    auto next = std::make_shared<List>(*list_);
    const Id id = ++last_id_;
    next->emplace_back(id, std::make_shared<const Function>(std::move(f)));
    list_ = std::move(next);
    return id;
  }

  /// Removes a callback; returns false when the id is unknown (already removed, or 0).
  bool remove(Id id) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto next = std::make_shared<List>();
    next->reserve(list_->size());
    bool found = false;
    for (const auto& entry : *list_) {
      if (entry.first == id) {
        found = true;
      } else {
        next->push_back(entry);
      }
    }
    if (found) list_ = std::move(next);
    return found;
  }

  void clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    list_ = std::make_shared<List>();
  }

  std::size_t size() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return list_->size();
  }

  bool empty() const { return size() == 0; }

  /// Calls every callback with the given arguments on the calling thread.
  void call(const Args&... args) const {
    std::shared_ptr<const List> snapshot;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      snapshot = list_;
    }
    for (const auto& entry : *snapshot) (*entry.second)(args...);
  }

  void operator()(const Args&... args) const { call(args...); }

private:
  using List = std::vector<std::pair<Id, std::shared_ptr<const Function>>>;

  mutable std::mutex mutex_;
  std::shared_ptr<const List> list_ = std::make_shared<List>();
  Id last_id_ = 0;
};

/// Removes its callback from the slot when destroyed: the safe way for a module with a shorter
/// life than the slot to subscribe.
class ScopedConnection {
public:
  ScopedConnection() = default;
  template <typename Slot>
  ScopedConnection(Slot& slot, typename Slot::Id id) : disconnect_([&slot, id] { slot.remove(id); }) {}
  ScopedConnection(ScopedConnection&& other) noexcept : disconnect_(std::move(other.disconnect_)) { other.disconnect_ = nullptr; }
  ScopedConnection& operator=(ScopedConnection&& other) noexcept {
    if (this != &other) {
      disconnect();
      disconnect_ = std::move(other.disconnect_);
      other.disconnect_ = nullptr;
    }
    return *this;
  }
  ScopedConnection(const ScopedConnection&) = delete;
  ScopedConnection& operator=(const ScopedConnection&) = delete;
  ~ScopedConnection() { disconnect(); }

  void disconnect() {
    if (disconnect_) {
      disconnect_();
      disconnect_ = nullptr;
    }
  }

private:
  std::function<void()> disconnect_;
};

/// Adds `f` to `slot` and returns a connection that removes it again when destroyed.
template <typename Slot, typename F>
ScopedConnection connect(Slot& slot, F&& f) {
  return ScopedConnection(slot, slot.add(std::forward<F>(f)));
}

}  // namespace asuka
