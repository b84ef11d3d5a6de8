#pragma once
// Test helpers shared by the programs' tests: run a shell command and read a whole file.

#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace asuka::test {

struct CommandResult {
  int exit_code = -1;  ///< -1 when the command could not run or was killed
  std::string output;  ///< its stdout (redirect stderr with 2>&1 in the command to capture it)
};

inline CommandResult run_command(const std::string& command) {
  CommandResult r;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return r;
  char buffer[4096];
  while (std::fgets(buffer, sizeof(buffer), pipe)) r.output += buffer;
  const int status = ::pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

inline std::string read_text_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace asuka::test
