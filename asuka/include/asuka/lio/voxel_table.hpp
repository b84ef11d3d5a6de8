#pragma once
// The hashed voxel storage under the voxel maps (VoxelMap, OctVoxMap): voxels held contiguously in a
// vector and found through an open-addressing table (linear probing, load <= 1/2) whose slots hold
// the keys themselves, so that a lookup reads one slot line and a miss never touches a voxel.
// Removal rebuilds the table (open addressing has no cheap erase); the maps remove in batches (the
// local-map box), so that is amortized.
//
// The maps' k-NN searches issue several lookups at once and prefetch before reading
// (home_slot/prefetch_slot/find_from): a voxel is a cache miss, and overlapped misses cost less.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <Eigen/Core>

namespace asuka::lio {

/// Integer coordinates of a voxel: floor(p / voxel_size) per axis.
struct VoxelKey {
  std::int32_t x, y, z;
  bool operator==(const VoxelKey& o) const { return x == o.x && y == o.y && z == o.z; }
};

struct VoxelKeyHash {
  std::size_t operator()(const VoxelKey& k) const {
    // Spatial hash with large primes (Teschner et al. 2003), then a 64-bit mix so that the table's
    // mask sees well spread bits.
    std::uint64_t h = static_cast<std::uint64_t>(static_cast<std::int64_t>(k.x) * 73856093) ^
                      static_cast<std::uint64_t>(static_cast<std::int64_t>(k.y) * 19349669) ^
                      static_cast<std::uint64_t>(static_cast<std::int64_t>(k.z) * 83492791);
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return static_cast<std::size_t>(h);
  }
};

inline VoxelKey voxel_key(const Eigen::Vector3f& p, float inv_size) {
  return {static_cast<std::int32_t>(std::floor(p.x() * inv_size)), static_cast<std::int32_t>(std::floor(p.y() * inv_size)),
          static_cast<std::int32_t>(std::floor(p.z() * inv_size))};
}

/// `Voxel` is default-constructible and has a member `VoxelKey key`.
template <class Voxel>
class VoxelTable {
public:
  VoxelTable() { rebuild(1024); }

  /// The voxel with `key`, or nullptr.
  const Voxel* find(const VoxelKey& key) const { return find_from(home_slot(key), key); }

  /// The voxel with `key`, added (default-constructed, key set) when absent. References stay valid
  /// until the next find_or_add or remove_if.
  Voxel& find_or_add(const VoxelKey& key) {
    const std::size_t mask = slots_.size() - 1;
    std::size_t s = home_slot(key);
    for (;; s = (s + 1) & mask) {
      if (slots_[s].index < 0) break;
      if (slots_[s].key == key) return voxels_[static_cast<std::size_t>(slots_[s].index)];
    }
    if (2 * (voxels_.size() + 1) > slots_.size()) {  // load <= 1/2
      rebuild(slots_.size() * 2);
      s = home_slot(key);
      while (slots_[s].index >= 0) s = (s + 1) & (slots_.size() - 1);
    }
    voxels_.emplace_back();
    voxels_.back().key = key;
    slots_[s] = Slot{key, static_cast<std::int32_t>(voxels_.size() - 1)};
    return voxels_.back();
  }

  /// Batched lookups: the slot a probe for `key` starts at, its prefetch, and the probe from it.
  std::size_t home_slot(const VoxelKey& key) const { return VoxelKeyHash()(key) & (slots_.size() - 1); }
  void prefetch_slot(std::size_t slot) const { __builtin_prefetch(&slots_[slot]); }
  const Voxel* find_from(std::size_t slot, const VoxelKey& key) const {
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t s = slot;; s = (s + 1) & mask) {
      const Slot& entry = slots_[s];
      if (entry.index < 0) return nullptr;
      if (entry.key == key) return &voxels_[static_cast<std::size_t>(entry.index)];
    }
  }

  /// Removes every voxel for which `remove(voxel)` is true; returns how many.
  template <class Predicate>
  std::size_t remove_if(Predicate remove) {
    const std::size_t before = voxels_.size();
    std::size_t kept = 0;
    for (std::size_t i = 0; i < voxels_.size(); ++i) {
      if (remove(static_cast<const Voxel&>(voxels_[i]))) continue;
      if (kept != i) voxels_[kept] = std::move(voxels_[i]);
      ++kept;
    }
    voxels_.resize(kept);
    if (kept != before) rebuild(2 * kept + 2);
    return before - kept;
  }

  /// The maps' local-map box: removes every voxel of edge `voxel_size` whose centre lies farther
  /// than `half_size` (per axis) from `center`, calling `on_remove(voxel)` for each first.
  template <class OnRemove>
  std::size_t remove_outside(const Eigen::Vector3d& center, double half_size, double voxel_size, OnRemove on_remove) {
    return remove_if([&](const Voxel& voxel) {
      const VoxelKey& k = voxel.key;
      const Eigen::Vector3d voxel_center = (Eigen::Vector3d(k.x, k.y, k.z) + Eigen::Vector3d::Constant(0.5)) * voxel_size;
      if (!((voxel_center - center).cwiseAbs().array() > half_size).any()) return false;
      on_remove(voxel);
      return true;
    });
  }

  const std::vector<Voxel>& voxels() const { return voxels_; }
  /// Voxels by position in voxels() (stable until the next remove_if).
  Voxel& at(std::size_t index) { return voxels_[index]; }
  const Voxel& at(std::size_t index) const { return voxels_[index]; }
  /// The position in voxels() of a voxel this table holds.
  std::size_t index_of(const Voxel& voxel) const { return static_cast<std::size_t>(&voxel - voxels_.data()); }
  std::size_t size() const { return voxels_.size(); }
  /// Bytes held (voxels and slots, by capacity).
  std::size_t memory_bytes() const { return voxels_.capacity() * sizeof(Voxel) + slots_.capacity() * sizeof(Slot); }

private:
  struct Slot {
    VoxelKey key;
    std::int32_t index = -1;  ///< into voxels_, -1 = empty
  };

  void rebuild(std::size_t capacity) {
    std::size_t n = 1024;
    while (n < capacity) n <<= 1;
    slots_.assign(n, Slot{});
    const std::size_t mask = n - 1;
    for (std::size_t i = 0; i < voxels_.size(); ++i) {
      std::size_t s = VoxelKeyHash()(voxels_[i].key) & mask;
      while (slots_[s].index >= 0) s = (s + 1) & mask;
      slots_[s] = Slot{voxels_[i].key, static_cast<std::int32_t>(i)};
    }
  }

  std::vector<Voxel> voxels_;
  std::vector<Slot> slots_;
};

}  // namespace asuka::lio
