#include "autoresearch/util/hash.h"

#include "autoresearch/util/errors.h"
#include "catch.h"
#include "unit/fakes/temp_dir.h"
#include "autoresearch/util/fs.h"

using namespace ar;

TEST_CASE("sha256 matches the FIPS 180-2 vectors") {
  CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(sha256_hex(std::string(1'000'000, 'a')) ==
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_CASE("incremental hashing equals one-shot hashing for any split") {
  std::string data;
  for (int i = 0; i < 300; ++i) data += static_cast<char>(i * 7);
  std::string whole = sha256_hex(data);
  for (size_t piece : {1u, 3u, 55u, 56u, 63u, 64u, 65u, 128u, 299u}) {
    Sha256 h;
    for (size_t at = 0; at < data.size(); at += piece) h.update(std::string_view(data).substr(at, piece));
    CHECK(h.hex_digest() == whole);
  }
}

TEST_CASE("sha256_file hashes bytes and names an unreadable path") {
  TempDir dir;
  write_file_atomic(dir / "f", "abc");
  CHECK(sha256_file(dir / "f") == sha256_hex("abc"));
  try {
    sha256_file(dir / "missing");
    FAIL("expected a Fatal");
  } catch (const Fatal& e) {
    CHECK(e.code() == kExitUsage);
    CHECK(std::string(e.what()).find("missing") != std::string::npos);
  }
}
