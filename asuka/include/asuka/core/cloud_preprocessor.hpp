#pragma once
// Turns decoded sensor clouds into frames with millisecond offsets from the frame start (R-PRE-2).
// Each frontend owns one and shares it with the host (R-PLUG-4); the host calls it on the producer
// thread before the frame enters the executor, so an implementation must not touch estimator state.

#include <memory>

#include <asuka/core/types.hpp>

namespace asuka {

class CloudPreprocessor {
public:
  using Ptr = std::shared_ptr<CloudPreprocessor>;
  using ConstPtr = std::shared_ptr<const CloudPreprocessor>;

  virtual ~CloudPreprocessor() = default;

  /// Filters and decimates `raw` (offsets already in ms from raw.stamp) and returns the frame the
  /// estimator receives. An empty input gives an empty output (R-PRE-5). Called on the producer
  /// thread; must be safe to call concurrently with the estimator running on the worker thread.
  virtual LidarFrame::Ptr preprocess(const LidarFrame& raw) const = 0;
};

}  // namespace asuka
