#include <asuka/lio/kd_tree_map.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

namespace asuka::lio {

namespace kd {

/// One point per node, as in ikd-Tree.
struct KdNode {
  Eigen::Vector3f point;
  // Bounding box of the subtree's points that are not deleted (empty: min > max). Searches prune on
  // it, so a subtree whose points are all deleted is never entered.
  Eigen::Vector3f box_min, box_max;
  std::int32_t left = -1, right = -1;
  std::uint32_t size = 1;           ///< nodes in the subtree, deleted ones included
  std::uint32_t deleted_count = 0;  ///< deleted nodes in the subtree
  std::uint8_t axis = 0;            ///< split axis: left holds coordinates <= point[axis], right >= it
  bool deleted = false;
  bool subtree_deleted = false;  ///< lazy: every point below is deleted, the children do not know yet
  bool dirty = false;            ///< changed by the current operation: the re-balancing walk checks it
};

struct KdTree {
  std::vector<KdNode> nodes;
  std::vector<std::int32_t> free;  ///< reusable slots of nodes
  std::int32_t root = -1;
  std::vector<Eigen::Vector3f> scratch;  ///< points of a subtree being rebuilt
};

}  // namespace kd

struct KdTreeMap::Tree : kd::KdTree {};

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

// Squared distance from q to the box; infinite for an empty box (min = +inf), so an all-deleted
// subtree is pruned by the same test as a far one.
inline float box_distance2(const Eigen::Vector3f& q, const Eigen::Vector3f& min, const Eigen::Vector3f& max) {
  float d2 = 0.0f;
  for (int i = 0; i < 3; ++i) {
    const float below = min[i] - q[i];
    const float above = q[i] - max[i];
    const float d = std::max(std::max(below, above), 0.0f);
    d2 += d * d;
  }
  return d2;
}

// What a region says about a bounding box: none of its points can be in the region, all are, or
// it cannot tell without looking at the points.
enum class Cover { kNone, kAll, kSome };

struct BoxRegion {
  Eigen::Vector3f min, max;
  bool contains(const Eigen::Vector3f& p) const { return (p.array() >= min.array()).all() && (p.array() <= max.array()).all(); }
  Cover cover(const Eigen::Vector3f& bmin, const Eigen::Vector3f& bmax) const {
    if ((bmax.array() < min.array()).any() || (bmin.array() > max.array()).any()) return Cover::kNone;
    if ((bmin.array() >= min.array()).all() && (bmax.array() <= max.array()).all()) return Cover::kAll;
    return Cover::kSome;
  }
};

// Everything outside the cube |p - center| <= half (per axis), in double like the sensor position.
struct OutsideCubeRegion {
  Eigen::Vector3d center;
  double half;
  bool contains(const Eigen::Vector3f& p) const { return ((p.cast<double>() - center).cwiseAbs().array() > half).any(); }
  Cover cover(const Eigen::Vector3f& bmin, const Eigen::Vector3f& bmax) const {
    const Eigen::Vector3d lo = bmin.cast<double>() - center;
    const Eigen::Vector3d hi = bmax.cast<double>() - center;
    if ((lo.array() >= -half).all() && (hi.array() <= half).all()) return Cover::kNone;  // box inside the cube
    if ((hi.array() < -half).any() || (lo.array() > half).any()) return Cover::kAll;     // box misses the cube
    return Cover::kSome;
  }
};

using kd::KdNode;
using kd::KdTree;

KdNode& at(KdTree& t, std::int32_t n) { return t.nodes[static_cast<std::size_t>(n)]; }
const KdNode& at(const KdTree& t, std::int32_t n) { return t.nodes[static_cast<std::size_t>(n)]; }

void set_empty_box(KdNode& node) {
  node.box_min.setConstant(kInf);
  node.box_max.setConstant(-kInf);
}

// ---- Node pool --------------------------------------------------------------------------------------

std::int32_t new_node(KdTree& t, const Eigen::Vector3f& p) {
  KdNode node;
  node.point = p;
  node.box_min = p;
  node.box_max = p;
  if (!t.free.empty()) {
    const std::int32_t n = t.free.back();
    t.free.pop_back();
    at(t, n) = node;
    return n;
  }
  t.nodes.push_back(node);
  return static_cast<std::int32_t>(t.nodes.size() - 1);
}

void free_subtree(KdTree& t, std::int32_t n) {
  // The children links stay valid below a lazily deleted node, so the walk needs no flags.
  std::vector<std::int32_t> stack;
  if (n >= 0) stack.push_back(n);
  while (!stack.empty()) {
    const std::int32_t i = stack.back();
    stack.pop_back();
    const KdNode& node = at(t, i);
    if (node.left >= 0) stack.push_back(node.left);
    if (node.right >= 0) stack.push_back(node.right);
    t.free.push_back(i);
  }
}

// ---- Lazy deletion and bookkeeping -------------------------------------------------------------------

void mark_subtree_deleted(KdNode& node) {
  node.deleted = true;
  node.subtree_deleted = node.left >= 0 || node.right >= 0;
  node.deleted_count = node.size;
  set_empty_box(node);
  node.dirty = true;  // all deleted: the re-balancing walk reclaims it
}

// With the re-balancing walk as it is, a lazily deleted subtree is reclaimed before its operation
// returns (all deleted breaks the deletion criterion), so a later insertion never meets one; this
// keeps insertion right should reclaiming ever be deferred (as ikd-Tree does while a rebuild runs).
void push_down(KdTree& t, std::int32_t n) {
  KdNode& node = at(t, n);
  if (!node.subtree_deleted) return;
  node.subtree_deleted = false;
  if (node.left >= 0) mark_subtree_deleted(at(t, node.left));
  if (node.right >= 0) mark_subtree_deleted(at(t, node.right));
}

void pull_up(KdTree& t, std::int32_t n) {
  KdNode& node = at(t, n);
  node.size = 1;
  node.deleted_count = node.deleted ? 1 : 0;
  if (node.deleted) {
    set_empty_box(node);
  } else {
    node.box_min = node.point;
    node.box_max = node.point;
  }
  for (const std::int32_t c : {node.left, node.right}) {
    if (c < 0) continue;
    const KdNode& child = at(t, c);
    node.size += child.size;
    node.deleted_count += child.deleted_count;
    node.box_min = node.box_min.cwiseMin(child.box_min);
    node.box_max = node.box_max.cwiseMax(child.box_max);
  }
}

// ---- Building and re-balancing ----------------------------------------------------------------------

bool needs_rebuild(const KdTree& t, const KdTreeMapParams& params, std::int32_t n) {
  const KdNode& node = at(t, n);
  // Any size: a subtree that is mostly deleted costs search time for nothing, and reclaiming a small
  // one is cheap (a single deleted leaf is simply freed).
  if (static_cast<double>(node.deleted_count) > params.delete_ratio * node.size) return true;
  if (node.size < KdTreeMap::kMinBalancedSize) return false;
  // One child's size gives the other's: one memory access less per level of the walk.
  const std::uint32_t left = node.left >= 0 ? at(t, node.left).size : 0;
  const std::uint32_t right = node.size - 1 - left;
  return static_cast<double>(std::max(left, right)) > params.balance_alpha * node.size;
}

std::int32_t build(KdTree& t, std::vector<Eigen::Vector3f>& points, std::size_t begin, std::size_t end) {
  if (begin >= end) return -1;
  // Split on the axis of largest extent at the median: halves of equal size whatever the shape of
  // the cloud (scans are long and flat; cycling the axes would cut a road lengthwise too rarely).
  Eigen::Vector3f min = points[begin], max = points[begin];
  for (std::size_t i = begin + 1; i < end; ++i) {
    min = min.cwiseMin(points[i]);
    max = max.cwiseMax(points[i]);
  }
  int axis = 0;
  (max - min).maxCoeff(&axis);
  const std::size_t mid = begin + (end - begin) / 2;
  std::nth_element(points.begin() + static_cast<std::ptrdiff_t>(begin), points.begin() + static_cast<std::ptrdiff_t>(mid),
                   points.begin() + static_cast<std::ptrdiff_t>(end), [axis](const Eigen::Vector3f& a, const Eigen::Vector3f& b) { return a[axis] < b[axis]; });
  const std::int32_t n = new_node(t, points[mid]);  // may reallocate: no references across calls
  at(t, n).axis = static_cast<std::uint8_t>(axis);
  const std::int32_t left = build(t, points, begin, mid);
  at(t, n).left = left;
  const std::int32_t right = build(t, points, mid + 1, end);
  at(t, n).right = right;
  pull_up(t, n);
  return n;
}

void collect(const KdTree& t, std::int32_t n, std::vector<Eigen::Vector3f>& out) {
  std::vector<std::int32_t> stack;
  if (n >= 0) stack.push_back(n);
  while (!stack.empty()) {
    const KdNode& node = at(t, stack.back());
    stack.pop_back();
    if (node.deleted_count == node.size) continue;  // also covers a lazily deleted subtree
    if (!node.deleted) out.push_back(node.point);
    if (node.left >= 0) stack.push_back(node.left);
    if (node.right >= 0) stack.push_back(node.right);
  }
}

std::int32_t rebuild(KdTree& t, std::int32_t n) {
  t.scratch.clear();
  collect(t, n, t.scratch);
  if (n == t.root) {
    // The whole tree: start a fresh pool, so the rebuilt tree is laid out in build order (parents
    // before children, siblings close), which the searches' memory accesses like.
    t.nodes.clear();
    t.free.clear();
    t.nodes.reserve(t.scratch.size());
  } else {
    free_subtree(t, n);  // the rebuilt subtree has at most as many nodes: it fits in the freed slots
  }
  return build(t, t.scratch, 0, t.scratch.size());
}

// Walks the nodes the current operation changed (each one's parent is marked too, so the walk
// starts at the root and follows marks) and rebuilds the highest subtree that breaks a criterion:
// the scapegoat rule. Rebuilding the highest one only is what bounds the cost: a subtree of s nodes
// is rebuilt only after about (alpha - 1/2) s changes below it, so the amortized cost per insert is
// O(log^2 n). The check repeats after a rebuild below, because reclaiming deleted nodes there can
// tip this node's balance. So every node satisfies both criteria (balance from kMinBalancedSize
// nodes up) after every public operation, which bounds the depth. `rebuilt` is set when the
// subtree's counts changed, i.e. the caller must pull them up.
// ikd-Tree rebuilds large subtrees on a second thread while the main thread goes on with a log of
// the operations to replay; we rebuild on the caller's thread: simpler, and the frontend contract
// (one worker thread, no locks) stays as it is, at the cost of an occasional slower insert.
std::int32_t rebalance(KdTree& t, const KdTreeMapParams& params, std::int32_t n, bool& rebuilt) {
  if (n < 0 || !at(t, n).dirty) return n;
  at(t, n).dirty = false;
  if (needs_rebuild(t, params, n)) {
    rebuilt = true;
    return rebuild(t, n);
  }
  bool below = false;
  const std::int32_t left = rebalance(t, params, at(t, n).left, below);
  at(t, n).left = left;
  const std::int32_t right = rebalance(t, params, at(t, n).right, below);
  at(t, n).right = right;
  if (!below) return n;  // the operation already kept counts and boxes up to date
  rebuilt = true;
  pull_up(t, n);
  return needs_rebuild(t, params, n) ? rebuild(t, n) : n;
}

void rebalance(KdTree& t, const KdTreeMapParams& params) {
  bool rebuilt = false;
  t.root = rebalance(t, params, t.root, rebuilt);
}

// ---- Insertion and box search -----------------------------------------------------------------------

void insert_point(KdTree& t, const KdTreeMapParams& params, const Eigen::Vector3f& p) {
  if (t.root < 0) {
    t.root = new_node(t, p);
    return;
  }
  std::int32_t n = t.root;
  for (;;) {
    push_down(t, n);  // the new point must not inherit "all deleted"
    KdNode& node = at(t, n);
    ++node.size;
    node.box_min = node.box_min.cwiseMin(p);
    node.box_max = node.box_max.cwiseMax(p);
    node.dirty = true;
    const bool go_left = p[node.axis] < node.point[node.axis];
    const std::int32_t child = go_left ? node.left : node.right;
    if (child >= 0) {
      n = child;
      continue;
    }
    const auto axis = static_cast<std::uint8_t>((node.axis + 1) % 3);  // a leaf has no extent to choose by
    const std::int32_t leaf = new_node(t, p);                          // may reallocate: `node` is stale below
    at(t, leaf).axis = axis;
    (go_left ? at(t, n).left : at(t, n).right) = leaf;
    break;
  }
  rebalance(t, params);
}

void search_box(const KdTree& t, std::int32_t n, const BoxRegion& box, std::vector<Eigen::Vector3f>& out) {
  const KdNode& node = at(t, n);
  if (box.cover(node.box_min, node.box_max) == Cover::kNone) return;  // also an all-deleted subtree (empty box)
  if (!node.deleted && box.contains(node.point)) out.push_back(node.point);
  // Children whose side of the split the box does not reach are not even loaded.
  const float split = node.point[node.axis];
  if (node.left >= 0 && box.min[node.axis] <= split) search_box(t, node.left, box, out);
  if (node.right >= 0 && box.max[node.axis] >= split) search_box(t, node.right, box, out);
}

// ---- Deletion ---------------------------------------------------------------------------------------

template <typename Region>
std::size_t remove_rec(KdTree& t, std::int32_t n, const Region& region) {
  if (n < 0) return 0;
  KdNode& node = at(t, n);  // nothing below allocates: the reference stays valid
  if (node.deleted_count == node.size) return 0;
  const Cover cover = region.cover(node.box_min, node.box_max);
  if (cover == Cover::kNone) return 0;
  if (cover == Cover::kAll) {
    // The whole subtree at once: a flag here; the re-balancing walk reclaims the nodes below.
    const std::size_t removed = node.size - node.deleted_count;
    mark_subtree_deleted(node);
    return removed;
  }
  push_down(t, n);
  std::size_t removed = 0;
  if (!node.deleted && region.contains(node.point)) {
    node.deleted = true;
    ++removed;
  }
  removed += remove_rec(t, node.left, region);
  removed += remove_rec(t, node.right, region);
  if (removed > 0) {
    pull_up(t, n);
    node.dirty = true;
  }
  return removed;
}

template <typename Region>
std::size_t remove_region(KdTree& t, const KdTreeMapParams& params, const Region& region) {
  const std::size_t removed = remove_rec(t, t.root, region);
  if (removed > 0) rebalance(t, params);
  return removed;
}

// ---- k nearest neighbours ---------------------------------------------------------------------------

// The k best so far, sorted by distance; k is 5 in practice, so insertion into a small array beats a
// heap. Fixed storage up to kInline avoids an allocation per query.
class Best {
public:
  Best(std::size_t k, float max_d2) : k_(k), max_d2_(max_d2) {
    if (k_ + 1 > inline_.size()) heap_.resize(k_ + 1);
    items_ = heap_.empty() ? inline_.data() : heap_.data();
  }
  Best(const Best&) = delete;
  Best& operator=(const Best&) = delete;

  // Whether something at squared distance d2 can still enter (ties cannot: the first found stays).
  bool worth(float d2) const { return count_ < k_ ? d2 <= max_d2_ : d2 < items_[count_ - 1].first; }
  void offer(float d2, std::int32_t n) {
    if (!worth(d2)) return;
    std::size_t i = count_ < k_ ? count_++ : count_ - 1;
    for (; i > 0 && items_[i - 1].first > d2; --i) items_[i] = items_[i - 1];
    items_[i] = {d2, n};
  }
  std::size_t count() const { return count_; }
  std::int32_t node(std::size_t i) const { return items_[i].second; }

private:
  std::size_t k_;
  float max_d2_;
  std::size_t count_ = 0;
  std::array<std::pair<float, std::int32_t>, 17> inline_;
  std::vector<std::pair<float, std::int32_t>> heap_;
  std::pair<float, std::int32_t>* items_;
};

void knn_rec(const KdTree& t, std::int32_t n, const Eigen::Vector3f& query, Best& best) {
  const KdNode& node = at(t, n);
  // The box is in the node's own cache line; the split-plane test below decides whether the far
  // child is loaded at all (memory, not arithmetic, is what a search spends its time on).
  if (!best.worth(box_distance2(query, node.box_min, node.box_max))) return;
  if (!node.deleted) best.offer((node.point - query).squaredNorm(), n);
  // Left holds coordinates <= the split, right >= it: the far side is at least |diff| away.
  const float diff = query[node.axis] - node.point[node.axis];
  const std::int32_t near = diff < 0.0f ? node.left : node.right;
  const std::int32_t far = diff < 0.0f ? node.right : node.left;
  if (near >= 0) knn_rec(t, near, query, best);
  if (far >= 0 && best.worth(diff * diff)) knn_rec(t, far, query, best);
}

// ---- Invariants (check()) ----------------------------------------------------------------------------

struct SubtreeFacts {
  std::uint32_t size = 0, deleted = 0;
  Eigen::Vector3f valid_min = Eigen::Vector3f::Constant(kInf), valid_max = Eigen::Vector3f::Constant(-kInf);
  Eigen::Vector3f all_min = Eigen::Vector3f::Constant(kInf), all_max = Eigen::Vector3f::Constant(-kInf);  // deleted points too
};

std::string check_rec(const KdTree& t, const KdTreeMapParams& params, std::int32_t n, SubtreeFacts& facts) {
  if (n < 0) return {};
  const KdNode& node = at(t, n);
  const auto fail = [n](const std::string& what) { return "node " + std::to_string(n) + ": " + what; };
  if (node.subtree_deleted || node.dirty) return fail("a mark of an operation is left");
  SubtreeFacts left, right;
  std::string error = check_rec(t, params, node.left, left);
  if (error.empty()) error = check_rec(t, params, node.right, right);
  if (!error.empty()) return error;
  const int a = node.axis;
  const float split = node.point[a];
  if (left.size > 0 && left.all_max[a] > split) return fail("a point left of the split lies right of it");
  if (right.size > 0 && right.all_min[a] < split) return fail("a point right of the split lies left of it");
  facts.size = 1 + left.size + right.size;
  facts.deleted = (node.deleted ? 1 : 0) + left.deleted + right.deleted;
  facts.all_min = node.point.cwiseMin(left.all_min).cwiseMin(right.all_min);
  facts.all_max = node.point.cwiseMax(left.all_max).cwiseMax(right.all_max);
  facts.valid_min = left.valid_min.cwiseMin(right.valid_min);
  facts.valid_max = left.valid_max.cwiseMax(right.valid_max);
  if (!node.deleted) {
    facts.valid_min = facts.valid_min.cwiseMin(node.point);
    facts.valid_max = facts.valid_max.cwiseMax(node.point);
  }
  if (node.size != facts.size) return fail("size " + std::to_string(node.size) + ", counted " + std::to_string(facts.size));
  if (node.deleted_count != facts.deleted) return fail("deleted " + std::to_string(node.deleted_count) + ", counted " + std::to_string(facts.deleted));
  if (node.box_min != facts.valid_min || node.box_max != facts.valid_max) return fail("box is not that of its points");
  if (needs_rebuild(t, params, n)) return fail("breaks a rebuild criterion (size " + std::to_string(node.size) + ")");
  return {};
}

}  // namespace

std::string KdTreeMap::check() const {
  SubtreeFacts facts;
  std::string error = check_rec(*tree_, params_, tree_->root, facts);
  if (error.empty() && facts.size + tree_->free.size() != tree_->nodes.size()) error = "nodes leaked from the pool";
  return error;
}

KdTreeMap::KdTreeMap(const KdTreeMapParams& params) : params_(params), tree_(std::make_unique<Tree>()) {
  if (!(params.balance_alpha > 0.5 && params.balance_alpha < 1.0)) throw std::invalid_argument("KdTreeMap: balance_alpha must be in (0.5, 1)");
  if (!(params.delete_ratio > 0.0 && params.delete_ratio < 1.0)) throw std::invalid_argument("KdTreeMap: delete_ratio must be in (0, 1)");
}

KdTreeMap::~KdTreeMap() = default;
KdTreeMap::KdTreeMap(KdTreeMap&&) noexcept = default;
KdTreeMap& KdTreeMap::operator=(KdTreeMap&&) noexcept = default;
KdTreeMap::KdTreeMap(const KdTreeMap& other) : params_(other.params_), tree_(std::make_unique<Tree>(*other.tree_)) {}
KdTreeMap& KdTreeMap::operator=(const KdTreeMap& other) {
  if (this != &other) {
    params_ = other.params_;
    tree_ = std::make_unique<Tree>(*other.tree_);
  }
  return *this;
}

std::size_t KdTreeMap::size() const { return tree_->root < 0 ? 0 : at(*tree_, tree_->root).size - at(*tree_, tree_->root).deleted_count; }

std::size_t KdTreeMap::nodes() const { return tree_->root < 0 ? 0 : at(*tree_, tree_->root).size; }

std::size_t KdTreeMap::insert(const std::vector<Eigen::Vector3f>& points, std::vector<std::uint32_t>* kept) {
  const double voxel = params_.downsample_voxel_size;
  std::size_t stored = 0;
  if (!(voxel > 0.0)) {
    for (std::size_t i = 0; i < points.size(); ++i) {
      if (!points[i].allFinite()) continue;
      insert_point(*tree_, params_, points[i]);
      ++stored;
      if (kept != nullptr) kept->push_back(static_cast<std::uint32_t>(i));
    }
    return stored;
  }
  // The candidates below are visited by voxel; `kept` gets their indices in ascending order.
  const std::size_t kept_before = kept != nullptr ? kept->size() : 0;
  auto sort_kept = [&] {
    if (kept != nullptr) std::sort(kept->begin() + static_cast<std::ptrdiff_t>(kept_before), kept->end());
  };

  // First within the batch: per voxel, the point nearest the voxel centre. Then one tree search per
  // voxel instead of one per point (a scan has several points in most voxels).
  struct Candidate {
    std::array<std::int32_t, 3> key;
    double d2;  // to the voxel centre
    std::size_t index;
  };
  const float inv = static_cast<float>(1.0 / voxel);
  std::vector<Candidate> candidates;
  candidates.reserve(points.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    const Eigen::Vector3f& p = points[i];
    if (!p.allFinite()) continue;
    Candidate c;
    double d2 = 0.0;
    for (int a = 0; a < 3; ++a) {
      c.key[static_cast<std::size_t>(a)] = static_cast<std::int32_t>(std::floor(p[a] * inv));
      const double d = static_cast<double>(p[a]) - (c.key[static_cast<std::size_t>(a)] + 0.5) * voxel;
      d2 += d * d;
    }
    c.d2 = d2;
    c.index = i;
    candidates.push_back(c);
  }
  // Sorted by voxel, so that the tree searches below walk neighbouring paths one after the other
  // (warm caches); ties keep the earlier point, as inserting one by one would.
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    if (a.key != b.key) return a.key < b.key;
    if (a.d2 != b.d2) return a.d2 < b.d2;
    return a.index < b.index;
  });
  std::size_t unique = 0;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (i == 0 || candidates[i].key != candidates[unique - 1].key) candidates[unique++] = candidates[i];
  }
  candidates.resize(unique);

  if (tree_->root < 0) {
    // An empty map (the first scan): build balanced at once instead of growing leaf by leaf.
    tree_->scratch.clear();
    for (const auto& c : candidates) {
      tree_->scratch.push_back(points[c.index]);
      if (kept != nullptr) kept->push_back(static_cast<std::uint32_t>(c.index));
    }
    tree_->nodes.reserve(tree_->scratch.size());
    tree_->root = build(*tree_, tree_->scratch, 0, tree_->scratch.size());
    sort_kept();
    return tree_->scratch.size();
  }

  // Search boxes a little larger than the voxel, then compare keys: a point on a voxel face must be
  // judged by the same floor() as the candidate's key, not by float bounds that may round the
  // other way.
  const float margin = static_cast<float>(1e-3 * voxel);
  std::vector<Eigen::Vector3f> found;
  for (const auto& c : candidates) {
    const Eigen::Vector3f& p = points[c.index];
    const Eigen::Vector3f lo(static_cast<float>(c.key[0] * voxel), static_cast<float>(c.key[1] * voxel), static_cast<float>(c.key[2] * voxel));
    const Eigen::Vector3f hi = lo + Eigen::Vector3f::Constant(static_cast<float>(voxel));
    found.clear();
    if (tree_->root >= 0) search_box(*tree_, tree_->root, BoxRegion{lo - Eigen::Vector3f::Constant(margin), hi + Eigen::Vector3f::Constant(margin)}, found);
    bool keep = true;
    std::size_t in_voxel = 0;
    for (const auto& q : found) {
      double d2 = 0.0;
      bool same = true;
      for (int a = 0; a < 3 && same; ++a) {
        const auto k = static_cast<std::int32_t>(std::floor(q[a] * inv));
        same = k == c.key[static_cast<std::size_t>(a)];
        const double d = static_cast<double>(q[a]) - (k + 0.5) * voxel;
        d2 += d * d;
      }
      if (!same) continue;
      found[in_voxel++] = q;
      if (d2 <= c.d2) keep = false;  // the map's point is at least as central: it stays
    }
    if (!keep) continue;
    // Normally at most one point per voxel is in the map; delete by its own degenerate box, which
    // finds exactly that point.
    for (std::size_t i = 0; i < in_voxel; ++i) remove_region(*tree_, params_, BoxRegion{found[i], found[i]});
    insert_point(*tree_, params_, p);
    ++stored;
    if (kept != nullptr) kept->push_back(static_cast<std::uint32_t>(c.index));
  }
  sort_kept();
  return stored;
}

std::size_t KdTreeMap::knn(const Eigen::Vector3f& query, std::size_t k, double max_distance, std::vector<Eigen::Vector3f>& out) const {
  out.clear();
  if (k == 0 || tree_->root < 0 || !query.allFinite()) return 0;
  Best best(k, static_cast<float>(max_distance * max_distance));
  knn_rec(*tree_, tree_->root, query, best);
  for (std::size_t i = 0; i < best.count(); ++i) out.push_back(at(*tree_, best.node(i)).point);
  return out.size();
}

std::size_t KdTreeMap::remove_box(const Eigen::Vector3f& min, const Eigen::Vector3f& max) { return remove_region(*tree_, params_, BoxRegion{min, max}); }

std::size_t KdTreeMap::remove_outside(const Eigen::Vector3d& center) {
  // The root's box covers every point: when it is inside the cube, this is one test.
  return remove_region(*tree_, params_, OutsideCubeRegion{center, params_.local_map_half_size});
}

std::vector<Eigen::Vector3f> KdTreeMap::points() const {
  std::vector<Eigen::Vector3f> out;
  out.reserve(size());
  collect(*tree_, tree_->root, out);
  return out;
}

int KdTreeMap::depth() const {
  int deepest = 0;
  std::vector<std::pair<std::int32_t, int>> stack;
  if (tree_->root >= 0) stack.emplace_back(tree_->root, 1);
  while (!stack.empty()) {
    const auto [n, d] = stack.back();
    stack.pop_back();
    deepest = std::max(deepest, d);
    const KdNode& node = at(*tree_, n);
    if (node.left >= 0) stack.emplace_back(node.left, d + 1);
    if (node.right >= 0) stack.emplace_back(node.right, d + 1);
  }
  return deepest;
}

}  // namespace asuka::lio
