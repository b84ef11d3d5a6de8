#include <asuka_ros/bounded_path.hpp>

#include <algorithm>

namespace asuka_ros {

BoundedPath::BoundedPath(std::size_t max_poses) : max_poses_(std::max<std::size_t>(max_poses, 2)) {}

void BoundedPath::add(const geometry_msgs::PoseStamped& pose) {
  if (tail_) {
    path_.poses.pop_back();
    tail_ = false;
  }
  path_.header.stamp = pose.header.stamp;
  const bool keep = added_ % stride_ == 0;  // the kept poses are added 0, stride, 2 stride, ...
  ++added_;
  path_.poses.push_back(pose);
  if (!keep) {
    tail_ = true;
    return;
  }
  if (path_.poses.size() > max_poses_) {
    // Keep the kept poses at even positions (added 0, 2 stride, 4 stride, ...): every second one.
    std::size_t out = 0;
    for (std::size_t i = 0; i < path_.poses.size(); i += 2) path_.poses[out++] = path_.poses[i];
    const bool newest_dropped = path_.poses.size() % 2 == 0;  // it was at an odd position
    path_.poses.resize(out);
    stride_ *= 2;
    if (newest_dropped) {
      path_.poses.push_back(pose);
      tail_ = true;
    }
  }
}

}  // namespace asuka_ros
