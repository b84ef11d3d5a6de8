#pragma once
// The live node's nav_msgs/Path, bounded (#18). Published whole on every scan (RViz draws it), a
// path of every pose grows with the run: after an hour at 10 Hz, 36 k poses and about 3 MB to
// serialize per scan on the worker thread whenever RViz listens. Here the path keeps every pose
// until it holds `max_poses`, then drops every second one and from then on keeps every second pose,
// and so on: the whole trajectory stays drawn, evenly thinned, the newest pose is always its end,
// and it never holds more than max_poses + 1 poses. (FAST-LIO appends every 10th pose, without a
// bound.)

#include <cstddef>

#include <geometry_msgs/PoseStamped.h>
#include <nav_msgs/Path.h>

namespace asuka_ros {

class BoundedPath {
public:
  /// `max_poses` >= 2 (smaller values are raised to 2).
  explicit BoundedPath(std::size_t max_poses);

  /// Appends one estimated pose (the header's stamp goes to the path's).
  void add(const geometry_msgs::PoseStamped& pose);
  const nav_msgs::Path& path() const { return path_; }
  nav_msgs::Path& path() { return path_; }
  /// Poses added between two kept ones (1 until the first thinning, then 2, 4, ...).
  std::size_t stride() const { return stride_; }

private:
  nav_msgs::Path path_;
  std::size_t max_poses_;
  std::size_t stride_ = 1;
  std::size_t added_ = 0;
  bool tail_ = false;  ///< the last pose in path_ is the newest, not one of the kept
};

}  // namespace asuka_ros
