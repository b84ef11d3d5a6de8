#pragma once
// Captures what one module logger writes while a test runs, so the test can assert on the message a
// user would read.

#include <algorithm>
#include <memory>
#include <string>

#include <spdlog/sinks/ringbuffer_sink.h>

#include <asuka/util/logging.hpp>

namespace asuka::test {

class LogCapture {
public:
  explicit LogCapture(const std::string& module, std::size_t lines = 200)
  : logger_(module_logger(module)), sink_(std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(lines)) {
    logger_->sinks().push_back(sink_);
  }
  ~LogCapture() {
    auto& sinks = logger_->sinks();
    sinks.erase(std::remove(sinks.begin(), sinks.end(), sink_), sinks.end());
  }
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;

  bool contains(const std::string& text) const {
    for (const auto& line : sink_->last_formatted()) {
      if (line.find(text) != std::string::npos) return true;
    }
    return false;
  }
  std::string text() const {
    std::string all;
    for (const auto& line : sink_->last_formatted()) all += line;
    return all;
  }

private:
  std::shared_ptr<spdlog::logger> logger_;
  std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> sink_;
};

}  // namespace asuka::test
