#pragma once
// The k nearest candidates of a k-NN query so far, nearest first, in a buffer on the stack (no
// allocation and no clearing per query): shared by the voxel maps' searches (VoxelMap, OctVoxMap).
// A candidate at the same distance as one already held goes after it, so results do not depend on
// anything but the order the candidates are offered in.

#include <algorithm>
#include <cstddef>
#include <vector>

#include <Eigen/Core>

namespace asuka::lio {

/// `Voxel` has `Eigen::Vector3f point(int) const`; at most `kMax` neighbours are kept.
template <class Voxel, std::size_t kMax>
class KNearest {
public:
  explicit KNearest(std::size_t k) : k_(std::min(k, kMax)) {}

  /// Whether k candidates are held (never for k = 0).
  bool full() const { return k_ > 0 && found_ == k_; }
  /// The squared distance a candidate must beat to enter: the k-th held, or `max_d2` until full.
  float bound(float max_d2) const { return full() ? best_[found_ - 1].d2 : max_d2; }

  /// Offers point `index` of `voxel` at squared distance `d2` (the caller has checked max_d2).
  void offer(float d2, const Voxel* voxel, int index) {
    if (k_ == 0 || (found_ == k_ && d2 >= best_[found_ - 1].d2)) return;
    // Insertion into the sorted prefix; a point equal in distance goes after the earlier ones.
    std::size_t pos = found_;
    while (pos > 0 && best_[pos - 1].d2 > d2) {
      best_[pos] = best_[pos - 1];
      --pos;
    }
    best_[pos] = {d2, voxel, index};
    if (found_ < k_) ++found_;
  }

  /// Writes the neighbours into `out`, nearest first; returns how many.
  std::size_t write(std::vector<Eigen::Vector3f>& out) const {
    out.resize(found_);
    for (std::size_t i = 0; i < found_; ++i) out[i] = best_[i].voxel->point(best_[i].index);
    return found_;
  }

private:
  struct Candidate {
    float d2;
    const Voxel* voxel;
    int index;
  };
  Candidate best_[kMax + 1];  // left uninitialized: only the first found_ are read
  std::size_t k_;
  std::size_t found_ = 0;
};

}  // namespace asuka::lio
