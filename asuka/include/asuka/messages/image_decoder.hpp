#pragma once
// Camera messages (messages.hpp) -> asuka::Image: the one image decoding path of every input (ROS 1
// topics and bags, rosbag2 files, tests). Raw images keep their pixels where the message has them
// (no copy when the caller hands the buffer's owner); compressed images are decoded with
// libjpeg-turbo (JPEG) and libpng (PNG), chosen over OpenCV for install weight (docs/camera.md).
// Never throws: an error names the message, its encoding or format, and what was expected.

#include <memory>
#include <optional>
#include <string>

#include <asuka/core/types.hpp>
#include <asuka/messages/cloud_decoder.hpp>
#include <asuka/messages/messages.hpp>

namespace asuka::msg {

struct DecodedImage {
  asuka::Image::Ptr image;           ///< null when the message was skipped (see `error`)
  std::optional<DecodeIssue> error;  ///< kind: "image_encoding", "image_layout", "image_data"
};

/// sensor_msgs/Image. Encodings: mono8, mono16, rgb8, bgr8, and their OpenCV aliases 8UC1 (mono8),
/// 16UC1 (mono16), 8UC3 (bgr8). Big-endian mono16 is swapped (a copy). `owner` keeps msg.data alive:
/// with it the image views the message's pixels; without it they are copied.
DecodedImage decode_image(const Image& msg, std::shared_ptr<const void> owner = nullptr);

/// sensor_msgs/CompressedImage, JPEG or PNG told apart by their first bytes (the format string is
/// only quoted in errors). JPEG: mono8 for a grayscale JPEG, rgb8 otherwise. PNG: mono8, mono16
/// (16-bit gray), rgb8 (palette expanded, alpha dropped, 16-bit colour reduced to 8).
DecodedImage decode_compressed_image(const CompressedImage& msg);

}  // namespace asuka::msg
