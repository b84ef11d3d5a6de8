#include <asuka/messages/topic_check.hpp>

#include <fmt/format.h>

namespace asuka::msg {

std::string check_topics(const std::vector<TopicSeen>& seen, const std::vector<TopicWanted>& wanted, const std::string& source) {
  std::vector<std::string> problems;
  for (const auto& w : wanted) {
    const TopicSeen* found = nullptr;
    const TopicSeen* candidate = nullptr;  // the busiest topic of a fitting type
    for (const auto& t : seen) {
      if (t.name == w.topic) found = &t;
      if (w.accepts(t.type) && (candidate == nullptr || t.messages > candidate->messages)) candidate = &t;
    }
    if (found != nullptr && w.accepts(found->type)) continue;
    std::string problem = found == nullptr ? fmt::format("the {} topic '{}' is not in {}", w.what, w.topic, source)
                                           : fmt::format("the {} topic '{}' carries {}, expected {}", w.what, w.topic, found->type, w.expected);
    problem += candidate != nullptr ? fmt::format("; '{}' holds {}: --set config_ros.{}={}", candidate->name, candidate->type, w.key, candidate->name)
                                    : fmt::format("; no topic holds {}", w.expected);
    problems.push_back(problem);
  }
  if (problems.empty()) return {};
  std::string text;
  for (std::size_t i = 0; i < problems.size(); ++i) text += (i == 0 ? "" : ", and ") + problems[i];
  text += ". Topics in " + source + ":";
  if (seen.empty()) text += " none";
  for (const auto& t : seen) text += t.messages > 0 || source == "the input" ? fmt::format("\n  {} ({}, {} messages)", t.name, t.type, t.messages) : fmt::format("\n  {} ({})", t.name, t.type);
  return text;
}

}  // namespace asuka::msg
