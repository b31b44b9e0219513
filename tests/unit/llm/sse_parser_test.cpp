#include "llm/sse_parser.h"

#include <string>
#include <vector>

#include "catch.h"

namespace ar {
namespace {

std::vector<SseEvent> parse(const std::string& bytes, size_t piece) {
  SseParser parser;
  std::vector<SseEvent> events;
  auto collect = [&](const SseEvent& e) { events.push_back(e); };
  for (size_t at = 0; at < bytes.size(); at += piece) parser.feed(std::string_view(bytes).substr(at, piece), collect);
  parser.finish(collect);
  return events;
}

TEST_CASE("sse: events end at a blank line, whatever the chunk boundaries", "[llm][sse]") {
  const std::string stream =
      "event: message_start\ndata: {\"a\":1}\n\n"
      ": a comment line\n"
      "event: ping\ndata: {\"type\": \"ping\"}\n\n"
      "data: [DONE]\n\n";
  for (size_t piece : {1, 2, 3, 7, 1000}) {
    auto events = parse(stream, piece);
    REQUIRE(events.size() == 3);
    CHECK(events[0].event == "message_start");
    CHECK(events[0].data == "{\"a\":1}");
    CHECK(events[1].event == "ping");
    CHECK(events[2].event.empty());
    CHECK(events[2].data == "[DONE]");
  }
}

TEST_CASE("sse: CRLF and lone CR end lines too, even split between chunks", "[llm][sse]") {
  for (const std::string eol : {"\r\n", "\r"}) {
    std::string stream = "event: x" + eol + "data: one" + eol + eol + "data: two" + eol + eol;
    for (size_t piece : {1, 2, 5}) {
      auto events = parse(stream, piece);
      REQUIRE(events.size() == 2);
      CHECK(events[0].event == "x");
      CHECK(events[0].data == "one");
      CHECK(events[1].data == "two");
    }
  }
}

TEST_CASE("sse: several data lines join with newlines; one leading space is dropped", "[llm][sse]") {
  auto events = parse("data: a\ndata:b\ndata:  c\nid: 7\nretry: 10\n\n", 1);
  REQUIRE(events.size() == 1);
  CHECK(events[0].data == "a\nb\n c");
}

TEST_CASE("sse: the end of the stream dispatches an event without its blank line", "[llm][sse]") {
  auto events = parse("data: {\"x\":1}\n\ndata: last", 4);
  REQUIRE(events.size() == 2);
  CHECK(events[1].data == "last");
}

TEST_CASE("sse: an event with no data is not dispatched", "[llm][sse]") {
  auto events = parse("event: lonely\n\n: only a comment\n\n", 1);
  CHECK(events.empty());
}

}  // namespace
}  // namespace ar
