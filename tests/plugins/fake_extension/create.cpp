// A test-only extension (libasuka_extension_fake_counter.so): counts the events of every odometry slot.

#include <atomic>

#include <asuka/core/callbacks.hpp>
#include <asuka/core/extension_module.hpp>
#include <asuka/core/plugin_abi.hpp>

namespace {

std::atomic<int> g_imu{0};
std::atomic<int> g_frames{0};
std::atomic<int> g_new_frames{0};
std::atomic<bool> g_ok{true};

class FakeCounter : public asuka::ExtensionModule {
public:
  FakeCounter()
  : imu_(asuka::connect(asuka::OdometryCallbacks::on_insert_imu, [](const asuka::ImuData&) { ++g_imu; })),
    frame_(asuka::connect(asuka::OdometryCallbacks::on_insert_frame, [](const asuka::LidarFrame::ConstPtr&) { ++g_frames; })),
    new_frame_(asuka::connect(asuka::OdometryCallbacks::on_new_frame, [](const asuka::EstimationFrame::ConstPtr&) { ++g_new_frames; })) {}

  bool ok() const override { return g_ok; }

private:
  asuka::ScopedConnection imu_;
  asuka::ScopedConnection frame_;
  asuka::ScopedConnection new_frame_;
};

}  // namespace

ASUKA_PLUGIN_EXPORT_ABI_VERSION()

extern "C" asuka::ExtensionModule* create_extension_module() { return new FakeCounter(); }

/// counts[0..2] = imu, frames, new frames; set_ok changes what ok() reports.
extern "C" void asuka_fake_counter_read(int* counts) {
  counts[0] = g_imu;
  counts[1] = g_frames;
  counts[2] = g_new_frames;
}
extern "C" void asuka_fake_counter_set_ok(bool ok) { g_ok = ok; }
