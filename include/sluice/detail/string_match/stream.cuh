// sluice/detail/string_match/stream.cuh: matching a text larger than GPU memory (a file, a pipe, a host
// buffer), chunk by chunk, with copies overlapped with matching.
//
// Two slots, each a stream of its own (a context) with a pinned host buffer and device buffers of
// halo + chunk characters. Chunk i goes to slot i mod 2: its first h characters are the last h of chunk
// i − 1 (h = min(longest − 1, what came before): the halo), copied host to host, then up to `chunk` new
// characters are read into the pinned buffer; the copy to the device, the matching and the copy of the
// bitmap back are queued on the slot's stream, and the host goes on to read chunk i + 1 into the other
// slot while they run. Before a slot is reused its stream is synchronised and its chunk delivered, so
// chunks are delivered in order, each while the next one is on the GPU.
//
// Exactly once: chunk i reports the matches inside its buffer, text positions from o_i (its halo's start).
// A match [s, s + m) reported by chunk i cannot end inside the halo: that would need s ≥ o_i and
// s + m ≤ o_i + h, so m ≤ h ≤ m − 1. So it ends in chunk i's new characters, which no other chunk holds as
// new characters. And every match is reported: one ending in chunk i's new characters starts at or after
// o_i, since the halo holds the m − 1 characters before them (or everything before them). With several
// patterns of different lengths a short one can lie inside the halo and be reported twice (the halo is
// the longest − 1); multi_string_match_stream says so, and grep's line logic is indifferent to it.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/device_buffer.hpp>
#include <sluice/core/error.hpp>
#include <sluice/detail/string_match/fingerprint.hpp>
#include <sluice/options/string_match.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>

namespace sluice::detail::string_match {

/// Page-locked host memory, so that cudaMemcpyAsync overlaps kernels.
template <class T>
class pinned_buffer {
 public:
  explicit pinned_buffer(std::size_t count) {
    if (count) SLUICE_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&data_), count * sizeof(T)));
  }
  pinned_buffer(const pinned_buffer&) = delete;
  pinned_buffer& operator=(const pinned_buffer&) = delete;
  ~pinned_buffer() {
    if (data_) (void)cudaFreeHost(data_);
  }
  [[nodiscard]] T* get() const { return data_; }

 private:
  T* data_ = nullptr;
};

/// A chunk slot: its stream, the pinned buffers and the device buffers.
struct stream_slot {
  stream_slot(int device, std::size_t capacity)
      : ctx(device),
        host_text(capacity),
        host_words(bitmap_words(capacity)),
        text(ctx, capacity),
        words(ctx, bitmap_words(capacity)) {}

  context ctx;
  pinned_buffer<unsigned char> host_text;
  pinned_buffer<std::uint32_t> host_words;
  device_buffer<unsigned char> text;
  device_buffer<std::uint32_t> words;
  std::size_t offset = 0;      ///< the text position of host_text[0]
  std::size_t halo = 0;
  std::size_t size = 0;        ///< halo + new characters
  std::size_t word_count = 0;  ///< bitmap words the match wrote
  bool busy = false;
};

/// Reads from `read` (std::size_t(std::span<unsigned char>): bytes read, 0 at the end) until `into` is
/// full or the source ends.
template <class Read>
std::size_t read_fully(Read& read, std::span<unsigned char> into) {
  std::size_t got = 0;
  while (got < into.size()) {
    const std::size_t more = read(into.subspan(got));
    if (more == 0) break;
    got += more;
  }
  return got;
}

/// Streams the text from `read` through `match(ctx, device_text, n, device_words)` (the bitmap's words
/// written, 0 where n is too short) and delivers every chunk to on_chunk(const stream_chunk&), in order.
/// `check(chunk_new_characters, offset)` runs on each chunk's new characters on the host (the alphabet
/// check). Returns the text's length. Synchronous: it returns when every chunk is delivered.
template <class Read, class Check, class Match, class OnChunk>
std::size_t stream_text(const context& ctx, Read& read, std::size_t halo_max, const stream_options& options,
                        Check&& check, Match&& match, OnChunk&& on_chunk) {
  if (options.chunk_bytes == 0) throw invalid_argument("string_match_stream", "stream.chunk_bytes", "must not be 0");
  const std::size_t capacity = halo_max + options.chunk_bytes;
  std::unique_ptr<stream_slot> slots[2] = {std::make_unique<stream_slot>(ctx.device(), capacity),
                                           std::make_unique<stream_slot>(ctx.device(), capacity)};
  auto deliver = [&](stream_slot& s) {
    s.ctx.synchronize();
    s.busy = false;
    on_chunk(stream_chunk{s.offset, {s.host_text.get(), s.size}, s.halo, {s.host_words.get(), s.word_count}});
  };
  std::size_t total = 0;
  for (std::size_t i = 0;; ++i) {
    stream_slot& s = *slots[i % 2];
    const stream_slot& previous = *slots[(i + 1) % 2];
    if (s.busy) deliver(s);  // chunk i − 2
    s.halo = i == 0 ? 0 : std::min(halo_max, previous.size);
    if (s.halo) std::memcpy(s.host_text.get(), previous.host_text.get() + previous.size - s.halo, s.halo);
    const std::size_t got = read_fully(read, std::span<unsigned char>(s.host_text.get() + s.halo, options.chunk_bytes));
    if (got == 0) break;
    check(std::span<const unsigned char>(s.host_text.get() + s.halo, got), total);
    s.offset = total - s.halo;
    s.size = s.halo + got;
    total += got;
    auto device = s.ctx.activate();
    SLUICE_CUDA_CHECK(cudaMemcpyAsync(s.text.data(), s.host_text.get(), s.size, cudaMemcpyHostToDevice, s.ctx.stream()));
    s.word_count = match(s.ctx, static_cast<const unsigned char*>(s.text.data()), s.size, s.words.data());
    if (s.word_count)
      SLUICE_CUDA_CHECK(cudaMemcpyAsync(s.host_words.get(), s.words.data(), s.word_count * sizeof(std::uint32_t),
                                        cudaMemcpyDeviceToHost, s.ctx.stream()));
    s.busy = true;
  }
  for (auto& s : slots)  // the last chunk (the loop delivered the one before it)
    if (s->busy) deliver(*s);
  return total;
}

}  // namespace sluice::detail::string_match
