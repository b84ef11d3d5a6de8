#pragma once
// The run's map record (#16): what a filter frontend's map took over the run, with the sensor's
// intensity, for map.pcd.
//
// The map a frontend registers against holds positions only (its voxels are laid out for the k-NN,
// two cache lines each) and drops what leaves the local-map box around the sensor. A saved map should
// carry the intensity the bags carry and everything the run saw, as FAST-LIO's saved map does. The
// record is fed only the points the map's insert() kept (point_map.hpp, by index), so it costs
// nothing per scan point, and it keeps one point per cubic cell of `cell_size` (the first, with its
// intensity), so that a region the map drops and takes again (on a return, or every tenth scan where
// the sensor sees beyond the box) is recorded once, not again each time. With cells no larger than
// the map's point spacing / sqrt(3) (0.1 m against fastlio's 0.2 m) two points the map holds at once
// never share a cell: the record holds exactly what the map took.
//
// Memory grows with the area the run covers, not with its time: 16 bytes per point, and the cells'
// occupancy as one bit each in blocks of 4 x 4 x 4 cells (24 bytes and a hash slot or two per block):
// 46-74 bytes per point reserved, 20-40 resident, on the standard bags (benchmarks/README.md). At
// `max_points` the record stops taking points (add() returns false; the frontend says so once);
// max_points 0 turns it off, and map.pcd is the local map without intensity.
// Threads: one at a time (the executor's worker; save_map after the worker stopped).

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <Eigen/Core>

#include <asuka/lio/voxel_table.hpp>

namespace asuka::lio {

class MapRecord {
public:
  MapRecord(double cell_size, std::size_t max_points) : inv_cell_(static_cast<float>(1.0 / cell_size)), max_points_(max_points) {}

  /// Takes points[i], with intensity[i] (0 where `intensity` is shorter), for each i of `kept` whose
  /// cell holds no point yet. Returns false when a point found no room under max_points.
  bool add(const std::vector<Eigen::Vector3f>& points, const std::vector<float>& intensity, const std::vector<std::uint32_t>& kept) {
    for (const std::uint32_t i : kept) {
      const Eigen::Vector3f& p = points[i];
      if (!p.allFinite()) continue;
      const VoxelKey cell = voxel_key(p, inv_cell_);
      // The block of 4 x 4 x 4 cells (floor division by 4: an arithmetic shift) and the cell's bit in it.
      const VoxelKey key{cell.x >> 2, cell.y >> 2, cell.z >> 2};
      const std::uint64_t bit = std::uint64_t{1} << ((cell.x & 3) | ((cell.y & 3) << 2) | ((cell.z & 3) << 4));
      if (size_ >= max_points_) {
        const Block* block = blocks_.find(key);
        if (block == nullptr || (block->occupied & bit) == 0) return false;
        continue;
      }
      Block& block = blocks_.find_or_add(key);
      if ((block.occupied & bit) != 0) continue;  // the cell has its point
      block.occupied |= bit;
      if (size_ % kChunk == 0) {
        chunks_.emplace_back();
        chunks_.back().reserve(kChunk);  // a chunk never grows past this: the record is never copied whole
      }
      chunks_.back().push_back(Entry{p.x(), p.y(), p.z(), i < intensity.size() ? intensity[i] : 0.0f});
      ++size_;
    }
    return true;
  }

  void clear() {
    blocks_ = VoxelTable<Block>();
    chunks_.clear();
    size_ = 0;
  }

  bool enabled() const { return max_points_ > 0; }
  std::size_t size() const { return size_; }
  std::size_t max_points() const { return max_points_; }
  /// Bytes held: the points (16 each) and the cells' occupancy (a block of 64 cells in 24 bytes and
  /// its hash slots).
  std::size_t memory_bytes() const { return chunks_.size() * kChunk * sizeof(Entry) + blocks_.memory_bytes(); }

  /// The record's points and intensities, in the order they were taken.
  void copy_to(std::vector<Eigen::Vector3f>& points, std::vector<float>& intensity) const {
    points.clear();
    intensity.clear();
    points.reserve(size_);
    intensity.reserve(size_);
    for (const auto& chunk : chunks_) {
      for (const Entry& e : chunk) {
        points.emplace_back(e.x, e.y, e.z);
        intensity.push_back(e.intensity);
      }
    }
  }

private:
  struct Block {
    VoxelKey key;
    std::uint64_t occupied = 0;  ///< bit x | y << 2 | z << 4: that cell holds a recorded point
  };
  struct Entry {
    float x, y, z, intensity;
  };
  static constexpr std::size_t kChunk = std::size_t{1} << 16;  ///< entries per chunk (1 MiB)
  float inv_cell_;
  std::size_t max_points_;
  VoxelTable<Block> blocks_;
  std::vector<std::vector<Entry>> chunks_;
  std::size_t size_ = 0;
};

}  // namespace asuka::lio
