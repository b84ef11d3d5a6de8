#pragma once
// One rule for a warning that can repeat per message or per scan: count every occurrence, log the
// first few in full, then a reminder every Nth, so a bad input is visible without flooding the log.

#include <cstdint>

namespace asuka {

class WarningCounter {
public:
  /// Logs occurrences 1..`first`, then every `every`th (`every` 0: never again after the first).
  explicit WarningCounter(std::uint64_t first = 3, std::uint64_t every = 100) : first_(first), every_(every) {}

  /// Counts one occurrence; true when this one is to be logged.
  bool add() {
    ++count_;
    return count_ <= first_ || (every_ > 0 && count_ % every_ == 0);
  }
  std::uint64_t count() const { return count_; }
  void reset() { count_ = 0; }

private:
  std::uint64_t first_;
  std::uint64_t every_;
  std::uint64_t count_ = 0;
};

}  // namespace asuka
