#pragma once
// fastlio's cloud preprocessor (R-PLUG-4, R-PRE-1..3, R-PRE-5): distance window, decimation, and for
// Livox the line and tag filters and the duplicate check against the previous kept point. Runs on
// the producer thread; holds only its parameters.

#include <asuka/core/cloud_preprocess.hpp>

#include "fastlio_params.hpp"

namespace asuka::fastlio {

class FastlioCloudPreprocess : public CloudPreprocess {
public:
  explicit FastlioCloudPreprocess(const PreprocessParams& params) : params_(params) {}
  Frame::Ptr preprocess(const Frame& raw) const override;

private:
  PreprocessParams params_;
};

}  // namespace asuka::fastlio
