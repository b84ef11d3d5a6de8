#pragma once
// The frontends this tree builds (ASUKA_FRONTEND_NAMES, set by tests/CMakeLists.txt from the frontend
// discovery), for suites parameterized over every frontend.

#include <sstream>
#include <string>
#include <vector>

namespace asuka::test {

inline std::vector<std::string> frontend_names() {
  std::vector<std::string> names;
  std::stringstream list(ASUKA_FRONTEND_NAMES);
  for (std::string name; std::getline(list, name, ',');) {
    if (!name.empty()) names.push_back(name);
  }
  return names;
}

}  // namespace asuka::test
