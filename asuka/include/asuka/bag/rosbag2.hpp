#pragma once
// rosbag2 folders: metadata.yaml (when present) names the storage files in order and the
// compression; without it, every MCAP or SQLite3 file in the folder is read. Several files are merged
// in receive-time order. Also writes the folder's metadata.yaml (for the simulator).

#include <cstdint>
#include <string>
#include <vector>

#include <asuka/bag/bag_reader.hpp>

namespace asuka::bag {

/// What metadata.yaml says (the parts asuka uses).
struct Rosbag2Metadata {
  std::string storage_identifier;      ///< "mcap" or "sqlite3"
  std::vector<std::string> files;      ///< relative_file_paths, in order
  std::string compression_format;      ///< "" or "zstd"
  std::string compression_mode;        ///< "", "FILE" or "MESSAGE"
  std::vector<TopicInfo> topics;       ///< with counts
};

/// Several readers as one, merged in receive-time order (several bags given together).
std::unique_ptr<BagReader> merge_readers(std::vector<std::unique_ptr<BagReader>> readers);

/// Parses `folder`/metadata.yaml. Throws BagError naming the key that is missing or malformed.
Rosbag2Metadata read_rosbag2_metadata(const std::string& folder);

/// Writes `folder`/metadata.yaml for the given storage files (rosbag2 format version 9).
void write_rosbag2_metadata(const std::string& folder, const std::string& storage, const std::vector<std::string>& files,
                            const std::vector<TopicInfo>& topics, std::uint64_t start_time, std::uint64_t end_time);

}  // namespace asuka::bag
