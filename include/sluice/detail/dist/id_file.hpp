// sluice/detail/dist/id_file.hpp: handing NCCL's unique id from rank 0 to the other ranks through a file
// that every rank can read (one host, or a filesystem the hosts share), for launchers that give no
// channel of their own (torchrun, srun, mpirun without MPI in the program).
//
// Rank 0 writes the file under a temporary name and renames it into place, so that a reader sees the
// whole file or none. The file names the world size and a run token (SLUICE_DIST_RUN_ID, which
// scripts/dist_run.sh sets afresh for every run), so that a reader refuses a stale file left by an earlier
// run and keeps waiting for the new one. Rank 0 removes the file once every rank has joined (then all
// have read it). The id is bytes here, so that this header needs no nccl.h and the host tests cover it.
#pragma once

#include <sluice/core/error.hpp>
#include <sluice/detail/dist/environment.hpp>

#include <array>
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <unistd.h>

namespace sluice::detail::dist {

/// NCCL_UNIQUE_ID_BYTES (nccl.h); world.hpp checks that they agree.
inline constexpr std::size_t unique_id_bytes = 128;
using id_block = std::array<unsigned char, unique_id_bytes>;

/// The variables of the file exchange: the path, and the token of this run.
inline constexpr std::string_view id_file_variable = "SLUICE_DIST_ID_FILE";
inline constexpr std::string_view run_token_variable = "SLUICE_DIST_RUN_ID";

inline constexpr std::string_view id_file_magic = "sluice-nccl-id 1";

/// The file's text: the magic line, the world size, the run token, the id as 256 hex digits.
inline std::string format_id_file(const id_block& id, int world_size, std::string_view token) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string hex;
  for (unsigned char byte : id) {
    hex += digits[byte >> 4];
    hex += digits[byte & 15];
  }
  return std::string(id_file_magic) + "\nworld " + std::to_string(world_size) + "\ntoken " + std::string(token) +
         "\nid " + hex + "\n";
}

/// The id of a file's text, if it is complete and of this run (world size and token); else nothing, with
/// the reason in `why`.
inline std::optional<id_block> parse_id_file(const std::string& text, int world_size, std::string_view token,
                                             std::string& why) {
  std::istringstream in(text);
  std::string magic, world_key, token_key, token_value, id_key, hex;
  int world = 0;
  if (!std::getline(in, magic) || magic != id_file_magic) return why = "not a sluice id file (first line)", std::nullopt;
  if (!(in >> world_key >> world) || world_key != "world") return why = "no world size", std::nullopt;
  in.ignore(1);
  std::string token_line;
  if (!std::getline(in, token_line) || token_line.rfind("token", 0) != 0) return why = "no run token", std::nullopt;
  token_value = token_line.size() > 6 ? token_line.substr(6) : std::string();
  if (!(in >> id_key >> hex) || id_key != "id" || hex.size() != 2 * unique_id_bytes)
    return why = "the id is incomplete", std::nullopt;
  if (world != world_size)
    return why = "it is for a world of " + std::to_string(world) + ", not " + std::to_string(world_size), std::nullopt;
  if (token_value != token)
    return why = "its run token '" + token_value + "' is not this run's '" + std::string(token) + "' (a stale file?)",
           std::nullopt;
  id_block id{};
  for (std::size_t i = 0; i < unique_id_bytes; ++i) {
    const auto nibble = [&](char c) -> int {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      return -1;
    };
    const int high = nibble(hex[2 * i]), low = nibble(hex[2 * i + 1]);
    if (high < 0 || low < 0) return why = "the id has a character that is not a hex digit", std::nullopt;
    id[i] = static_cast<unsigned char>(high * 16 + low);
  }
  return id;
}

/// Rank 0: writes the file under a temporary name beside it and renames it into place (atomic).
inline void publish_id(const std::filesystem::path& path, const id_block& id, int world_size, std::string_view token) {
  std::filesystem::path temporary = path;
  temporary += ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << format_id_file(id, world_size, token);
    out.flush();
    if (!out)
      throw invalid_argument(environment_function, id_file_variable,
                             "names '" + path.string() + "', which rank 0 cannot write");
  }
  std::error_code error;
  std::filesystem::rename(temporary, path, error);
  if (error)
    throw invalid_argument(environment_function, id_file_variable,
                           "names '" + path.string() + "': renaming the written id into place failed: " + error.message());
}

/// The other ranks: reads the file until it holds this run's id, polling every `poll`; after `timeout`,
/// invalid_argument naming the path and why the last read was refused.
inline id_block await_id(const std::filesystem::path& path, int world_size, std::string_view token,
                         std::chrono::milliseconds timeout,
                         std::chrono::milliseconds poll = std::chrono::milliseconds(20)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string why = "it does not exist";
  for (;;) {
    std::ifstream in(path);
    if (in) {
      const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      if (auto id = parse_id_file(text, world_size, token, why)) return *id;
    }
    if (std::chrono::steady_clock::now() >= deadline)
      throw invalid_argument(environment_function, id_file_variable,
                             "names '" + path.string() + "', which held no id of this run after " +
                                 std::to_string(timeout.count()) + " ms (" + why + ")");
    std::this_thread::sleep_for(poll);
  }
}

}  // namespace sluice::detail::dist
