// The SVG charts of the HTML report: escaping, scales, ticks, empty data.
#include "autoresearch/log/svg_plot.h"

#include "catch.h"

using namespace ar;

TEST_CASE("svg escape: markup, quotes and control characters; invalid UTF-8 replaced") {
  CHECK(svg::escape("a<b>&\"c'") == "a&lt;b&gt;&amp;&quot;c&#39;");
  CHECK(svg::escape("µs → 2×") == "µs → 2×");
  CHECK(svg::escape("x\xff y") == "x\xEF\xBF\xBD y");
  CHECK(svg::escape("\xE2\x82") == "\xEF\xBF\xBD\xEF\xBF\xBD");   // a cut-off sequence
  CHECK(svg::escape(std::string("a\x01" "b\nc", 5)) == "ab c");
}

TEST_CASE("svg scales: padded linear ranges, decades on a log axis, non-drawable values ignored") {
  svg::Scale s = svg::fit_scale({1.0, 2.0}, false, 0, 100, 0.0);
  CHECK(s.lo == 0);
  CHECK(s.hi > 2.0);
  CHECK(s(0) == Approx(0));
  svg::Scale l = svg::fit_scale({3.0, 250.0, -1.0, 0.0, NAN}, true, 0, 100);
  CHECK(l.lo == Approx(1));
  CHECK(l.hi == Approx(1000));
  CHECK(l(10) == Approx(100.0 / 3));
  svg::Scale one = svg::fit_scale({5.0}, false, 0, 100);
  CHECK(one.lo < 5.0);
  CHECK(one.hi > 5.0);
}

TEST_CASE("svg ticks: round steps, powers of ten, short labels") {
  CHECK(svg::linear_ticks(0, 1, 5) == std::vector<double>{0, 0.2, 0.4, 0.6, 0.8, 1.0});
  CHECK(svg::linear_ticks(0.93, 1.31, 4) == std::vector<double>{1.0, 1.1, 1.2, 1.3});
  CHECK(svg::linear_ticks(1, 1).empty());
  CHECK(svg::log_ticks(1, 1000) == std::vector<double>{1, 10, 100, 1000});
  CHECK(svg::log_ticks(1, 10) == std::vector<double>{1, 2, 5, 10});
  CHECK(svg::tick_text(0) == "0");
  CHECK(svg::tick_text(0.5) == "0.5");
  CHECK(svg::tick_text(1.25) == "1.25");
  CHECK(svg::tick_text(1000) == "1k");
  CHECK(svg::tick_text(3.5e6) == "3.5M");
}

TEST_CASE("svg charts: points drawn where they belong; a chart without data says so") {
  svg::Chart c;
  c.title = "t<1>";
  svg::Series s = svg::Series::markers("line", "#123456", 3, false);
  s.points = {{1, 1, "first & only"}, {2, 4, ""}};
  const std::string out = svg::xy_chart(c, {s});
  CHECK(out.find("<title>t&lt;1&gt;</title>") != std::string::npos);
  CHECK(out.find("<circle") != std::string::npos);
  CHECK(out.find("first &amp; only") != std::string::npos);
  const std::string empty = svg::xy_chart(c, {svg::Series::line("none", "#000")});
  CHECK(empty.find("nothing to plot") != std::string::npos);
  CHECK(empty.find("<circle") == std::string::npos);
  // A log axis does not draw what it cannot place.
  c.y_log = true;
  svg::Series bad = svg::Series::markers("bad", "#000", 3, false);
  bad.points = {{1, -2, ""}, {2, 0, ""}};
  CHECK(svg::xy_chart(c, {bad}).find("nothing to plot") != std::string::npos);

  const std::string bars =
      svg::bar_chart("b", "x", {"start", "best"}, {"#f00", "#00f"}, {{"w<1>", {100.0, 80.0}, {"100 µs", "80 µs"}}});
  CHECK(bars.find("w&lt;1&gt;") != std::string::npos);
  CHECK(std::count(bars.begin(), bars.end(), '\n') == 0);
  const std::string stacked =
      svg::stacked_bars("s", "x", "y", {"keep", "discard"}, {"#0f0", "#999"}, {{"1–3", {1, 2}}, {"4–6", {0, 3}}});
  CHECK(stacked.find("fill=\"#999\"") != std::string::npos);
}
