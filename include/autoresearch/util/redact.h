#pragma once
// Secrets come only from the environment, and must never reach a log, a file or
// a commit. Text that came from outside (an agent command's output, an error an
// endpoint sent back) passes through here before it is written anywhere.
#include <string>

namespace ar {

// Replaces every occurrence of the value of a secret-looking environment
// variable (its name contains KEY, TOKEN, SECRET or PASSWORD; the value is at
// least 8 characters) with "[redacted $NAME]", and key-shaped tokens
// ("sk-...", as providers echo them, masked or not) with "[redacted]".
std::string redact_secrets(std::string text);

}  // namespace ar
