// src/cli/grep_gpu.cu: `sluice grep`'s GPU scanner: each chunk of a file goes through the streaming drivers
// of string_match.cuh (two streams, pinned buffers, copies overlapped with matching), which return the
// bitmap of match starts that grep's line walker reads (grep.hpp).
#include "grep_gpu.hpp"

#include <sluice/core/context.hpp>
#include <sluice/detail/string_match/stream.cuh>
#include <sluice/string_match.cuh>

#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace sluice::cli {
namespace {

class gpu_grep_scanner final : public grep_scanner {
 public:
  gpu_grep_scanner(const grep_patterns& patterns, std::size_t chunk_bytes) : ctx_(0), chunk_bytes_(chunk_bytes) {
    const std::vector<std::string_view> views = patterns.views();
    if (views.size() == 1) single_.assign(views[0].begin(), views[0].end());
    else set_.emplace(ctx_, views);
  }

  [[nodiscard]] const char* name() const override { return "gpu"; }

  void scan(const grep_reader& read, const grep_chunk_sink& on_chunk) override {
    const stream_options stream{.chunk_bytes = chunk_bytes_};
    if (set_) multi_string_match_stream(ctx_, read, *set_, on_chunk, stream);
    else string_match_stream(ctx_, read, std::span<const unsigned char>(single_), on_chunk, {}, stream);
  }

 private:
  context ctx_;
  std::size_t chunk_bytes_;
  std::vector<unsigned char> single_;
  std::optional<pattern_set> set_;
};

/// The chunks through the same streaming driver, halo included, with no alphabet check and no kernel:
/// what the file's bytes cost to reach the GPU at all.
class gpu_transfer_scanner final : public grep_scanner {
 public:
  gpu_transfer_scanner(const grep_patterns& patterns, std::size_t chunk_bytes)
      : ctx_(0), halo_(patterns.longest() - 1), chunk_bytes_(chunk_bytes) {}

  [[nodiscard]] const char* name() const override { return "gpu transfer"; }

  void scan(const grep_reader& read, const grep_chunk_sink& on_chunk) override {
    detail::string_match::stream_text(
        ctx_, read, halo_, stream_options{.chunk_bytes = chunk_bytes_}, [](std::span<const unsigned char>, std::size_t) {},
        [](const context&, const unsigned char*, std::size_t, std::uint32_t*) { return std::size_t{0}; }, on_chunk);
  }

 private:
  context ctx_;
  std::size_t halo_;
  std::size_t chunk_bytes_;
};

}  // namespace

std::unique_ptr<grep_scanner> make_gpu_grep_scanner(const grep_patterns& patterns, std::size_t chunk_bytes,
                                                    bool transfer_only) {
  if (cuda_device_count() == 0 || patterns.nonempty.empty()) return nullptr;
  if (transfer_only) return std::make_unique<gpu_transfer_scanner>(patterns, chunk_bytes);
  return std::make_unique<gpu_grep_scanner>(patterns, chunk_bytes);
}

}  // namespace sluice::cli
