// src/cli/grep.hpp: `sluice grep`, fixed-string grep over files of any size (header-only, host code: the
// host tests run it against GNU grep; the GPU scanner is grep_gpu.cu).
//
//   sluice grep [-F] [-c] [-n] [-o] [-b] [-H|-h] [-e PATTERN]... [-f FILE]... [PATTERN] [FILE...]
//
// Output follows grep's conventions for fixed strings: the selected lines (with "FILE:" before each when
// there are several files or -H, "LINE:" with -n, "OFFSET:" with -b, the line's byte offset or with -o the
// match's); -c one count of selected lines a file; -o each match of a selected line on its own line,
// leftmost-longest and non-overlapping, as grep prints them. A last line without a newline is printed
// with one. Exit status 0 if a line was selected, 1 if none, 2 on an error (a missing or unreadable file,
// a bad pattern file or usage), which wins over 0 as in grep.
//
// Patterns: -e and -f (one pattern a line) add to the list; without either the first operand is the
// pattern; a pattern with newlines is several. Only fixed strings: without -F a pattern holding a
// regular-expression character (\ [ ] . * ^ $) is refused with exit status 2 (the rest mean the same as a
// fixed string). The empty pattern matches every line, as in grep (string_match itself refuses it: every
// position would match); with -o it prints nothing.
//
// Files: none or "-" reads standard input, "(standard input)" in output. A file whose first 32 KiB hold a
// NUL byte is binary: its lines are not printed; once one is selected, "sluice grep: FILE: binary file
// matches" goes to standard error (GNU grep 3.5+); -c counts as usual. GNU grep also turns binary when it
// meets a NUL later in a file; sluice grep does not (docs/string_match.md).
//
// How: the file is read in chunks (the stream drivers' stream_chunk: a halo of the longest pattern − 1
// bytes, then new bytes, and the bitmap of match starts, from the GPU's multi/string_match_stream or from
// the CPU scanner here); line_walker follows newlines and match bits: runs of lines without a match are
// skipped with memchr/memrchr (newlines are counted only for -n), a selected line is printed from the
// bytes kept of its start in earlier chunks. A match never contains a newline (patterns are lines), so a
// match starting in a chunk's halo after its last newline belongs to the line still open.
#pragma once

#include <sluice/host/string_match.hpp>
#include <sluice/options/string_match.hpp>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace sluice::cli {

struct grep_arguments {
  std::vector<std::string> patterns;       ///< -e
  std::vector<std::string> pattern_files;  ///< -f
  std::vector<std::string> operands;       ///< [PATTERN] FILE...
  bool fixed = false;                      ///< -F
  bool count = false;                      ///< -c
  bool line_number = false;                ///< -n
  bool only_matching = false;              ///< -o
  bool byte_offset = false;                ///< -b
  bool with_filename = false;              ///< -H
  bool no_filename = false;                ///< -h
  bool cpu = false;                        ///< --cpu: the CPU scanner even with a GPU
  bool progress = false;                   ///< --progress: bytes done on standard error
  bool transfer_only = false;              ///< --transfer-only: read and copy to the GPU, match nothing
  std::size_t chunk_mib = 64;              ///< --chunk-mib: new bytes a chunk
  std::size_t chunk_bytes = 0;             ///< overrides chunk_mib when not 0 (tests: lines across chunks)
};

/// Reads a source into a span: bytes read, 0 at its end.
using grep_reader = std::function<std::size_t(std::span<unsigned char>)>;
using grep_chunk_sink = std::function<void(const stream_chunk&)>;

/// What finds the match starts of a file's chunks: the CPU here, or the GPU (grep_gpu.cu).
class grep_scanner {
 public:
  virtual ~grep_scanner() = default;
  [[nodiscard]] virtual const char* name() const = 0;
  /// Reads the source to its end and calls on_chunk for each chunk, in order.
  virtual void scan(const grep_reader& read, const grep_chunk_sink& on_chunk) = 0;
};

/// The non-empty patterns of a grep, and whether the empty one is among them.
struct grep_patterns {
  std::vector<std::string> nonempty;
  bool has_empty = false;
  [[nodiscard]] std::vector<std::string_view> views() const { return {nonempty.begin(), nonempty.end()}; }
  [[nodiscard]] std::size_t longest() const {
    std::size_t l = 0;
    for (const auto& p : nonempty) l = std::max(l, p.size());
    return l;
  }
};

// ---- the CPU scanner ---------------------------------------------------------------------------------------

/// Chunks with the halo of the GPU drivers, matched by the CPU matchers (sluice/host/string_match.hpp):
/// one pattern by its searcher, several by the pattern table.
class host_grep_scanner : public grep_scanner {
 public:
  host_grep_scanner(const grep_patterns& patterns, std::size_t chunk_bytes)
      : halo_(patterns.longest() ? patterns.longest() - 1 : 0), chunk_(chunk_bytes) {
    const auto views = patterns.views();
    if (views.size() == 1) single_ = std::make_unique<host::fixed_string_searcher>(as_bytes(views[0]));
    else if (views.size() > 1) several_ = std::make_unique<host::pattern_matcher>(views);
  }

  [[nodiscard]] const char* name() const override { return "cpu"; }

  void scan(const grep_reader& read, const grep_chunk_sink& on_chunk) override {
    std::vector<unsigned char> buffer(halo_ + chunk_), previous;
    std::vector<std::uint32_t> bitmap;
    std::size_t total = 0;
    for (;;) {
      const std::size_t halo = std::min(halo_, previous.size());
      std::copy(previous.end() - static_cast<std::ptrdiff_t>(halo), previous.end(), buffer.begin());
      std::size_t got = 0;
      while (got < chunk_) {
        const std::size_t more = read(std::span<unsigned char>(buffer.data() + halo + got, chunk_ - got));
        if (more == 0) break;
        got += more;
      }
      if (got == 0) return;
      const std::span<const unsigned char> bytes(buffer.data(), halo + got);
      bitmap.assign((bytes.size() + 31) / 32, 0);
      auto mark = [&](std::size_t r) { bitmap[r / 32] |= 1u << (r % 32); };
      if (single_) single_->for_each(bytes, mark);
      if (several_) several_->for_each(bytes, [&](std::size_t r, std::uint32_t) { mark(r); });
      on_chunk(stream_chunk{total - halo, bytes, halo, bitmap});
      total += got;
      previous.assign(bytes.end() - static_cast<std::ptrdiff_t>(std::min(halo_, bytes.size())), bytes.end());
    }
  }

  static std::span<const std::uint8_t> as_bytes(std::string_view s) {
    return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
  }

 private:
  std::size_t halo_;
  std::size_t chunk_;
  std::unique_ptr<host::fixed_string_searcher> single_;
  std::unique_ptr<host::pattern_matcher> several_;
};

// ---- -o: the matches of a selected line -----------------------------------------------------------------------

/// grep -o's matches in a line: leftmost, then longest, never overlapping.
class line_matches {
 public:
  explicit line_matches(const grep_patterns& patterns) {
    const auto views = patterns.views();
    if (views.size() > 8) several_ = std::make_unique<host::pattern_matcher>(views);
    else
      for (auto v : views) searchers_.emplace_back(host_grep_scanner::as_bytes(v));
  }

  /// (start, length) pairs in `line`, in order.
  [[nodiscard]] std::vector<std::pair<std::size_t, std::size_t>> find(std::span<const unsigned char> line) const {
    std::vector<std::pair<std::size_t, std::size_t>> all;
    for (const auto& s : searchers_) s.for_each(line, [&](std::size_t r) { all.emplace_back(r, s.size()); });
    if (several_) several_->for_each(line, [&](std::size_t r, std::uint32_t id) { all.emplace_back(r, several_->length(id)); });
    std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first != b.first ? a.first < b.first : a.second > b.second; });
    std::vector<std::pair<std::size_t, std::size_t>> chosen;
    std::size_t free_from = 0;
    for (const auto& [start, length] : all)
      if (start >= free_from) {
        chosen.emplace_back(start, length);
        free_from = start + length;
      }
    return chosen;
  }

 private:
  std::vector<host::fixed_string_searcher> searchers_;
  std::unique_ptr<host::pattern_matcher> several_;
};

// ---- lines --------------------------------------------------------------------------------------------------

/// Follows one file's chunks line by line and prints (or counts) the selected lines.
class line_walker {
 public:
  line_walker(const grep_arguments& args, std::string name, bool show_name, bool every_line, const line_matches& matches,
              std::string& out)
      : args_(args), name_(std::move(name)), show_name_(show_name), every_line_(every_line), matches_(matches), out_(out) {}

  void chunk(const stream_chunk& c) {
    const unsigned char* base = c.bytes.data();
    const std::size_t h = c.halo, len = c.bytes.size();
    if (first_chunk_) {
      first_chunk_ = false;
      binary_ = std::memchr(base, 0, std::min<std::size_t>(len, binary_probe_bytes)) != nullptr;
    }
    auto next_set = [&](std::size_t from) {  // the first match start at or after `from`, or len
      for (std::size_t w = from / 32; w < c.bitmap.size(); ++w) {
        std::uint32_t bits = c.bitmap[w];
        if (w == from / 32) bits &= ~0u << (from % 32);
        if (bits) return std::min(len, w * 32 + static_cast<std::size_t>(__builtin_ctz(bits)));
      }
      return len;
    };
    // A match starting in the halo after its last newline lies in the line still open.
    if (h > 0) {
      const void* last = memrchr(base, '\n', h);
      const std::size_t from = last ? static_cast<std::size_t>(static_cast<const unsigned char*>(last) - base) + 1 : 0;
      if (next_set(from) < h) open_match_ = true;
    }
    std::size_t pos = h;
    const std::size_t global = c.offset;  // text position of base[0]
    while (pos < len) {
      const std::size_t next = every_line_ ? pos : next_set(pos);
      if (next > pos) {  // no match starts in [pos, next): close the open line if it ends there, skip whole lines
        const auto* first = static_cast<const unsigned char*>(std::memchr(base + pos, '\n', next - pos));
        if (first) {
          const auto e = static_cast<std::size_t>(first - base);
          end_line(base, pos, e, global);
          pos = e + 1;
          const auto* last = static_cast<const unsigned char*>(memrchr(base + pos, '\n', next - pos));
          if (last) {
            const auto l = static_cast<std::size_t>(last - base);
            if (args_.line_number) line_number_ += static_cast<std::uint64_t>(std::count(base + pos, base + l + 1, '\n'));
            pos = l + 1;
            line_start_ = global + pos;
          }
        }
      }
      if (next >= len) break;
      open_match_ = true;  // a match starts at `next`, in the open line
      const auto* end = static_cast<const unsigned char*>(std::memchr(base + next, '\n', len - next));
      if (!end) break;
      const auto e = static_cast<std::size_t>(end - base);
      end_line(base, pos, e, global);
      pos = e + 1;
    }
    keep_open(base, pos < len ? pos : len, len);
  }

  /// The last line, if the file does not end with a newline.
  void finish() {
    if (open_length_ > 0) end_line(nullptr, 0, 0, 0);
  }

  [[nodiscard]] std::uint64_t selected() const { return selected_; }
  [[nodiscard]] bool binary_matched() const { return binary_ && selected_ > 0; }

 private:
  static constexpr std::size_t binary_probe_bytes = 32 * 1024;

  /// The open line grows by base[from, to).
  void keep_open(const unsigned char* base, std::size_t from, std::size_t to) {
    if (from >= to) return;
    if (!args_.count) open_.append(reinterpret_cast<const char*>(base + from), to - from);
    open_length_ += to - from;
  }

  /// The open line ends with base[from, to) (its newline at `to`).
  void end_line(const unsigned char* base, std::size_t from, std::size_t to, std::size_t global) {
    const bool selected = open_match_ || every_line_;
    if (selected) {
      ++selected_;
      if (!args_.count) {
        keep_open(base, from, to);
        print(open_);
      }
    }
    ++line_number_;
    line_start_ = global + to + 1;
    open_.clear();
    open_length_ = 0;
    open_match_ = false;
  }

  void prefix(std::uint64_t offset) {
    if (show_name_) (out_ += name_) += ':';
    if (args_.line_number) (out_ += std::to_string(line_number_)) += ':';
    if (args_.byte_offset) (out_ += std::to_string(offset)) += ':';
  }

  /// A selected line; a binary file's are not printed (the caller reports the file once).
  void print(const std::string& line) {
    if (binary_) return;
    if (!args_.only_matching) {
      prefix(line_start_);
      (out_ += line) += '\n';
      return;
    }
    const std::span<const unsigned char> bytes(reinterpret_cast<const unsigned char*>(line.data()), line.size());
    for (const auto& [start, length] : matches_.find(bytes)) {
      prefix(line_start_ + start);
      out_.append(line, start, length) += '\n';
    }
  }

  const grep_arguments& args_;
  std::string name_;
  bool show_name_;
  bool every_line_;
  const line_matches& matches_;
  std::string& out_;
  bool first_chunk_ = true;
  bool binary_ = false;
  std::string open_;               // the open line's bytes so far (not kept for -c)
  std::size_t open_length_ = 0;
  bool open_match_ = false;
  std::uint64_t line_number_ = 1;  // of the open line
  std::uint64_t line_start_ = 0;   // its byte offset
  std::uint64_t selected_ = 0;
};

// ---- the command ---------------------------------------------------------------------------------------------

/// The patterns of -e, -f and the first operand; false (and a message) on a usage or pattern-file error.
inline bool collect_patterns(grep_arguments& args, grep_patterns& out, std::ostream& err) {
  std::vector<std::string> all;
  auto add_lines = [&](std::string_view text, bool file) {
    std::size_t start = 0;
    while (start <= text.size()) {
      const std::size_t nl = text.find('\n', start);
      if (nl == std::string_view::npos) {
        if (!file || start < text.size()) all.emplace_back(text.substr(start));
        break;
      }
      all.emplace_back(text.substr(start, nl - start));
      start = nl + 1;
    }
  };
  for (const auto& p : args.patterns) add_lines(p, false);
  for (const auto& path : args.pattern_files) {
    std::FILE* f = path == "-" ? stdin : std::fopen(path.c_str(), "rb");
    if (!f) {
      err << "sluice grep: " << path << ": " << std::strerror(errno) << "\n";
      return false;
    }
    std::string text;
    char buffer[1 << 16];
    for (std::size_t got; (got = std::fread(buffer, 1, sizeof(buffer), f)) > 0;) text.append(buffer, got);
    if (f != stdin) std::fclose(f);
    add_lines(text, true);
  }
  if (args.patterns.empty() && args.pattern_files.empty()) {
    if (args.operands.empty()) {
      err << "sluice grep: no pattern (usage: sluice grep [-F] [-c] [-n] [-o] [-b] [-e PATTERN]... [-f FILE]... "
             "[PATTERN] [FILE...])\n";
      return false;
    }
    add_lines(args.operands.front(), false);
    args.operands.erase(args.operands.begin());
  }
  for (auto& p : all) {
    if (!args.fixed && p.find_first_of("\\[].*^$") != std::string::npos) {
      err << "sluice grep: only fixed strings are supported: the pattern '" << p
          << "' has regular-expression characters (use -F to take them literally)\n";
      return false;
    }
    if (p.empty()) out.has_empty = true;
    else out.nonempty.push_back(std::move(p));
  }
  return true;
}

/// Makes the GPU scanner, or null where there is no usable GPU (grep_gpu.cu; tests pass their own).
/// Makes the GPU scanner, or null without a usable GPU; transfer_only: one that only moves the chunks.
using grep_scanner_factory =
    std::function<std::unique_ptr<grep_scanner>(const grep_patterns&, std::size_t chunk_bytes, bool transfer_only)>;

/// Registers `sluice grep` and its options on `app`.
inline CLI::App* add_grep_command(CLI::App& app, grep_arguments& args) {
  auto* grep = app.add_subcommand("grep", "Print lines holding fixed strings, as grep -F does (GPU, or CPU without one)");
  grep->set_help_flag("--help", "Print this help and exit");  // -h is grep's --no-filename
  grep->add_flag("-F,--fixed-strings", args.fixed, "Patterns are fixed strings (the only kind supported)");
  grep->add_flag("-c,--count", args.count, "Print the number of selected lines of each file");
  grep->add_flag("-n,--line-number", args.line_number, "Print each line's number before it");
  grep->add_flag("-o,--only-matching", args.only_matching, "Print each match on a line of its own");
  grep->add_flag("-b,--byte-offset", args.byte_offset, "Print the byte offset of each line (with -o: of each match)");
  grep->add_flag("-H,--with-filename", args.with_filename, "Print the file name before each line");
  grep->add_flag("-h,--no-filename", args.no_filename, "Never print file names");
  grep->add_option("-e,--regexp", args.patterns, "A pattern (repeatable; newlines separate patterns)")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  grep->add_option("-f,--file", args.pattern_files, "A file of patterns, one a line (repeatable)")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  grep->add_flag("--cpu", args.cpu, "Match on the CPU even where there is a GPU");
  grep->add_flag("--progress", args.progress, "Report the bytes read on standard error (automatic: 1 GiB files, a terminal)");
  grep->add_flag("--transfer-only", args.transfer_only,
                 "Benchmark aid: read each chunk and copy it to the GPU as the GPU path does, match nothing (the "
                 "end-to-end bound; prints a count of 0)");
  grep->add_option("--chunk-mib", args.chunk_mib, "MiB of text a chunk (two chunks are in flight)");
  grep->add_option("operands", args.operands, "PATTERN (without -e and -f), then FILE... (none or -: standard input)");
  return grep;
}

/// Reads a regular file from `offset` on, each request split into up to `threads` positional reads side by
/// side: one thread copies the page cache into a pinned buffer at about 3 GB/s, where the GPU path could
/// take its bytes several times faster (docs/string_match.md, "sluice grep"). Returns the bytes read into
/// the request's prefix (a read cut short by the file's end or an error ends the prefix), 0 at the end;
/// `error` is the first failing read's errno.
class parallel_file_reader {
 public:
  parallel_file_reader(int fd, unsigned threads) : fd_(fd), threads_(std::max(1u, threads)) {}

  std::size_t operator()(std::span<unsigned char> into) {
    constexpr std::size_t min_piece = std::size_t{4} << 20;  // below this a thread costs more than it reads
    const std::size_t parts = std::clamp<std::size_t>(into.size() / min_piece, 1, threads_);
    const std::size_t piece = (into.size() + parts - 1) / parts;
    std::vector<std::size_t> got(parts, 0);
    std::vector<int> errors(parts, 0);
    auto read_piece = [&](std::size_t i) {
      const std::size_t begin = std::min(into.size(), i * piece), end = std::min(into.size(), begin + piece);
      for (std::size_t done = begin; done < end;) {
        const ssize_t r = ::pread(fd_, into.data() + done, end - done, static_cast<off_t>(offset_ + done));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) {
          errors[i] = r < 0 ? errno : 0;
          break;
        }
        done += static_cast<std::size_t>(r);
        got[i] = done - begin;
      }
    };
    std::vector<std::thread> helpers;
    for (std::size_t i = 1; i < parts; ++i) helpers.emplace_back(read_piece, i);
    read_piece(0);
    for (auto& h : helpers) h.join();
    std::size_t total = 0;
    for (std::size_t i = 0; i < parts; ++i) {
      total += got[i];
      if (errors[i] != 0 && error == 0) error = errors[i];
      if (got[i] < std::min(into.size(), i * piece + piece) - std::min(into.size(), i * piece)) break;
    }
    offset_ += total;
    return total;
  }

  int error = 0;

 private:
  int fd_;
  std::size_t threads_;
  std::size_t offset_ = 0;
};

/// Runs grep; output to `out`, messages to `err`; returns the exit status.
inline int run_grep(grep_arguments args, std::ostream& out, std::ostream& err, const grep_scanner_factory& gpu = {}) {
  grep_patterns patterns;
  if (!collect_patterns(args, patterns, err)) return 2;
  const std::size_t chunk_bytes = args.chunk_bytes ? args.chunk_bytes : std::max<std::size_t>(args.chunk_mib, 1) << 20;
  std::unique_ptr<grep_scanner> scanner;
  if (!args.cpu && gpu && !patterns.nonempty.empty()) scanner = gpu(patterns, chunk_bytes, args.transfer_only);
  if (args.transfer_only && !scanner) {
    err << "sluice grep: --transfer-only needs a GPU and a non-empty pattern, and not --cpu\n";
    return 2;
  }
  if (!scanner) scanner = std::make_unique<host_grep_scanner>(patterns, chunk_bytes);
  const line_matches matches(patterns);

  std::vector<std::string> files = args.operands;
  if (files.empty()) files.emplace_back("-");
  const bool show_name = !args.no_filename && (args.with_filename || files.size() > 1);
  bool any_selected = false, error = false;
  std::string buffer;
  for (const auto& path : files) {
    const bool is_stdin = path == "-";
    const std::string name = is_stdin ? "(standard input)" : path;
    const int fd = is_stdin ? STDIN_FILENO : ::open(path.c_str(), O_RDONLY);
    if (fd < 0) {
      err << "sluice grep: " << path << ": " << std::strerror(errno) << "\n";
      error = true;
      continue;
    }
    struct stat info {};
    const bool big = ::fstat(fd, &info) == 0 && info.st_size >= (std::int64_t{1} << 30);
    const bool show_progress = args.progress || (big && ::isatty(STDERR_FILENO));
    int read_error = 0;
    std::size_t done = 0;
    const bool regular = !is_stdin && S_ISREG(info.st_mode);
    parallel_file_reader file_reader(fd, std::thread::hardware_concurrency());
    const grep_reader read = [&](std::span<unsigned char> into) -> std::size_t {
      if (regular) {
        if (read_error) return 0;
        const std::size_t got = file_reader(into);
        read_error = file_reader.error;
        done += got;
        return got;
      }
      for (;;) {
        const ssize_t got = ::read(fd, into.data(), into.size());
        if (got >= 0) {
          done += static_cast<std::size_t>(got);
          return static_cast<std::size_t>(got);
        }
        if (errno != EINTR) {
          read_error = errno;
          return 0;
        }
      }
    };
    line_walker walker(args, name, show_name, patterns.has_empty, matches, buffer);
    scanner->scan(read, [&](const stream_chunk& c) {
      walker.chunk(c);
      if (buffer.size() >= (std::size_t{1} << 20)) {
        out << buffer;
        buffer.clear();
      }
      if (show_progress) err << "\rsluice grep: " << name << ": " << (done >> 20) << " MiB (" << scanner->name() << ")";
    });
    if (show_progress) err << "\n";
    if (!is_stdin) ::close(fd);
    if (read_error) {
      out << buffer;
      buffer.clear();
      err << "sluice grep: " << path << ": " << std::strerror(read_error) << "\n";
      error = true;
      continue;
    }
    walker.finish();
    if (args.count) {
      if (show_name) (buffer += name) += ':';
      (buffer += std::to_string(walker.selected())) += '\n';
    }
    out << buffer;
    buffer.clear();
    if (walker.binary_matched() && !args.count) err << "sluice grep: " << name << ": binary file matches\n";
    any_selected = any_selected || walker.selected() > 0;
  }
  out.flush();
  return error ? 2 : any_selected ? 0 : 1;
}

}  // namespace sluice::cli
