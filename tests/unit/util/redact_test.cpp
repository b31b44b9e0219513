#include <cstdlib>

#include "autoresearch/util/redact.h"
#include "catch.h"

using namespace ar;

TEST_CASE("values of secret-looking environment variables never pass through") {
  setenv("AR_TEST_API_KEY", "sk-test-0123456789abcdef", 1);
  setenv("AR_TEST_PLAIN", "sk-test-0123456789abcdef-but-not-secret-name", 1);
  setenv("AR_TEST_TOKEN", "short", 1);   // too short to be a credential worth the false positives
  std::string out = redact_secrets("auth: Bearer sk-test-0123456789abcdef; short stays");
  CHECK(out.find("sk-test-0123456789abcdef") == std::string::npos);
  CHECK(out.find("[redacted $AR_TEST_API_KEY]") != std::string::npos);
  CHECK(out.find("short stays") != std::string::npos);
  CHECK(redact_secrets("") == "");
  CHECK(redact_secrets("Incorrect API key provided: sk-proj-****abcd.") == "Incorrect API key provided: [redacted].");
  CHECK(redact_secrets("task-scheduler") == "task-scheduler");   // "sk-" inside a word is not a key
  unsetenv("AR_TEST_API_KEY");
  unsetenv("AR_TEST_PLAIN");
  unsetenv("AR_TEST_TOKEN");
}
