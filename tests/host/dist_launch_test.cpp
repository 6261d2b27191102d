// Host tests of how a distributed process finds its place (sluice/detail/dist/environment.hpp) and its
// NCCL id (id_file.hpp): every launcher convention, their precedence, malformed and missing values named
// in the error, the device choice; the id file's text round trip, refusal of stale or foreign files, the
// atomic publish and the wait with its timeout.
#include <sluice/detail/dist/environment.hpp>
#include <sluice/detail/dist/id_file.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <unistd.h>

namespace {

namespace dd = sluice::detail::dist;

dd::environment_lookup lookup_of(std::map<std::string, std::string> variables) {
  return [variables](std::string_view name) -> std::optional<std::string> {
    const auto it = variables.find(std::string(name));
    if (it == variables.end()) return std::nullopt;
    return it->second;
  };
}

/// The parameter an invalid_argument names, or "" when `f` does not throw one.
template <class F>
std::string parameter_of_error(F&& f) {
  try {
    f();
  } catch (const sluice::invalid_argument& e) {
    return e.parameter();
  }
  return "";
}

TEST(DistEnvironment, EachLauncherConvention) {
  const auto open_mpi = dd::placement_from(lookup_of(
      {{"OMPI_COMM_WORLD_RANK", "3"}, {"OMPI_COMM_WORLD_SIZE", "8"}, {"OMPI_COMM_WORLD_LOCAL_RANK", "1"}}));
  EXPECT_EQ(open_mpi.rank, 3);
  EXPECT_EQ(open_mpi.world_size, 8);
  EXPECT_EQ(open_mpi.local_rank, 1);
  EXPECT_EQ(open_mpi.convention, "Open MPI");
  const auto torchrun = dd::placement_from(lookup_of({{"RANK", "1"}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", "1"}}));
  EXPECT_EQ(torchrun.rank, 1);
  EXPECT_EQ(torchrun.world_size, 2);
  EXPECT_EQ(torchrun.convention, "torchrun");
  const auto slurm = dd::placement_from(lookup_of({{"SLURM_PROCID", "5"}, {"SLURM_NTASKS", "6"}, {"SLURM_LOCALID", "2"}}));
  EXPECT_EQ(slurm.rank, 5);
  EXPECT_EQ(slurm.local_rank, 2);
  EXPECT_EQ(slurm.convention, "Slurm");
  const auto hydra = dd::placement_from(lookup_of({{"PMI_RANK", "0"}, {"PMI_SIZE", "1"}}));
  EXPECT_EQ(hydra.world_size, 1);
  EXPECT_EQ(hydra.local_rank, 0);  // unset local rank: one process per host
  const auto none = dd::placement_from(lookup_of({}));
  EXPECT_EQ(none.rank, 0);
  EXPECT_EQ(none.world_size, 1);
}

TEST(DistEnvironment, PrecedenceSluiceThenMpiThenTorchrunThenSlurm) {
  // torchrun inside an srun allocation: torchrun's numbers, not srun's one task per node.
  const auto in_slurm = dd::placement_from(
      lookup_of({{"RANK", "3"}, {"WORLD_SIZE", "4"}, {"SLURM_PROCID", "1"}, {"SLURM_NTASKS", "2"}}));
  EXPECT_EQ(in_slurm.rank, 3);
  EXPECT_EQ(in_slurm.convention, "torchrun");
  const auto mpi = dd::placement_from(lookup_of(
      {{"OMPI_COMM_WORLD_RANK", "2"}, {"OMPI_COMM_WORLD_SIZE", "4"}, {"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "1"}}));
  EXPECT_EQ(mpi.convention, "Open MPI");
  const auto forced = dd::placement_from(lookup_of(
      {{"SLUICE_DIST_RANK", "0"}, {"SLUICE_DIST_WORLD_SIZE", "1"}, {"RANK", "1"}, {"WORLD_SIZE", "2"}}));
  EXPECT_EQ(forced.world_size, 1);
  EXPECT_EQ(forced.convention, "sluice");
}

TEST(DistEnvironment, MalformedOrHalfSetVariablesAreNamed) {
  EXPECT_EQ(parameter_of_error([] { dd::placement_from(lookup_of({{"RANK", "1"}})); }), "WORLD_SIZE");
  EXPECT_EQ(parameter_of_error([] { dd::placement_from(lookup_of({{"WORLD_SIZE", "2"}})); }), "RANK");
  EXPECT_EQ(parameter_of_error([] { dd::placement_from(lookup_of({{"RANK", "2"}, {"WORLD_SIZE", "2"}})); }), "RANK");
  EXPECT_EQ(parameter_of_error([] { dd::placement_from(lookup_of({{"RANK", "-1"}, {"WORLD_SIZE", "2"}})); }), "RANK");
  EXPECT_EQ(parameter_of_error([] { dd::placement_from(lookup_of({{"RANK", "1x"}, {"WORLD_SIZE", "2"}})); }), "RANK");
  EXPECT_EQ(parameter_of_error([] { dd::placement_from(lookup_of({{"RANK", ""}, {"WORLD_SIZE", "2"}})); }), "RANK");
  EXPECT_EQ(parameter_of_error([] { dd::placement_from(lookup_of({{"RANK", "0"}, {"WORLD_SIZE", "0"}})); }),
            "WORLD_SIZE");
  EXPECT_EQ(parameter_of_error([] {
              dd::placement_from(lookup_of({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", "x"}}));
            }),
            "LOCAL_RANK");
}

TEST(DistEnvironment, DeviceIsLocalRankModuloDevicesUnlessForced) {
  dd::launch_placement p;
  p.local_rank = 5;
  EXPECT_EQ(dd::device_for(p, 2, lookup_of({})), 1);
  EXPECT_EQ(dd::device_for(p, 8, lookup_of({})), 5);
  EXPECT_EQ(dd::device_for(p, 1, lookup_of({})), 0);  // CUDA_VISIBLE_DEVICES one device per process
  EXPECT_EQ(dd::device_for(p, 8, lookup_of({{"SLUICE_DIST_DEVICE", "7"}})), 7);
  EXPECT_EQ(parameter_of_error([&] { dd::device_for(p, 2, lookup_of({{"SLUICE_DIST_DEVICE", "2"}})); }),
            "SLUICE_DIST_DEVICE");
  EXPECT_EQ(parameter_of_error([&] { dd::device_for(p, 0, lookup_of({})); }), "device");
}

dd::id_block sample_id() {
  dd::id_block id{};
  for (std::size_t i = 0; i < id.size(); ++i) id[i] = static_cast<unsigned char>(i * 37 + 11);
  return id;
}

TEST(DistIdFile, TextRoundTripsAndRefusesOtherRuns) {
  const dd::id_block id = sample_id();
  const std::string text = dd::format_id_file(id, 4, "run-7");
  std::string why;
  const auto back = dd::parse_id_file(text, 4, "run-7", why);
  ASSERT_TRUE(back.has_value()) << why;
  EXPECT_EQ(*back, id);
  EXPECT_FALSE(dd::parse_id_file(text, 2, "run-7", why).has_value());
  EXPECT_NE(why.find("world of 4"), std::string::npos) << why;
  EXPECT_FALSE(dd::parse_id_file(text, 4, "run-8", why).has_value());
  EXPECT_NE(why.find("stale"), std::string::npos) << why;
  EXPECT_FALSE(dd::parse_id_file(text.substr(0, text.size() / 2), 4, "run-7", why).has_value());
  EXPECT_FALSE(dd::parse_id_file("something else\n", 4, "run-7", why).has_value());
  const auto empty_token = dd::parse_id_file(dd::format_id_file(id, 1, ""), 1, "", why);
  ASSERT_TRUE(empty_token.has_value()) << why;
  EXPECT_EQ(*empty_token, id);
}

std::filesystem::path temporary_path(const std::string& name) {
  return std::filesystem::temp_directory_path() / ("sluice-dist-test-" + std::to_string(::getpid()) + "-" + name);
}

TEST(DistIdFile, PublishedIdReachesAWaitingRank) {
  const std::filesystem::path path = temporary_path("publish");
  std::filesystem::remove(path);
  const dd::id_block id = sample_id();
  std::thread rank0([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    dd::publish_id(path, id, 2, "token");
  });
  const dd::id_block got = dd::await_id(path, 2, "token", std::chrono::seconds(10));
  rank0.join();
  EXPECT_EQ(got, id);
  EXPECT_FALSE(std::filesystem::exists(path.string() + ".tmp." + std::to_string(::getpid())));
  std::filesystem::remove(path);
}

TEST(DistIdFile, StaleFileTimesOutNamingTheReason) {
  const std::filesystem::path path = temporary_path("stale");
  dd::publish_id(path, sample_id(), 2, "old-run");
  try {
    (void)dd::await_id(path, 2, "new-run", std::chrono::milliseconds(100), std::chrono::milliseconds(10));
    FAIL() << "a stale id file was accepted";
  } catch (const sluice::invalid_argument& e) {
    EXPECT_EQ(e.parameter(), "SLUICE_DIST_ID_FILE");
    EXPECT_NE(std::string(e.what()).find("stale"), std::string::npos) << e.what();
  }
  std::filesystem::remove(path);
  EXPECT_EQ(parameter_of_error([&] {
              (void)dd::await_id(path, 2, "", std::chrono::milliseconds(30), std::chrono::milliseconds(10));
            }),
            "SLUICE_DIST_ID_FILE");
}

}  // namespace
