// Host tests of `sluice grep` (src/cli/grep.hpp) with its CPU scanner, against GNU grep -F run on the
// same generated files in the same process (LC_ALL=C): the standard output byte for byte, the exit
// status, and standard error with grep's "grep: " read as "sluice grep: ". Selected lines, -c, -n, -o,
// -b and their combinations; one, two and 60 patterns (prefixes of one another, from -e and -f); several
// files; chunks of 4 KiB + 7 so that lines and matches cross chunk borders, and lines longer than a
// chunk; no final newline, empty files, the empty pattern, binary files, missing files and directories.
// Skips when no `grep` is on the PATH.
#include "../../src/cli/grep.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using sluice::cli::grep_arguments;

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_file(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}

std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

struct outcome {
  std::string out, err;
  int status = -1;
};

class Grep : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::system("command -v grep > /dev/null 2>&1") != 0) GTEST_SKIP() << "no grep on the PATH";
    dir_ = fs::temp_directory_path() / ("sluice_grep_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  fs::path file(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    write_file(p, text);
    return p;
  }

  /// GNU grep -F with `flags` (each a separate argument).
  outcome gnu(const std::vector<std::string>& flags) {
    std::string command = "LC_ALL=C grep -F";
    for (const auto& f : flags) command += " " + quote(f);
    command += " > " + quote((dir_ / "gnu.out").string()) + " 2> " + quote((dir_ / "gnu.err").string());
    outcome o;
    const int raw = std::system(command.c_str());
    o.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    o.out = read_file(dir_ / "gnu.out");
    o.err = read_file(dir_ / "gnu.err");
    for (std::size_t at = 0; (at = o.err.find("grep: ", at)) != std::string::npos; at += 13) o.err.replace(at, 6, "sluice grep: ");
    return o;
  }

  /// sluice grep with the same flags, parsed as the CLI would set grep_arguments.
  static outcome sluice_grep(const std::vector<std::string>& flags, std::size_t chunk_bytes) {
    grep_arguments a;
    a.fixed = true;
    a.chunk_bytes = chunk_bytes;
    for (std::size_t i = 0; i < flags.size(); ++i) {
      const std::string& f = flags[i];
      if (f == "-c") a.count = true;
      else if (f == "-n") a.line_number = true;
      else if (f == "-o") a.only_matching = true;
      else if (f == "-b") a.byte_offset = true;
      else if (f == "-H") a.with_filename = true;
      else if (f == "-h") a.no_filename = true;
      else if (f == "-e") a.patterns.push_back(flags[++i]);
      else if (f == "-f") a.pattern_files.push_back(flags[++i]);
      else a.operands.push_back(f);
    }
    std::ostringstream out, err;
    outcome o;
    o.status = sluice::cli::run_grep(a, out, err);
    o.out = out.str();
    o.err = err.str();
    return o;
  }

  void expect_same(const std::vector<std::string>& flags) {
    const outcome expected = gnu(flags);
    for (std::size_t chunk : {std::size_t{4096} + 7, std::size_t{1} << 20}) {
      const outcome got = sluice_grep(flags, chunk);
      std::string label = "flags:";
      for (const auto& f : flags) label += " " + f;
      label += ", chunk " + std::to_string(chunk);
      EXPECT_EQ(got.status, expected.status) << label;
      EXPECT_EQ(got.err, expected.err) << label;
      ASSERT_EQ(got.out.size(), expected.out.size()) << label;
      ASSERT_TRUE(got.out == expected.out) << label << "\n first difference at byte "
                                           << std::mismatch(got.out.begin(), got.out.end(), expected.out.begin()).first -
                                                  got.out.begin();
    }
  }

  fs::path dir_;
};

/// Lines of words from a small vocabulary (many matches, words that are prefixes of one another),
/// with a few very long lines and empty ones.
std::string words_text(std::size_t lines, std::uint64_t seed, bool final_newline) {
  static const char* const vocabulary[] = {"a",   "ab",    "abc",   "abcd", "the",  "then", "there",  "sluice",
                                           "gpu", "grep",  "grepF", "x",    "yy",   "zzz",  "needle", "haystack"};
  std::mt19937_64 rng(seed);
  std::string text;
  for (std::size_t i = 0; i < lines; ++i) {
    const std::size_t words = rng() % 13 == 0 ? 3000 : rng() % 9;  // some lines longer than a 4 KiB chunk
    for (std::size_t w = 0; w < words; ++w) {
      if (w) text += rng() % 7 == 0 ? "" : " ";
      text += vocabulary[rng() % std::size(vocabulary)];
    }
    if (i + 1 < lines || final_newline) text += '\n';
  }
  return text;
}

const std::vector<std::vector<std::string>> flag_sets = {{}, {"-c"}, {"-n"}, {"-o"}, {"-b"}, {"-n", "-o", "-b"},
                                                         {"-c", "-o"}, {"-n", "-b"}};

TEST_F(Grep, OnePatternEveryFlagSet) {
  const auto a = file("a.txt", words_text(1500, 1, true)).string();
  const auto b = file("b.txt", words_text(500, 2, false)).string();
  for (const auto& flags : flag_sets)
    for (const char* pattern : {"needle", "a", "then ", "abcd", "notthere"}) {
      auto f = flags;
      f.insert(f.end(), {"-e", pattern, a});
      expect_same(f);
      f.push_back(b);  // two files: names before each line
      expect_same(f);
    }
}

TEST_F(Grep, SeveralPatternsFromArgumentsAndFiles) {
  const auto a = file("a.txt", words_text(1500, 3, true)).string();
  std::string list;
  for (const char* p : {"ab", "abc", "abcd", "the", "there", "sluice", "gpu ", "yy z", "zz", "grepF"}) (list += p) += '\n';
  for (int i = 0; i < 50; ++i) (list += "nothing" + std::to_string(i)) += '\n';  // 60 patterns: the table
  const auto patterns = file("patterns.txt", list).string();
  for (const auto& flags : flag_sets) {
    auto f = flags;
    f.insert(f.end(), {"-e", "ab", "-e", "abc", "-e", "zz", a});
    expect_same(f);
    f = flags;
    f.insert(f.end(), {"-f", patterns, a});
    expect_same(f);
  }
}

TEST_F(Grep, EdgeFiles) {
  const auto empty = file("empty.txt", "").string();
  const auto newlines = file("newlines.txt", "\n\n\n").string();
  const auto unterminated = file("unterminated.txt", "abc\nxabcx\nabc").string();
  const auto periodic = file("periodic.txt", std::string(10000, 'a') + "\n" + std::string(5, 'a')).string();
  for (const auto& flags : flag_sets) {
    for (const char* pattern : {"abc", "a", "aa"}) {
      auto f = flags;
      f.insert(f.end(), {"-e", pattern, empty, newlines, unterminated, periodic});
      expect_same(f);
    }
  }
}

TEST_F(Grep, EmptyPatternMatchesEveryLine) {
  const auto a = file("a.txt", "abc\nxyz\n\nabcabc\nno").string();
  for (const auto& flags : flag_sets) {
    auto f = flags;
    f.insert(f.end(), {"-e", "", a});
    expect_same(f);
    f = flags;
    f.insert(f.end(), {"-e", "", "-e", "b", a});
    expect_same(f);
  }
  const auto none = file("none.txt", "").string();
  expect_same({"-f", none, a});  // no pattern at all: nothing matches
}

TEST_F(Grep, BinaryMissingAndDirectory) {
  const auto text = file("a.txt", "abc\nabd\n").string();
  const auto binary = file("bin.dat", std::string("aaaa\nb\0c\naaa\n", 13)).string();
  const auto missing = (dir_ / "missing.txt").string();
  fs::create_directories(dir_ / "sub");
  for (const auto& flags : flag_sets) {
    auto f = flags;
    f.insert(f.end(), {"-e", "aa", binary});
    expect_same(f);
    f = flags;
    f.insert(f.end(), {"-e", "ab", text, missing, binary});
    expect_same(f);
  }
  expect_same({"-e", "ab", (dir_ / "sub").string(), text});
  expect_same({"-e", "zz", text});  // no line: status 1
}

/// The command line as `sluice grep` parses it.
grep_arguments parse(std::vector<std::string> argv) {
  CLI::App app;
  grep_arguments args;
  sluice::cli::add_grep_command(app, args);
  argv.insert(argv.begin(), {"sluice", "grep"});
  std::vector<const char*> raw;
  for (const auto& a : argv) raw.push_back(a.c_str());
  app.parse(static_cast<int>(raw.size()), raw.data());
  return args;
}

TEST(GrepOptions, CommandLineAsGrepReadsIt) {
  auto a = parse({"-F", "-e", "needle", "file.txt"});
  EXPECT_TRUE(a.fixed);
  EXPECT_EQ(a.patterns, std::vector<std::string>{"needle"});
  EXPECT_EQ(a.operands, std::vector<std::string>{"file.txt"});
  a = parse({"-cn", "-e", "x", "-e", "y", "-f", "p.txt", "a", "b"});
  EXPECT_TRUE(a.count);
  EXPECT_TRUE(a.line_number);
  EXPECT_EQ(a.patterns, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(a.pattern_files, std::vector<std::string>{"p.txt"});
  EXPECT_EQ(a.operands, (std::vector<std::string>{"a", "b"}));
  a = parse({"-o", "-b", "-h", "-H", "word", "f1"});
  EXPECT_TRUE(a.only_matching && a.byte_offset && a.no_filename && a.with_filename);
  EXPECT_TRUE(a.patterns.empty());
  EXPECT_EQ(a.operands, (std::vector<std::string>{"word", "f1"}));
}

TEST(GrepOptions, RegularExpressionsNeedF) {
  grep_arguments a;
  a.patterns = {"a.c"};
  a.operands = {"/dev/null"};
  std::ostringstream out, err;
  EXPECT_EQ(sluice::cli::run_grep(a, out, err), 2);
  EXPECT_NE(err.str().find("only fixed strings"), std::string::npos) << err.str();
  a.patterns = {"abc"};  // no special character: the same as a fixed string
  EXPECT_EQ(sluice::cli::run_grep(a, out, err), 1);
  grep_arguments none;
  EXPECT_EQ(sluice::cli::run_grep(none, out, err), 2);  // no pattern at all
}

TEST(GrepReader, ParallelReadsGiveTheFileInOrder) {
  const std::size_t size = (std::size_t{21} << 20) + 12345;  // several 4 MiB pieces, a short last request
  std::vector<unsigned char> bytes(size);
  std::mt19937_64 rng(7);
  for (auto& b : bytes) b = static_cast<unsigned char>(rng());
  char path[] = "/tmp/sluice_grep_reader_XXXXXX";
  const int fd = ::mkstemp(path);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::write(fd, bytes.data(), size), static_cast<ssize_t>(size));
  for (unsigned threads : {1u, 3u, 8u}) {
    sluice::cli::parallel_file_reader read(fd, threads);
    std::vector<unsigned char> got, buffer(std::size_t{9} << 20);
    for (std::size_t n; (n = read(buffer)) != 0;) got.insert(got.end(), buffer.begin(), buffer.begin() + n);
    EXPECT_EQ(read.error, 0);
    EXPECT_TRUE(got == bytes) << threads << " threads: " << got.size() << " bytes of " << size;
  }
  ::close(fd);
  ::unlink(path);
}

TEST(GrepOptions, TransferOnlyWithoutAGpuIsAnError) {
  grep_arguments a = parse({"--transfer-only", "-F", "-c", "abc", "/dev/null"});
  EXPECT_TRUE(a.transfer_only);
  std::ostringstream out, err;
  EXPECT_EQ(sluice::cli::run_grep(a, out, err), 2);  // no GPU scanner factory: nothing to measure
  EXPECT_NE(err.str().find("--transfer-only needs a GPU"), std::string::npos) << err.str();
  EXPECT_EQ(out.str(), "");
}

}  // namespace
