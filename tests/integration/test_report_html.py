"""report.html of the example log in headless Chromium: no network request, no console error, the
charts hold the expected number of points/bars, and a full-page screenshot (plus a printed PDF) is
kept under build/artifacts/ for CI.

Uses examples/gateway.csv when the repository has it, else a generated bailian trace (which has
conversations, so the across/same areas are drawn)."""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp_browser  # noqa: E402
import trace_gen  # noqa: E402
import ltl_test_env as env  # noqa: E402

BIN = os.environ["LTL_BINARY"]
SRC = os.environ["LTL_SOURCE_DIR"]
ARTIFACTS = os.path.join(os.path.dirname(os.path.abspath(BIN)), "artifacts")


def skip(msg):
    print("skipped: " + msg)
    sys.exit(77)


def count_vertices(points):
    return len(re.findall(r"-?[\d.]+,-?[\d.]+", points))


def main():
    chromium = cdp_browser.find_chromium()
    if not chromium:
        skip("chromium is not installed (scripts/install-deps.sh --test installs it)")
    os.makedirs(ARTIFACTS, exist_ok=True)
    example = os.path.join(SRC, "examples", "gateway.csv")
    if os.path.exists(example):
        args = [example, "--salt-file", os.path.join(ARTIFACTS, "report.salt")]
    else:
        tmp = env.tempdir(prefix="ltl-html-")
        example = os.path.join(tmp, "example-bailian.jsonl")
        trace_gen.write_jsonl(example, trace_gen.bailian_trace(), ["{not json"])
        args = [example, "--capacity", "256,1K,4K,16K"]
    prefix = os.path.join(ARTIFACTS, "report")
    res = subprocess.run([BIN, "profile", *args, "-o", prefix], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    with open(prefix + ".json", encoding="utf-8") as f:
        rep = json.load(f)
    html_path = os.path.abspath(prefix + ".html")
    url = "file://" + html_path

    with cdp_browser.Browser(chromium) as b:
        b.open(url)
        # No network: the only request is the page itself.
        others = [u for u in b.requested_urls() if u != url]
        assert not others, "the page requested %s" % others
        errors = b.console_errors()
        assert not errors, "console errors: %s" % errors
        assert b.evaluate("document.querySelectorAll('script, img, iframe, link, object').length") == 0

        # Capacity curve: 2 vertices per dense point plus the two axis ends.
        pts = b.evaluate("document.querySelector('#capacity-chart polyline.series-lru')"
                         ".getAttribute('points')")
        assert count_vertices(pts) == 2 * len(rep["dense_curve"]) + 2, (count_vertices(pts),
                                                                         len(rep["dense_curve"]))
        asked = [r for r in rep["curve"] if r["policy"] == "lru" and r["capacity_tokens"] > 0]
        assert b.evaluate("document.querySelectorAll('#capacity-chart circle.asked-point').length") \
            == len(asked)
        assert b.evaluate("document.querySelectorAll('#capacity-chart .knee-point').length") == \
            (1 if rep["capacity_knee"]["found"] else 0)
        split = rep["replay"]["conversations_known"]
        for cls in ("area-across", "area-same"):
            n = b.evaluate("document.querySelectorAll('#capacity-chart polygon.%s').length" % cls)
            assert n == (1 if split else 0), (cls, n)
        # The ceiling line sits at the ceiling: its y matches the y axis' labelled gridlines.
        ceiling_text = b.evaluate("document.querySelector('#capacity-chart .ceiling-label').textContent")
        assert ceiling_text == "ceiling %.1f%%" % (100 * rep["ceiling"]["hit_rate"]), ceiling_text
        y_of = b.evaluate("""(() => {
            const out = {};
            for (const t of document.querySelectorAll('#capacity-chart .axis.y text'))
              if (/^\\d+%$/.test(t.textContent)) out[t.textContent] = parseFloat(t.getAttribute('y'));
            out.ceiling = parseFloat(document.querySelector('#capacity-chart line.ceiling').getAttribute('y1'));
            return out; })()""")
        # Interpolate between the two labelled gridlines around the ceiling (coordinates carry one
        # decimal, so extrapolating from distant gridlines would magnify their rounding).
        ticks = sorted((int(k[:-1]) / 100.0, v) for k, v in y_of.items() if k.endswith("%"))
        c = rep["ceiling"]["hit_rate"]
        (lo, y_lo), (hi, y_hi) = next((a, b) for a, b in zip(ticks, ticks[1:]) if a[0] <= c <= b[0])
        expect = y_lo + (y_hi - y_lo) * (c - lo) / (hi - lo)
        assert abs(y_of["ceiling"] - expect) < 0.15, (y_of["ceiling"], expect)

        # Histograms: one bar per bin from the first non-empty one.
        def bins_shown(hist):
            first = 0
            while first + 1 < len(hist) and hist[first]["count"] == 0:
                first += 1
            return len(hist) - first
        d = rep["distributions"]
        for chart, hist in (("hist-input", d["input_tokens_histogram"]),
                            ("hist-output", d["output_tokens_histogram"]),
                            ("hist-interarrival", d["inter_arrival_ms_histogram"])):
            n = b.evaluate("document.querySelectorAll('#%s rect.bar').length" % chart)
            assert n == bins_shown(hist), (chart, n, bins_shown(hist))
            total = b.evaluate("[...document.querySelectorAll('#%s rect.bar title')]"
                               ".map(t => parseInt(t.textContent.split(': ')[1].replace(/,/g, '')))"
                               ".reduce((a, b) => a + b, 0)" % chart)
            assert total == sum(x["count"] for x in hist), (chart, total)
        assert b.evaluate("document.querySelectorAll('#qps-chart rect.bar').length") == \
            len(d["qps_over_time"]["qps"])

        # Leaderboards: one row per entry, share bars as wide as the shares.
        for table, key in (("top-by-volume", "by_volume"), ("top-by-count", "by_count")):
            widths = b.evaluate("[...document.querySelectorAll('#%s .sharebar > span')]"
                                ".map(s => parseFloat(s.style.width))" % table)
            assert len(widths) == len(rep["prefixes"][key]), (table, len(widths))
            for w, row in zip(widths, rep["prefixes"][key]):
                assert abs(w - min(100.0, 100 * row["share"])) < 0.06, (w, row["share"])
        # Headline numbers.
        cards = b.evaluate("[...document.querySelectorAll('.card .value')].map(e => e.textContent)")
        assert cards[0] == "%.1f%%" % (100 * rep["ceiling"]["hit_rate"]), cards
        # Skipped rows are listed with their reason.
        if rep["counts"]["skipped"]:
            txt = b.evaluate("document.querySelector('#skipped').textContent")
            for reason in rep["counts"]["skipped_by_reason"]:
                assert reason in txt, reason

        shot = os.path.join(ARTIFACTS, "report.png")
        width, height = b.screenshot(shot)
        with open(shot, "rb") as f:
            head = f.read(24)
        assert head[:8] == b"\x89PNG\r\n\x1a\n"
        assert int.from_bytes(head[16:20], "big") == width
        assert int.from_bytes(head[20:24], "big") == height > 1500
        b.print_pdf(os.path.join(ARTIFACTS, "report.pdf"))
    print("ok: %s rendered without network or errors; screenshot %s (%dx%d)" %
          (os.path.basename(example), shot, width, height))


if __name__ == "__main__":
    main()
