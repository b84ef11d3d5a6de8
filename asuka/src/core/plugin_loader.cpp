#include <asuka/core/plugin_loader.hpp>

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <set>
#include <map>
#include <mutex>
#include <sstream>

#include <asuka/core/plugin_abi.hpp>
#include <asuka/util/logging.hpp>

namespace asuka {

namespace {

struct Registry {
  std::mutex mutex;
  std::map<std::string, void*> handles;  ///< by resolved file name; never dlclose'd (R-PLUG-2)
  std::vector<std::string> order;
};

Registry& registry() {
  static Registry* r = new Registry();  // leaked on purpose: plugins may be used until exit
  return *r;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string directory_of_this_library() {
  Dl_info info{};
  // Any function defined in this library resolves to libasuka.so's path.
  if (dladdr(reinterpret_cast<void*>(&directory_of_this_library), &info) == 0 || info.dli_fname == nullptr) return "";
  const std::string path = info.dli_fname;
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

std::vector<std::string> file_names(const std::string& so_name, const std::string& kind) {
  std::vector<std::string> names;
  if (ends_with(so_name, ".so") || so_name.find(".so.") != std::string::npos) {
    names.push_back(so_name);
    return names;
  }
  // A bare name: the conventional plugin file first, then the plain library name.
  if (!kind.empty()) names.push_back("libasuka_" + kind + "_" + so_name + ".so");
  names.push_back("lib" + so_name + ".so");
  return names;
}

/// The directories searched for plugins: ASUKA_PLUGIN_PATH's, then libasuka.so's own.
std::vector<std::string> plugin_dirs() {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("ASUKA_PLUGIN_PATH")) {
    std::stringstream ss(env);
    std::string dir;
    while (std::getline(ss, dir, ':')) {
      if (!dir.empty()) dirs.push_back(dir);
    }
  }
  const std::string own_dir = directory_of_this_library();
  if (!own_dir.empty()) dirs.push_back(own_dir);
  return dirs;
}

/// The plugins of `kind` in the search directories, by name (libasuka_KIND_NAME.so -> NAME), sorted.
std::vector<std::string> installed_plugins(const std::string& kind) {
  std::set<std::string> names;
  const std::string prefix = "libasuka_" + kind + "_";
  for (const auto& dir : plugin_dirs()) {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
      const std::string file = entry.path().filename().string();
      if (file.rfind(prefix, 0) == 0 && ends_with(file, ".so")) names.insert(file.substr(prefix.size(), file.size() - prefix.size() - 3));
    }
  }
  return {names.begin(), names.end()};
}

}  // namespace

PluginRegistry& PluginRegistry::instance() {
  static PluginRegistry r;
  return r;
}

std::vector<std::string> PluginRegistry::candidates(const std::string& so_name, const std::string& kind) const {
  std::vector<std::string> result;
  if (so_name.find('/') != std::string::npos) {
    result.push_back(so_name);
    return result;
  }

  const std::vector<std::string> dirs = plugin_dirs();
  const auto names = file_names(so_name, kind);
  for (const auto& dir : dirs) {
    for (const auto& name : names) result.push_back(dir + "/" + name);
  }
  // Last resort: the dynamic linker's own search (LD_LIBRARY_PATH, ld.so.cache, ...).
  for (const auto& name : names) result.push_back(name);
  return result;
}

void* PluginRegistry::open(const std::string& so_name, const std::string& kind, std::string* error) {
  if (so_name.empty()) {
    if (error) *error = "empty plugin name (set so_name in the config)";
    return nullptr;
  }

  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);

  const auto tried = candidates(so_name, kind);
  std::string reasons;
  for (const auto& file : tried) {
    const auto found = r.handles.find(file);
    if (found != r.handles.end()) return found->second;

    // A candidate path that does not exist is skipped quietly; a file that exists but fails to
    // load (missing dependency, wrong architecture) is the real reason and is reported.
    void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle) {
      r.handles.emplace(file, handle);
      r.order.push_back(file);
      module_logger("plugin")->debug("loaded {}", file);
      return handle;
    }
    const char* reason = dlerror();
    const std::string why = reason ? reason : "unknown dlopen error";
    // "FILE: cannot open shared object file" about the candidate itself only means it is not
    // there; anything else (a missing dependency of an existing file, a bad ELF) is the reason.
    const bool candidate_missing = why.rfind(file + ":", 0) == 0 && why.find("cannot open shared object file") != std::string::npos;
    if (!candidate_missing || tried.size() == 1) reasons += "\n  " + why;
  }

  if (error) {
    std::ostringstream msg;
    msg << "cannot load " << (kind.empty() ? "plugin" : kind + " plugin") << " '" << so_name << "'; tried:";
    for (const auto& file : tried) msg << "\n  " << file;
    if (!reasons.empty()) msg << "\nreason:" << reasons;
    else msg << "\nreason: no such file (set ASUKA_PLUGIN_PATH or give a path)";
    if (reasons.empty() && !kind.empty()) {
      const auto installed = installed_plugins(kind);
      msg << "\ninstalled " << kind << " plugins: ";
      for (std::size_t i = 0; i < installed.size(); ++i) msg << (i > 0 ? ", " : "") << installed[i];
      if (installed.empty()) msg << "none";
    }
    *error = msg.str();
  }
  return nullptr;
}

void* PluginRegistry::symbol(void* handle, const std::string& library, const std::string& name, std::string* error) {
  dlerror();  // clear any earlier error
  void* sym = dlsym(handle, name.c_str());
  if (sym == nullptr) {
    const char* reason = dlerror();
    if (error) *error = "plugin '" + library + "' does not export symbol '" + name + "'" + (reason ? std::string(" (") + reason + ")" : std::string());
  }
  return sym;
}

bool PluginRegistry::check_abi(void* handle, const std::string& library, std::string* error) {
  using AbiFn = int (*)();
  std::string sym_error;
  void* sym = symbol(handle, library, ASUKA_PLUGIN_ABI_SYMBOL, &sym_error);
  if (sym == nullptr) {
    if (error) *error = sym_error + "; it was not built with ASUKA_PLUGIN_EXPORT_ABI_VERSION() (plugin_abi.hpp)";
    return false;
  }
  const int version = reinterpret_cast<AbiFn>(sym)();
  if (version != ASUKA_PLUGIN_ABI_VERSION) {
    if (error) {
      *error = "plugin '" + library + "' was built for plugin ABI version " + std::to_string(version) + " but this host expects version " +
               std::to_string(ASUKA_PLUGIN_ABI_VERSION) + "; rebuild the plugin against the current asuka headers";
    }
    return false;
  }
  return true;
}

std::vector<std::string> PluginRegistry::loaded() const {
  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.order;
}

void* load_plugin_factory(const std::string& so_name, const std::string& kind, const std::string& factory, std::string* error) {
  auto& registry = PluginRegistry::instance();
  std::string message;
  void* handle = registry.open(so_name, kind, &message);
  void* sym = nullptr;
  if (handle && registry.check_abi(handle, so_name, &message)) {
    sym = registry.symbol(handle, so_name, factory, &message);
  }
  if (sym == nullptr && error) *error = message;
  return sym;
}

}  // namespace asuka
