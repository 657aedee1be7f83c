// [log] file rotation: a file past max_file_size is renamed and a new one begun, and no more than
// max_files rotated files are kept.
#include "mqkit/kernel/logging.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "mqkit/kernel/config_document.hpp"

namespace mqkit::kernel {
namespace {

namespace fs = std::filesystem;

plugin::v1::ConfigValues log_section(const std::string& toml) {
  auto document = ConfigDocument::parse(toml, "test.toml");
  EXPECT_TRUE(document.is_ok()) << document.status().to_string();
  auto values = document->section("log", log_schema());
  EXPECT_TRUE(values.is_ok()) << values.status().to_string();
  return *values;
}

class LoggingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("mqkit-logging-test-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    // Back to standard error, so that no later test writes into the removed directory.
    EXPECT_TRUE(configure_logging(log_section("[log]\n")).is_ok());
    fs::remove_all(dir_);
  }
  // Writes `lines` info lines of about 100 bytes each through a component logger.
  static void write_lines(int lines) {
    auto log = logger("rotation-test");
    for (int i = 0; i < lines; ++i) log->info("line {:05d} {}", i, std::string(80, 'x'));
    log->flush();
  }
  std::size_t files_in_dir() const {
    std::size_t count = 0;
    for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir_)) ++count;
    return count;
  }

  fs::path dir_;
};

TEST_F(LoggingTest, RotatesAtMaxFileSizeAndKeepsMaxFiles) {
  const fs::path file = dir_ / "broker.log";
  ASSERT_TRUE(configure_logging(log_section("[log]\nfile = \"" + file.string() +
                                            "\"\nmax_file_size = \"4KiB\"\nmax_files = 3\n"))
                  .is_ok());
  write_lines(400);  // ~40 KB: ten files' worth
  EXPECT_TRUE(fs::exists(file));
  EXPECT_LE(fs::file_size(file), 4096u);
  for (int i = 1; i <= 3; ++i) {
    const fs::path rotated = dir_ / ("broker." + std::to_string(i) + ".log");
    ASSERT_TRUE(fs::exists(rotated)) << rotated;
    EXPECT_LE(fs::file_size(rotated), 4096u);
  }
  EXPECT_EQ(files_in_dir(), 4u);  // the current file and three rotated ones
}

TEST_F(LoggingTest, ZeroMaxFileSizeAppendsToOneFile) {
  const fs::path file = dir_ / "namesrv.log";
  ASSERT_TRUE(configure_logging(log_section("[log]\nfile = \"" + file.string() + "\"\nmax_file_size = 0\n")).is_ok());
  write_lines(100);
  EXPECT_GT(fs::file_size(file), 4096u);
  EXPECT_EQ(files_in_dir(), 1u);
}

TEST_F(LoggingTest, UnopenableFileIsAnErrorNamingIt) {
  const fs::path file = dir_ / "not-a-dir" / "x.log";
  {
    std::FILE* blocker = std::fopen((dir_ / "not-a-dir").c_str(), "w");  // a file where a directory should be
    ASSERT_NE(blocker, nullptr);
    std::fclose(blocker);
  }
  const auto status = configure_logging(log_section("[log]\nfile = \"" + file.string() + "\"\n"));
  ASSERT_FALSE(status.is_ok());
  EXPECT_NE(status.to_string().find(file.string()), std::string::npos) << status.to_string();
}

}  // namespace
}  // namespace mqkit::kernel
