// sluice/detail/dist/records.hpp: the fixed-size records that the ranks of a distributed call all-gather
// before each of its collectives, so that every rank decides the same thing from the same table:
//
//   status_block   whether this rank's part of the last step failed, how, and its message: a failure on
//                  one rank becomes a dist::rank_failure on every rank (errors.hpp), never a rank left
//                  waiting in a collective;
//   call_record    the first record of every call, the same size for every operation: the
//                  call's signature (operation, element types, operator, the parameters every rank must
//                  share) and the rank's element count. Since its size never depends on the call, ranks
//                  that call different operations or types still complete the all-gather and then
//                  report the difference as an invalid_argument, instead of corrupting a collective of
//                  mismatched sizes.
//
// Pure host code (host tests cover the names, the comparison and the choice of the failure reported).
#pragma once

#include <sluice/core/error.hpp>
#include <sluice/core/values.hpp>
#include <sluice/detail/dist/errors.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

namespace sluice::detail::dist {

using sluice::dist::failure_kind;

struct status_block {
  std::int32_t kind = 0;  ///< failure_kind
  std::int32_t rank = -1;
  char message[248] = {};
};
static_assert(sizeof(status_block) == 256 && std::is_trivially_copyable_v<status_block>);

/// The record of a failure, its message cut to what the block holds.
inline status_block failed_status(failure_kind kind, int rank, std::string_view message) {
  status_block s;
  s.kind = static_cast<std::int32_t>(kind);
  s.rank = rank;
  const std::size_t length = std::min(message.size(), sizeof(s.message) - 1);
  std::memcpy(s.message, message.data(), length);
  return s;
}

/// The status of the exception being handled (call inside a catch block).
inline status_block status_of_current_exception(int rank) {
  try {
    throw;
  } catch (const invalid_argument& e) {
    return failed_status(failure_kind::invalid_argument, rank, e.what());
  } catch (const out_of_memory& e) {
    return failed_status(failure_kind::out_of_memory, rank, e.what());
  } catch (const cuda_error& e) {
    return failed_status(failure_kind::cuda, rank, e.what());
  } catch (const std::exception& e) {
    return failed_status(failure_kind::other, rank, e.what());
  } catch (...) {
    return failed_status(failure_kind::other, rank, "an exception that is not a std::exception");
  }
}

/// Throws dist::rank_failure for the lowest failed rank of a gathered table (the message lists every
/// failed rank where several did); returns where none failed.
inline void throw_first_failure(std::string_view operation, std::span<const status_block> statuses) {
  const status_block* first = nullptr;
  std::string others;
  for (const status_block& s : statuses) {
    if (s.kind == static_cast<std::int32_t>(failure_kind::none)) continue;
    if (!first) first = &s;
    else others += (others.empty() ? "" : ", ") + std::to_string(s.rank);
  }
  if (!first) return;
  std::string message(first->message, strnlen(first->message, sizeof(first->message)));
  if (!others.empty()) message += " [ranks " + others + " failed too]";
  throw sluice::dist::rank_failure(operation, first->rank, static_cast<failure_kind>(first->kind), message);
}

// ---- signatures ----------------------------------------------------------------------------------------

/// 64-bit FNV-1a: the same hash of the same text in every process.
[[nodiscard]] constexpr std::uint64_t fnv1a(std::string_view text) {
  std::uint64_t hash = 0xcbf29ce484222325ull;
  for (char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ull;
  }
  return hash;
}

/// The compiler's name of T, read off __PRETTY_FUNCTION__ ("unsigned int", "sluice::plus").
template <class T>
[[nodiscard]] std::string_view type_name() {
  const std::string_view pretty = __PRETTY_FUNCTION__;
  const std::size_t start = pretty.find("T = ");
  if (start == std::string_view::npos) return pretty;
  int depth = 0;
  for (std::size_t i = start + 4; i < pretty.size(); ++i) {
    const char c = pretty[i];
    if (c == '<' || c == '(' || c == '[') ++depth;
    else if ((c == '>' || c == ')') && depth > 0) --depth;
    else if ((c == ';' || c == ']') && depth == 0) return pretty.substr(start + 4, i - start - 4);
    else if (c == ']') --depth;
  }
  return pretty.substr(start + 4);
}

/// A name that every rank hashes alike, and its first characters for messages.
struct name_tag {
  std::uint64_t hash = 0;
  char text[56] = {};
};
static_assert(sizeof(name_tag) == 64);

[[nodiscard]] inline name_tag tag(std::string_view name) {
  name_tag t;
  t.hash = fnv1a(name);
  std::memcpy(t.text, name.data(), std::min(name.size(), sizeof(t.text) - 1));
  return t;
}

/// The tag of a type (the keys-only sorts' value type is "none").
template <class T>
[[nodiscard]] name_tag type_tag() {
  if constexpr (std::is_same_v<T, no_values>) return tag("none");
  else return tag(type_name<T>());
}

/// What every rank of one call must share.
struct call_signature {
  name_tag operation;  ///< "dist::radix_sort"
  name_tag first;      ///< key or label type
  name_tag second;     ///< value type ("none" for keys alone)
  name_tag op;         ///< the operator's type ("none" for sorts)
  std::uint64_t parameters[8] = {};  ///< the operation's own (bits, m, options), named by the caller
};

/// The first record of every call (after its status_block): the same size whatever the operation.
struct call_record {
  call_signature signature;
  std::uint64_t n = 0;                  ///< elements on this rank
  std::uint64_t first_invalid = ~0ull;  ///< strict multireduce: this rank's first bad label, or ~0
};
static_assert(std::is_trivially_copyable_v<call_record> && sizeof(call_record) % 8 == 0);

/// A difference between two ranks' signatures, as an invalid_argument's parameter and problem.
struct mismatch {
  std::string parameter;
  std::string problem;
};

/// Why rank `other_rank`'s signature differs from rank 0's, naming the first field that differs; nothing
/// where they agree. `first_name` names the first element type's parameter ("keys", "labels");
/// `parameter_names[i]` names parameters[i] ("options.end_bit").
[[nodiscard]] inline std::optional<mismatch> compare_signatures(const call_signature& rank0,
                                                                const call_signature& other, int other_rank,
                                                                std::string_view first_name,
                                                                std::span<const std::string_view> parameter_names) {
  const auto text = [](const name_tag& t) { return std::string(t.text, strnlen(t.text, sizeof(t.text))); };
  const std::string who = "rank " + std::to_string(other_rank);
  const auto differs = [&](const name_tag& a, const name_tag& b, std::string_view parameter,
                           std::string_view what) -> std::optional<mismatch> {
    if (a.hash == b.hash) return std::nullopt;
    return mismatch{std::string(parameter),
                    std::string(what) + " is " + text(b) + " on " + who + " but " + text(a) + " on rank 0"};
  };
  if (auto m = differs(rank0.operation, other.operation, "operation", "the operation called")) return m;
  if (auto m = differs(rank0.first, other.first, first_name, "the element type")) return m;
  if (auto m = differs(rank0.second, other.second, "values", "the value type")) return m;
  if (auto m = differs(rank0.op, other.op, "op", "the operator type")) return m;
  for (std::size_t i = 0; i < std::size(rank0.parameters); ++i) {
    if (rank0.parameters[i] == other.parameters[i]) continue;
    const std::string name = i < parameter_names.size() ? std::string(parameter_names[i]) : "parameter " + std::to_string(i);
    return mismatch{name, "is " + std::to_string(other.parameters[i]) + " on " + who + " but " +
                              std::to_string(rank0.parameters[i]) + " on rank 0 (every rank must pass the same)"};
  }
  return std::nullopt;
}

/// Throws invalid_argument(function, …) for the first rank whose signature differs from rank 0's.
inline void require_same_signatures(const char* function, std::span<const call_record> records,
                                    std::string_view first_name, std::span<const std::string_view> parameter_names) {
  for (std::size_t r = 1; r < records.size(); ++r)
    if (std::optional<mismatch> m = compare_signatures(records[0].signature, records[r].signature,
                                                       static_cast<int>(r), first_name, parameter_names))
      throw invalid_argument(function, m->parameter, m->problem);
}

}  // namespace sluice::detail::dist
