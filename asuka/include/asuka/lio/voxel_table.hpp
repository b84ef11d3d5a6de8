#pragma once
// The hashed voxel storage under the voxel maps (VoxelMap, OctVoxMap, the colour maps): voxels held
// in fixed-size chunks and found through an open-addressing table (linear probing, load <= 1/2)
// whose slots hold the keys themselves, so that a lookup reads one slot line and a miss never touches
// a voxel. Removal rebuilds the table (open addressing has no cheap erase); the maps remove in
// batches (the local-map box), so that is amortized.
//
// Growth never stops the world (#18). A vector of voxels that doubles copies the whole map, and a
// table that doubles rehashes every key at once: on a map of 130 k voxels the insert that did both
// took 80 ms (260 k: 440 ms), a per-scan spike that grows with the map. Here voxels live in chunks of
// kChunk that never move, and a table that grows is migrated a few slots per insert: lookups read the
// new table, then the old one while it is being drained (old entries stay valid: both tables give a
// key the same index). Slot arrays come zeroed from the allocator (an empty slot is all zeros), and
// the next table is allocated once the current one is 3/8 full and its pages faulted in a few per
// insert, so that the scan that starts draining into it does not fault thousands of pages at once
// (+2 to +4 ms in that scan on tables of 66 k to 264 k voxels). Transparent huge pages for the
// arrays were tried: the growth scan got slower (30 ms at 264 k voxels, the kernel compacting memory).
//
// The maps' k-NN searches issue several lookups at once and prefetch before reading
// (home_slot/prefetch_slot/find_from): a voxel is a cache miss, and overlapped misses cost less.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <memory>
#include <new>
#include <utility>
#include <vector>

#include <sys/mman.h>

#include <Eigen/Core>

namespace asuka::lio {

/// Integer coordinates of a voxel: floor(p / voxel_size) per axis.
struct VoxelKey {
  std::int32_t x, y, z;
  bool operator==(const VoxelKey& o) const { return x == o.x && y == o.y && z == o.z; }
};

/// The keys of the 4 x 4 x 4 block of voxels (edge 1 / inv_size) nearest `query`: per axis the
/// query's voxel, one more on the side of its farther face and two on the nearer one. The block holds
/// every point within 1.5 voxels of the query: the point maps' knn_wide (plane_association.hpp).
inline void wide_block_keys(const Eigen::Vector3f& query, float inv_size, VoxelKey (&keys)[64]) {
  std::int32_t first[3];
  for (int i = 0; i < 3; ++i) {
    const float scaled = query[i] * inv_size;
    const float cell = std::floor(scaled);
    first[i] = static_cast<std::int32_t>(cell) + ((scaled - cell) < 0.5f ? -2 : -1);
  }
  int n = 0;
  for (int dz = 0; dz < 4; ++dz) {
    for (int dy = 0; dy < 4; ++dy) {
      for (int dx = 0; dx < 4; ++dx) keys[n++] = VoxelKey{first[0] + dx, first[1] + dy, first[2] + dz};
    }
  }
}

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

/// `Voxel` is default-constructible, copy- or move-assignable, and has a member `VoxelKey key`.
template <class Voxel>
class VoxelTable {
public:
  static constexpr std::size_t kChunkBits = 10;
  static constexpr std::size_t kChunk = std::size_t{1} << kChunkBits;  ///< voxels per chunk
  /// Old slots migrated per insert while a grown table is drained: the drain ends before the new
  /// table is half full (it starts a quarter full; the old table has twice the voxels' slots).
  static constexpr std::size_t kMigratePerInsert = 8;
  /// Once the load passes 3/8, one page of the next table is faulted every kInsertsPerTouch inserts:
  /// the next table of 2n slots has n / 128 pages, all faulted after n / 16 inserts, before the
  /// growth n / 8 inserts later, and a scan adding 1000 voxels faults about 125 pages (a few tenths
  /// of a millisecond) instead of all of them.
  static constexpr std::size_t kInsertsPerTouch = 8;
  /// remove_if erases in place when at most 1 / kEraseInPlace of the voxels go.
  static constexpr std::size_t kEraseInPlace = 8;

  VoxelTable() { slots_.reset(kMinSlots); }
  /// A moved-from table holds nothing usable: assign to it before using it again.
  VoxelTable(VoxelTable&&) noexcept = default;
  VoxelTable& operator=(VoxelTable&&) noexcept = default;
  VoxelTable(const VoxelTable& other) { *this = other; }
  VoxelTable& operator=(const VoxelTable& other) {
    if (this == &other) return *this;
    chunks_.clear();
    for (const auto& chunk : other.chunks_) {
      chunks_.push_back(std::make_unique<Voxel[]>(kChunk));
      std::copy(chunk.get(), chunk.get() + kChunk, chunks_.back().get());
    }
    size_ = other.size_;
    constructed_ = other.constructed_;
    lo_ = other.lo_;
    hi_ = other.hi_;
    bounded_ = other.bounded_;
    slots_.copy_from(other.slots_);
    old_.copy_from(other.old_);
    next_.reset(0);  // prepared again by the next inserts
    migrated_ = other.migrated_;
    return *this;
  }

  /// The voxel with `key`, or nullptr.
  const Voxel* find(const VoxelKey& key) const { return find_from(home_slot(key), key); }

  /// The voxel with `key`, added (default-constructed, key set) when absent; its position in
  /// voxels() in `index` when given. References stay valid until the next remove_if.
  Voxel& find_or_add(const VoxelKey& key, std::size_t* index = nullptr) {
    const std::size_t hash = VoxelKeyHash()(key);
    std::size_t s = hash & slots_.mask();
    for (;; s = (s + 1) & slots_.mask()) {
      const Slot& slot = slots_[s];
      if (slot.empty()) break;
      if (slot.key == key) return found(slot.index(), index);
    }
    if (old_.size() > 0) {
      if (const Slot* slot = old_.find(hash, key)) return found(slot->index(), index);
    }
    if (2 * (size_ + 1) > slots_.size()) {  // load <= 1/2
      grow();
      s = hash & slots_.mask();
      while (!slots_[s].empty()) s = (s + 1) & slots_.mask();
    }
    if (size_ == chunks_.size() * kChunk) chunks_.push_back(std::make_unique<Voxel[]>(kChunk));
    const std::size_t i = size_++;
    Voxel& voxel = at(i);
    if (i < constructed_) voxel = Voxel();  // a slot left by remove_if holds a moved-from voxel
    constructed_ = std::max(constructed_, size_);
    voxel.key = key;
    include_in_bounds(key);
    slots_[s] = Slot::make(key, i);
    if (old_.size() > 0) migrate(kMigratePerInsert);
    if (8 * size_ > 3 * slots_.size()) prepare_next();
    if (index) *index = i;
    return voxel;
  }

  /// Batched lookups: the slot a probe for `key` starts at, its prefetch, and the probe from it.
  std::size_t home_slot(const VoxelKey& key) const { return VoxelKeyHash()(key) & slots_.mask(); }
  void prefetch_slot(std::size_t slot) const { __builtin_prefetch(&slots_[slot]); }
  const Voxel* find_from(std::size_t slot, const VoxelKey& key) const {
    for (std::size_t s = slot;; s = (s + 1) & slots_.mask()) {
      const Slot& entry = slots_[s];
      if (entry.empty()) break;
      if (entry.key == key) return &at(entry.index());
    }
    if (old_.size() == 0) return nullptr;
    const Slot* entry = old_.find(VoxelKeyHash()(key), key);
    return entry ? &at(entry->index()) : nullptr;
  }

  /// Removes every voxel for which `remove(voxel)` is true; returns how many. A few removed voxels
  /// (at most kEraseInPlace of the map) are erased from the table one by one and the last voxels
  /// moved into their places; more, and the voxels are compacted in order and the table rebuilt.
  /// (The maps remove far voxels every 10th scan: a Livox seeing through a street opening beyond the
  /// local box removed a few dozen voxels on a third of those scans, and rebuilding the table of
  /// 100 k voxels each time cost 2-6 ms.)
  template <class Predicate>
  std::size_t remove_if(Predicate remove) {
    std::vector<std::size_t> removed;
    for (std::size_t i = 0; i < size_; ++i) {
      if (remove(static_cast<const Voxel&>(at(i)))) removed.push_back(i);
    }
    if (removed.empty()) return 0;
    if (removed.size() * kEraseInPlace <= size_) {
      erase_in_place(removed);
    } else {
      compact_and_rebuild(removed);
    }
    return removed.size();
  }

  /// The maps' local-map box: removes every voxel of edge `voxel_size` whose centre lies farther
  /// than `half_size` (per axis) from `center`, calling `on_remove(voxel)` for each first.
  template <class OnRemove>
  std::size_t remove_outside(const Eigen::Vector3d& center, double half_size, double voxel_size, OnRemove on_remove) {
    // Nothing to do while every voxel's centre is inside the box: decided from the keys' bounds,
    // without visiting the voxels (the maps ask every 10th scan; a pass over a map of 100 k voxels
    // cost 3-6 ms every 10th scan of an hour-long run that never removed anything).
    if (size_ == 0) return 0;
    const Eigen::Vector3d lo = (Eigen::Vector3d(lo_.x, lo_.y, lo_.z) + Eigen::Vector3d::Constant(0.5)) * voxel_size;
    const Eigen::Vector3d hi = (Eigen::Vector3d(hi_.x, hi_.y, hi_.z) + Eigen::Vector3d::Constant(0.5)) * voxel_size;
    if (!((lo - center).cwiseAbs().array() > half_size).any() && !((hi - center).cwiseAbs().array() > half_size).any()) return 0;
    return remove_if([&](const Voxel& voxel) {
      const VoxelKey& k = voxel.key;
      const Eigen::Vector3d voxel_center = (Eigen::Vector3d(k.x, k.y, k.z) + Eigen::Vector3d::Constant(0.5)) * voxel_size;
      if (!((voxel_center - center).cwiseAbs().array() > half_size).any()) return false;
      on_remove(voxel);
      return true;
    });
  }

  /// Every voxel, by position (a range for range-for; positions are stable until the next remove_if,
  /// and a removal in place moves the last voxels into the holes, so the order is not insertion order).
  class Range {
  public:
    class Iterator {
    public:
      using iterator_category = std::forward_iterator_tag;
      using value_type = Voxel;
      using difference_type = std::ptrdiff_t;
      using pointer = const Voxel*;
      using reference = const Voxel&;
      Iterator(const VoxelTable* table, std::size_t i) : table_(table), i_(i) {}
      const Voxel& operator*() const { return table_->at(i_); }
      const Voxel* operator->() const { return &table_->at(i_); }
      Iterator& operator++() {
        ++i_;
        return *this;
      }
      bool operator==(const Iterator& o) const { return i_ == o.i_; }
      bool operator!=(const Iterator& o) const { return i_ != o.i_; }

    private:
      const VoxelTable* table_;
      std::size_t i_;
    };
    explicit Range(const VoxelTable* table) : table_(table) {}
    Iterator begin() const { return Iterator(table_, 0); }
    Iterator end() const { return Iterator(table_, table_->size()); }
    std::size_t size() const { return table_->size(); }

  private:
    const VoxelTable* table_;
  };
  Range voxels() const { return Range(this); }
  Voxel& at(std::size_t index) { return chunks_[index >> kChunkBits][index & (kChunk - 1)]; }
  const Voxel& at(std::size_t index) const { return chunks_[index >> kChunkBits][index & (kChunk - 1)]; }
  std::size_t size() const { return size_; }
  /// Bytes held (voxel chunks and slot arrays, by capacity).
  std::size_t memory_bytes() const { return chunks_.size() * kChunk * sizeof(Voxel) + (slots_.size() + old_.size() + next_.size()) * sizeof(Slot); }
  /// True while a grown table is still being drained (tests).
  bool migrating() const { return old_.size() > 0; }

private:
  static constexpr std::size_t kMinSlots = 1024;

  /// A slot: the key and index + 1 (all zeros = empty, so a zeroed allocation is an empty table).
  struct Slot {
    VoxelKey key;
    std::uint32_t index_plus_one;
    bool empty() const { return index_plus_one == 0; }
    std::size_t index() const { return index_plus_one - 1; }
    static Slot make(const VoxelKey& key, std::size_t index) { return Slot{key, static_cast<std::uint32_t>(index + 1)}; }
  };

  /// A power-of-two slot array of zeroed memory. Arrays of kMapped bytes and more are mapped from the
  /// kernel directly: fresh zero pages, faulted when first written. (calloc may serve them from the
  /// heap once glibc's dynamic mmap threshold has risen, and then zeroes and faults them all at once:
  /// 4 MB cost a scan 5 ms on a 1-hour run.)
  class Slots {
  public:
    Slots() = default;
    Slots(Slots&& o) noexcept { swap(o); }
    Slots& operator=(Slots&& o) noexcept {
      if (this != &o) {
        reset(0);
        swap(o);
      }
      return *this;
    }
    Slots(const Slots&) = delete;
    Slots& operator=(const Slots&) = delete;
    ~Slots() { reset(0); }

    void reset(std::size_t n) {
      release();
      if (n == 0) return;
      const std::size_t bytes = n * sizeof(Slot);
      if (bytes >= kMapped) {
        void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) throw std::bad_alloc();
        data_ = static_cast<Slot*>(p);
        mapped_ = true;
      } else {
        data_ = static_cast<Slot*>(std::calloc(n, sizeof(Slot)));
        if (data_ == nullptr) throw std::bad_alloc();
      }
      size_ = n;
    }
    void copy_from(const Slots& o) {
      reset(o.size_);
      if (size_ > 0) std::memcpy(static_cast<void*>(data_), o.data_, size_ * sizeof(Slot));
    }
    std::size_t size() const { return size_; }
    std::size_t mask() const { return size_ - 1; }
    void clear() {
      if (size_ > 0) std::memset(static_cast<void*>(data_), 0, size_ * sizeof(Slot));
    }
    Slot& operator[](std::size_t i) { return data_[i]; }
    const Slot& operator[](std::size_t i) const { return data_[i]; }
    const Slot* find(std::size_t hash, const VoxelKey& key) const {
      for (std::size_t s = hash & mask();; s = (s + 1) & mask()) {
        const Slot& entry = data_[s];
        if (entry.empty()) return nullptr;
        if (entry.key == key) return &entry;
      }
    }
    /// Writes a zero into page `page` of the array (4 KB pages), so that the kernel maps it now.
    void touch_page(std::size_t page) {
      volatile char* bytes = reinterpret_cast<volatile char*>(data_);
      bytes[page * kPage] = 0;
    }
    std::size_t pages() const { return (size_ * sizeof(Slot) + kPage - 1) / kPage; }
    void swap(Slots& o) noexcept {
      std::swap(data_, o.data_);
      std::swap(size_, o.size_);
      std::swap(mapped_, o.mapped_);
    }

  private:
    static constexpr std::size_t kPage = 4096;
    static constexpr std::size_t kMapped = std::size_t{1} << 20;
    void release() {
      if (data_ != nullptr) {
        if (mapped_) {
          ::munmap(data_, size_ * sizeof(Slot));
        } else {
          std::free(data_);
        }
      }
      data_ = nullptr;
      size_ = 0;
      mapped_ = false;
    }
    Slot* data_ = nullptr;
    std::size_t size_ = 0;
    bool mapped_ = false;
  };

  /// Removes the voxels at `removed` (ascending): each key is erased from the table by backward shift
  /// (linear probing needs no tombstones), and the last voxel moves into the hole. From the highest
  /// position down, so that the voxel moved is never one still to be removed.
  void erase_in_place(const std::vector<std::size_t>& removed) {
    if (old_.size() > 0) migrate(old_.size());  // one table to erase from
    for (auto it = removed.rbegin(); it != removed.rend(); ++it) {
      const std::size_t r = *it;
      erase_slot(at(r).key);
      const std::size_t last = size_ - 1;
      if (r != last) {
        at(r) = std::move(at(last));
        if (Slot* moved = slot_of(at(r).key)) moved->index_plus_one = static_cast<std::uint32_t>(r + 1);
      }
      --size_;
    }
    release_chunks();
    recompute_bounds();
  }

  void compact_and_rebuild(const std::vector<std::size_t>& removed) {
    std::size_t kept = 0, next_removed = 0;
    for (std::size_t i = 0; i < size_; ++i) {
      if (next_removed < removed.size() && removed[next_removed] == i) {
        ++next_removed;
        continue;
      }
      if (kept != i) at(kept) = std::move(at(i));
      ++kept;
    }
    size_ = kept;
    release_chunks();
    recompute_bounds();
    rebuild(2 * kept + 2);
  }

  /// Chunks beyond the next one are returned (the next one stays for the inserts to come).
  void release_chunks() {
    const std::size_t keep_chunks = size_ / kChunk + 2;
    if (chunks_.size() > keep_chunks) {
      chunks_.resize(keep_chunks);
      constructed_ = std::min(constructed_, keep_chunks * kChunk);
    }
  }

  void recompute_bounds() {
    bounded_ = false;
    for (std::size_t i = 0; i < size_; ++i) include_in_bounds(at(i).key);
  }

  Slot* slot_of(const VoxelKey& key) {
    for (std::size_t s = VoxelKeyHash()(key) & slots_.mask();; s = (s + 1) & slots_.mask()) {
      if (slots_[s].empty()) return nullptr;
      if (slots_[s].key == key) return &slots_[s];
    }
  }

  /// Erases `key` from the current table: the entries after it in its probe run that may sit in its
  /// slot move back, so that every remaining key stays reachable from its home slot.
  void erase_slot(const VoxelKey& key) {
    const std::size_t mask = slots_.mask();
    const Slot* slot = slot_of(key);
    if (slot == nullptr) return;  // not in the table (cannot happen: every voxel's key is)
    std::size_t hole = static_cast<std::size_t>(slot - &slots_[0]);
    for (std::size_t j = (hole + 1) & mask;; j = (j + 1) & mask) {
      if (slots_[j].empty()) break;
      const std::size_t home = VoxelKeyHash()(slots_[j].key) & mask;
      // The entry at j may fill the hole when its home is not cyclically in (hole, j].
      const bool home_after_hole = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
      if (!home_after_hole) {
        slots_[hole] = slots_[j];
        hole = j;
      }
    }
    slots_[hole] = Slot{};
  }

  void include_in_bounds(const VoxelKey& k) {
    if (!bounded_) {
      lo_ = hi_ = k;
      bounded_ = true;
      return;
    }
    lo_ = VoxelKey{std::min(lo_.x, k.x), std::min(lo_.y, k.y), std::min(lo_.z, k.z)};
    hi_ = VoxelKey{std::max(hi_.x, k.x), std::max(hi_.y, k.y), std::max(hi_.z, k.z)};
  }

  Voxel& found(std::size_t i, std::size_t* index) {
    if (index) *index = i;
    return at(i);
  }

  /// Past 3/8 load: the table the next growth will drain into, allocated once and its pages faulted
  /// one every kInsertsPerTouch inserts (all of them before the load reaches 1/2).
  void prepare_next() {
    if (next_.size() != 2 * slots_.size()) {
      next_.reset(2 * slots_.size());
      next_touched_ = 0;
      next_inserts_ = 0;
    }
    if (next_inserts_++ % kInsertsPerTouch == 0 && next_touched_ < next_.pages()) next_.touch_page(next_touched_++);
  }

  /// Doubles the table: the current one becomes the old one, drained by later inserts.
  void grow() {
    if (old_.size() > 0) migrate(old_.size());  // not reached (kMigratePerInsert), but never lose a key
    if (next_.size() != 2 * slots_.size()) next_.reset(2 * slots_.size());
    old_.swap(slots_);
    slots_.swap(next_);
    next_.reset(0);
    migrated_ = 0;
  }

  /// Copies up to `n` old slots into the new table; frees the old one when done. A key may be in
  /// both while draining (same index); inserts go to the new table only, after a miss in both.
  void migrate(std::size_t n) {
    const std::size_t end = std::min(old_.size(), migrated_ + n);
    for (; migrated_ < end; ++migrated_) {
      const Slot& entry = old_[migrated_];
      if (entry.empty()) continue;
      std::size_t s = VoxelKeyHash()(entry.key) & slots_.mask();
      for (;; s = (s + 1) & slots_.mask()) {
        if (slots_[s].empty()) {
          slots_[s] = entry;
          break;
        }
        if (slots_[s].key == entry.key) break;  // cannot happen: a key is added only after a miss in both
      }
    }
    if (migrated_ == old_.size()) old_.reset(0);
  }

  void rebuild(std::size_t capacity) {
    std::size_t n = kMinSlots;
    while (n < capacity) n <<= 1;
    old_.reset(0);
    if (slots_.size() == n) {
      slots_.clear();  // pages already mapped: cleared, not faulted again
    } else {
      slots_.reset(n);
    }
    if (next_.size() != 2 * n) next_.reset(0);
    for (std::size_t i = 0; i < size_; ++i) {
      std::size_t s = VoxelKeyHash()(at(i).key) & slots_.mask();
      while (!slots_[s].empty()) s = (s + 1) & slots_.mask();
      slots_[s] = Slot::make(at(i).key, i);
    }
  }


  std::vector<std::unique_ptr<Voxel[]>> chunks_;
  std::size_t size_ = 0;
  std::size_t constructed_ = 0;  ///< voxels at positions below this have been handed out before
  Slots slots_, old_, next_;
  VoxelKey lo_{0, 0, 0}, hi_{0, 0, 0};  ///< the keys' bounds (per axis), valid while bounded_
  bool bounded_ = false;
  std::size_t migrated_ = 0;      ///< old slots copied so far
  std::size_t next_touched_ = 0;  ///< pages of next_ faulted so far
  std::size_t next_inserts_ = 0;  ///< inserts since next_ was allocated
};

}  // namespace asuka::lio
