// sluice/reference/select.hpp: sequential oracle for stream compaction and stable partitions
// (Palik §5.3 "split" and §6.2 3-way split).
//
//   select_if(in, pred)          the elements with pred(x) true, in input order
//   select_flagged(in, flags)    the elements whose flag is nonzero, in input order;
//                                flags.size() != in.size() throws invalid_argument("flags")
//   stable_partition(in, pred)   pred-true elements in input order, then the rest in input order;
//                                `selected` = the number of pred-true elements (where the rest begin)
//   stable_partition_3way(in, classify)
//                                classify(x) ∈ {0, 1, 2}: group 0, then 1, then 2, each in input order;
//                                `first` = size of group 0, `second` = size of group 1 (group 2 starts at
//                                first + second). Any other class throws invalid_argument("classify") with
//                                the element's index.
//   unique(in, eq)               the first element of each run of consecutive equal elements, where i
//                                starts a run when i = 0 or !eq(in[i-1], in[i]) (neighbours compared, as
//                                CUB does; std::unique compares with the run's first element instead: the
//                                same for an equivalence relation)
//
// pred and classify are called exactly once per element, in index order. n = 0 gives empty results.
// Palik's split: A = [5,7,3,1,4,2,7,2], pred = even → [4,2,2,5,7,3,1,7], selected = 3.
#pragma once

#include <sluice/core/error.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace sluice::reference {

template <class T>
struct partition_result {
  std::vector<T> out;
  std::size_t selected = 0;
};

template <class T>
struct partition3_result {
  std::vector<T> out;
  std::size_t first = 0;   ///< elements of class 0: out[0, first)
  std::size_t second = 0;  ///< elements of class 1: out[first, first + second)
};

template <class T, class Pred>
[[nodiscard]] std::vector<T> select_if(std::span<const T> in, Pred pred) {
  std::vector<T> out;
  for (const T& x : in)
    if (pred(x)) out.push_back(x);
  return out;
}

template <class T>
[[nodiscard]] std::vector<T> select_flagged(std::span<const T> in, std::span<const std::uint8_t> flags) {
  if (flags.size() != in.size())
    throw invalid_argument("reference::select_flagged", "flags", "must have one flag per element");
  std::vector<T> out;
  for (std::size_t i = 0; i < in.size(); ++i)
    if (flags[i] != 0) out.push_back(in[i]);
  return out;
}

template <class T, class Pred>
[[nodiscard]] partition_result<T> stable_partition(std::span<const T> in, Pred pred) {
  std::vector<T> rejected;
  partition_result<T> result;
  for (const T& x : in) {
    if (pred(x)) result.out.push_back(x);
    else rejected.push_back(x);
  }
  result.selected = result.out.size();
  result.out.insert(result.out.end(), rejected.begin(), rejected.end());
  return result;
}

template <class T, class Classify>
[[nodiscard]] partition3_result<T> stable_partition_3way(std::span<const T> in, Classify classify) {
  std::vector<T> groups[3];
  for (std::size_t i = 0; i < in.size(); ++i) {
    const auto c = classify(in[i]);
    if (c == 0) groups[0].push_back(in[i]);
    else if (c == 1) groups[1].push_back(in[i]);
    else if (c == 2) groups[2].push_back(in[i]);
    else throw invalid_argument("reference::stable_partition_3way", "classify", "returned a class other than 0, 1, 2", i);
  }
  partition3_result<T> result;
  result.first = groups[0].size();
  result.second = groups[1].size();
  result.out.reserve(in.size());
  for (const std::vector<T>& group : groups) result.out.insert(result.out.end(), group.begin(), group.end());
  return result;
}

template <class T, class Eq = std::equal_to<>>
[[nodiscard]] std::vector<T> unique(std::span<const T> in, Eq eq = {}) {
  std::vector<T> out;
  for (std::size_t i = 0; i < in.size(); ++i)
    if (i == 0 || !eq(in[i - 1], in[i])) out.push_back(in[i]);
  return out;
}

}  // namespace sluice::reference
