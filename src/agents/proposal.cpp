#include "autoresearch/agents/agent.h"

namespace ar {

long long Proposal::tokens_in() const {
  long long n = 0;
  for (const auto& c : calls) n += c.tokens_in;
  return n;
}

long long Proposal::tokens_out() const {
  long long n = 0;
  for (const auto& c : calls) n += c.tokens_out;
  return n;
}

double Proposal::cost_usd() const {
  double usd = 0;
  for (const auto& c : calls) usd += c.cost_usd;
  return usd;
}

}  // namespace ar
