#pragma once
#include <filesystem>
#include <string>

namespace ar {

// Whole-file read; throws ar::Fatal(kExitUsage) naming the path on failure.
std::string read_file(const std::filesystem::path& path);
// Write to a temp file beside it, fsync, rename: readers never see half a file.
void write_file_atomic(const std::filesystem::path& path, const std::string& data);
// Appends one line (adds '\n'), then fflush + fsync. Throws Fatal(kExitInfrastructure)
// when the disk is full or the write fails: the log must never silently lose a line.
void append_line_durable(const std::filesystem::path& path, const std::string& line);

}  // namespace ar
