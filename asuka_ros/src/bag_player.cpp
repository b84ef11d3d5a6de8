#include <asuka_ros/bag_player.hpp>

#include <asuka/messages/topic_check.hpp>
#include <asuka_ros/message_decoding.hpp>

#include <asuka/bag/bag_reader.hpp>

#include <atomic>

#include <chrono>
#include <map>

#include <fmt/format.h>
#include <rosbag/bag.h>
#include <rosbag/view.h>
#include <ros/message_traits.h>

namespace asuka_ros {

struct BagPlayer::Impl {
  std::unique_ptr<asuka::bag::Rosbag2Player> ros2;
  std::atomic<bool> stop{false};
  static_assert(std::atomic<bool>::is_always_lock_free, "request_stop() is called from a signal handler");
  bool stopped = false;
  double stopped_at = 0.0;
  std::vector<std::unique_ptr<rosbag::Bag>> bags;
  std::vector<std::string> names;
  std::string imu_topic;
  std::string points_topic;
  std::string image_topic;  ///< "" = none
};

void BagPlayer::request_stop() {
  impl_->stop.store(true, std::memory_order_relaxed);
  if (impl_->ros2) impl_->ros2->request_stop();
}
bool BagPlayer::stopped() const { return impl_->ros2 ? impl_->ros2->stopped() : impl_->stopped; }
double BagPlayer::stopped_at() const { return impl_->ros2 ? impl_->ros2->stopped_at() : impl_->stopped_at; }
std::string BagPlayer::damage() const { return impl_->ros2 ? impl_->ros2->damage() : std::string(); }
bool BagPlayer::ros2() const { return impl_->ros2 != nullptr; }

BagPlayer::BagPlayer(const std::vector<std::string>& bags, const AsukaROSParams& params) : impl_(std::make_unique<Impl>()) {
  if (bags.empty()) throw BagPlayerError("no bag given (use --bag FILE)");
  impl_->imu_topic = params.imu_topic;
  impl_->points_topic = params.points_topic;

  // ROS 1 or ROS 2, by content (never by name); one kind at a time.
  std::size_t ros2_inputs = 0;
  for (const auto& name : bags) {
    const auto format = asuka::bag::detect_format(name);
    if (format == asuka::bag::BagFormat::MCAP || format == asuka::bag::BagFormat::SQLITE3 || format == asuka::bag::BagFormat::ROSBAG2_FOLDER) ++ros2_inputs;
  }
  if (ros2_inputs > 0) {
    if (ros2_inputs != bags.size()) throw BagPlayerError("--bag mixes ROS 1 bags and ROS 2 bags; play one kind at a time");
    try {
      impl_->ros2 = std::make_unique<asuka::bag::Rosbag2Player>(bags, params);
    } catch (const std::runtime_error& e) {  // BagError, PlayerError
      throw BagPlayerError(e.what());
    }
    for (const auto& t : impl_->ros2->topics()) topics_.push_back(BagTopicInfo{t.name, t.type, t.messages});
    begin_ = 0.0;
    end_ = impl_->ros2->duration();
    return;
  }

  std::map<std::string, BagTopicInfo> topics;
  bool first = true;
  for (const auto& name : bags) {
    auto bag = std::make_unique<rosbag::Bag>();
    try {
      bag->open(name, rosbag::bagmode::Read);
    } catch (const rosbag::BagException& e) {
      const auto format = asuka::bag::detect_format(name);
      if (format == asuka::bag::BagFormat::MISSING) throw BagPlayerError(fmt::format("cannot read bag '{}': it does not exist", name));
      throw BagPlayerError(fmt::format("cannot read bag '{}': {} (not a ROS 1 bag, a rosbag2 folder, an MCAP or a SQLite3 file by its content, or "
                                       "corrupt; 'rosbag info {}' tells more)",
                                       name, e.what(), name));
    }
    try {
      rosbag::View all(*bag);
      for (const auto* connection : all.getConnections()) {
        auto& info = topics[connection->topic];
        info.topic = connection->topic;
        if (!info.datatype.empty() && info.datatype != connection->datatype) {
          throw BagPlayerError(fmt::format("topic '{}' has two message types in the input: {} and {}", connection->topic, info.datatype, connection->datatype));
        }
        info.datatype = connection->datatype;
      }
      for (const auto* connection : all.getConnections()) {
        rosbag::View one(*bag, rosbag::TopicQuery(connection->topic));
        topics[connection->topic].messages += one.size();
      }
      if (all.size() > 0) {
        const double b = all.getBeginTime().toSec();
        const double e = all.getEndTime().toSec();
        begin_ = first ? b : std::min(begin_, b);
        end_ = first ? e : std::max(end_, e);
        first = false;
      }
    } catch (const rosbag::BagException& e) {
      throw BagPlayerError(fmt::format("bag '{}' is corrupt: {}", name, e.what()));
    }
    impl_->bags.push_back(std::move(bag));
    impl_->names.push_back(name);
  }
  for (auto& [topic, info] : topics) topics_.push_back(info);

  impl_->image_topic = params.image_topic;
  std::vector<asuka::msg::TopicSeen> seen;
  for (const auto& t : topics_) seen.push_back({t.topic, t.datatype, t.messages});
  const auto wanted = wanted_topics(params.imu_topic, params.points_topic, params.image_topic);
  if (const std::string problems = asuka::msg::check_topics(seen, wanted); !problems.empty()) throw BagPlayerError(problems);
}

BagPlayer::~BagPlayer() = default;

void BagPlayer::play(AsukaROS& host, const std::function<void(const BagPlayerProgress&)>& progress) {
  if (impl_->ros2) {
    try {
      impl_->ros2->play(host, progress);
    } catch (const asuka::bag::PlayerError& e) {
      throw BagPlayerError(e.what());
    }
    return;
  }
  const auto wall_start = std::chrono::steady_clock::now();
  auto last_report = wall_start;
  BagPlayerProgress state;

  // One view over all bags: rosbag merges them in bag time order.
  rosbag::View view;
  std::vector<std::string> topics{impl_->imu_topic, impl_->points_topic};
  if (!impl_->image_topic.empty()) topics.push_back(impl_->image_topic);
  for (const auto& bag : impl_->bags) view.addQuery(*bag, rosbag::TopicQuery(topics));

  std::uint64_t imu_read = 0;
  try {
    for (const rosbag::MessageInstance& m : view) {
      if (!host.input_error().empty()) break;  // the input is unusable (input_checks.hpp): stop reading
      if (impl_->stop.load(std::memory_order_relaxed)) {
        impl_->stopped = true;
        impl_->stopped_at = m.getTime().toSec() - begin_;
        break;
      }
      if (m.getTopic() == impl_->imu_topic) {
        if (auto imu = m.instantiate<sensor_msgs::Imu>()) {
          host.insert_imu(*imu);
          ++imu_read;
        }
      } else if (m.getTopic() == impl_->image_topic) {
        if (auto image = m.instantiate<sensor_msgs::Image>()) {
          host.insert_image(sensor_msgs::Image::ConstPtr(image));
        } else if (auto compressed = m.instantiate<sensor_msgs::CompressedImage>()) {
          host.insert_image(*compressed);
        }
      } else {
        ++state.frames;
        if (auto cloud = m.instantiate<sensor_msgs::PointCloud2>()) {
          host.insert_frame(*cloud);
        } else if (auto livox = m.instantiate<LivoxCustomMsg>()) {
          host.insert_frame(*livox);
        } else if (auto livox2 = m.instantiate<Livox2CustomMsg>()) {
          host.insert_frame(*livox2);
        }
      }
      if (progress) {
        const auto now = std::chrono::steady_clock::now();
        if (now - last_report > std::chrono::milliseconds(200)) {
          last_report = now;
          state.bag_seconds = m.getTime().toSec() - begin_;
          state.fraction = duration() > 0.0 ? state.bag_seconds / duration() : 1.0;
          state.wall_seconds = std::chrono::duration<double>(now - wall_start).count();
          progress(state);
        }
      }
    }
  } catch (const rosbag::BagException& e) {
    throw BagPlayerError(fmt::format("reading the input failed after {} lidar and {} IMU messages: {} (the bag is corrupt or truncated)", state.frames,
                                     imu_read, e.what()));
  } catch (const ros::Exception& e) {
    throw BagPlayerError(fmt::format("decoding a message failed after {} lidar and {} IMU messages: {} (the bag is corrupt or truncated)", state.frames,
                                     imu_read, e.what()));
  }
  host.flush();
  if (!host.input_error().empty() || impl_->stopped) return;  // the caller reports it

  const auto stats = host.stats();
  if (stats.imu_inserted == 0) {
    throw BagPlayerError(fmt::format("no usable IMU data on '{}' ({} messages read): nothing can be estimated", impl_->imu_topic, stats.imu_messages));
  }
  if (stats.frames_inserted == 0) {
    throw BagPlayerError(fmt::format("no usable lidar data on '{}' ({} messages read, see the warnings above)", impl_->points_topic, stats.frame_messages));
  }
  if (progress) {
    state.bag_seconds = duration();
    state.fraction = 1.0;
    state.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    progress(state);
  }
}

}  // namespace asuka_ros
