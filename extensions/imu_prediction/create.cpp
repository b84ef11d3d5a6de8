// imu_prediction extension (R-CB-2): subscribes to on_new_frame (anchor) and on_insert_imu (IMU
// stream) and emits OdometryCallbacks::on_imu_prediction at IMU rate. Both input slots fire on the
// executor's worker thread, so the predictor needs no lock of its own.

#include <memory>

#include <asuka/config/config.hpp>
#include <asuka/core/callbacks.hpp>
#include <asuka/core/extension_module.hpp>
#include <asuka/core/plugin_abi.hpp>
#include <asuka/util/logging.hpp>

#include "imu_predictor.hpp"

namespace {

using asuka::imu_prediction::ImuPredictor;
using asuka::imu_prediction::ImuPredictorParams;

ImuPredictorParams params_from_config() {
  const auto& config = asuka::GlobalConfig::instance().module("config_imu_prediction");
  ImuPredictorParams params;
  params.max_buffer_seconds = config.get_in_range("max_buffer_seconds", params.max_buffer_seconds, 0.01, 60.0);
  params.max_gap_seconds = config.get_in_range("max_gap_seconds", params.max_gap_seconds, 1e-4, 10.0);
  return params;
}

class ImuPredictionExtension : public asuka::ExtensionModule {
public:
  ImuPredictionExtension() : predictor_(std::make_shared<ImuPredictor>(params_from_config())) {
    auto predictor = predictor_;
    imu_ = asuka::connect(asuka::OdometryCallbacks::on_insert_imu, [predictor](const asuka::ImuData& imu) {
      if (auto state = predictor->add_imu(imu)) asuka::OdometryCallbacks::on_imu_prediction(*state);
    });
    frame_ = asuka::connect(asuka::OdometryCallbacks::on_new_frame, [predictor](const asuka::EstimationFrame::ConstPtr& frame) {
      if (auto state = predictor->set_anchor(*frame)) asuka::OdometryCallbacks::on_imu_prediction(*state);
    });
    asuka::module_logger("imu_prediction")->info("predicting the body pose at IMU rate between estimates");
  }

private:
  std::shared_ptr<ImuPredictor> predictor_;
  asuka::ScopedConnection imu_;
  asuka::ScopedConnection frame_;
};

}  // namespace

ASUKA_PLUGIN_EXPORT_ABI_VERSION()

extern "C" asuka::ExtensionModule* create_extension_module() { return new ImuPredictionExtension(); }
