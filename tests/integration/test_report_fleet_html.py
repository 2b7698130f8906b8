"""The fleet section of report.html in headless Chromium: a fleet run of the example log (4 workers,
every routing policy, per-worker sizes including 'unbounded') renders one line per routing policy
with one point per per-worker size at that policy's hit rate, the pooled bound as a line, the
ceiling as a line at the ceiling, and the table with each policy's rates and load CVs; the page
makes no network request and logs no error. The screenshot is kept under build/artifacts/.

Positions are checked against report.json through the chart's own labelled gridlines, so a line
drawn at the wrong height or with a missing point fails."""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp_browser  # noqa: E402

BIN = os.environ["LTL_BINARY"]
SRC = os.environ["LTL_SOURCE_DIR"]
ARTIFACTS = os.path.join(os.path.dirname(os.path.abspath(BIN)), "artifacts")
SIZES = ["4K", "16K", "64K", "unbounded"]


def skip(msg):
    print("skipped: " + msg)
    sys.exit(77)


def vertices(points):
    return [tuple(float(v) for v in p.split(",")) for p in points.split()]


def y_at(ticks, rate):
    """The y coordinate of a rate, interpolated between the labelled gridlines around it."""
    for (lo, y_lo), (hi, y_hi) in zip(ticks, ticks[1:]):
        if lo - 1e-9 <= rate <= hi + 1e-9:
            return y_lo + (y_hi - y_lo) * (rate - lo) / (hi - lo)
    raise AssertionError("rate %r outside the axis %r" % (rate, ticks))


def main():
    chromium = cdp_browser.find_chromium()
    if not chromium:
        skip("chromium is not installed (scripts/install-deps.sh --test installs it)")
    example = os.path.join(SRC, "examples", "gateway.csv")
    os.makedirs(ARTIFACTS, exist_ok=True)
    prefix = os.path.join(ARTIFACTS, "report-fleet")
    res = subprocess.run([BIN, "profile", example, "-o", prefix, "--quiet", "--salt-file",
                          prefix + ".salt", "--workers", "4", "--routing", "all",
                          "--per-worker-capacity", ",".join(SIZES), "--model", "llama-3.1-8b"],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    with open(prefix + ".json", encoding="utf-8") as f:
        fleet = json.load(f)["fleet"]
    policies = [p["policy"] for p in fleet["policies"]]
    assert policies == ["round-robin", "random", "session", "prefix-hash", "prefix-aware",
                        "kv-cost", "least-loaded"], policies
    n_sizes = len(fleet["capacities"])
    assert n_sizes == len(SIZES), fleet["capacities"]

    url = "file://" + os.path.abspath(prefix + ".html")
    with cdp_browser.Browser(chromium) as b:
        b.open(url)
        others = [u for u in b.requested_urls() if u != url]
        assert not others, "the page requested %s" % others
        errors = b.console_errors()
        assert not errors, "console errors: %s" % errors
        assert b.evaluate("document.querySelectorAll('#fleet-chart').length") == 1
        assert b.evaluate("!!document.querySelector('nav.toc a[href=\"#fleet\"]')")

        ticks = b.evaluate("""[...document.querySelectorAll('#fleet-chart .axis.y text')]
            .filter(t => /^\\d+%$/.test(t.textContent))
            .map(t => [parseInt(t.textContent) / 100, parseFloat(t.getAttribute('y'))])""")
        ticks.sort()
        assert len(ticks) >= 3, ticks

        # One line per policy, in report order, each with a point per per-worker size at its rate.
        lines = b.evaluate("""[...document.querySelectorAll('#fleet-chart polyline.fleet-series')]
            .map(l => [l.getAttribute('data-policy'), l.getAttribute('points')])""")
        assert [name for name, _ in lines] == policies, lines
        xs = None
        for (name, pts), pol in zip(lines, fleet["policies"]):
            vs = vertices(pts)
            assert len(vs) == n_sizes, (name, len(vs))
            if xs is None:
                xs = [x for x, _ in vs]
                assert xs == sorted(xs) and len(set(xs)) == n_sizes, xs  # log axis, left to right
            assert [x for x, _ in vs] == xs, name
            for (_, y), point in zip(vs, pol["points"]):
                assert abs(y - y_at(ticks, point["hit_rate"])) < 0.15, (name, y, point["hit_rate"])
        # Every point is also drawn as a marker (one circle per policy and size, plus pooled).
        circles = b.evaluate("document.querySelectorAll('#fleet-chart circle').length")
        assert circles == (len(policies) + 1) * n_sizes, circles

        # The pooled bound: a line through the pooled cache's rate at each size.
        pooled = b.evaluate("document.querySelector('#fleet-chart polyline.fleet-pooled')"
                            ".getAttribute('points')")
        pv = vertices(pooled)
        assert [x for x, _ in pv] == xs, pv
        for (_, y), cap in zip(pv, fleet["capacities"]):
            assert abs(y - y_at(ticks, cap["pooled_hit_rate"])) < 0.15, (y, cap)
        # The ceiling: a horizontal line at the unbounded single cache's rate.
        y1, y2 = b.evaluate("(() => { const l = document.querySelector('#fleet-chart line.ceiling');"
                            " return [parseFloat(l.getAttribute('y1')),"
                            " parseFloat(l.getAttribute('y2'))]; })()")
        assert y1 == y2 and abs(y1 - y_at(ticks, fleet["ceiling"]["hit_rate"])) < 0.15, (y1, y2)
        # Bounds hold: no policy above the pooled cache of the same total size, none above the
        # ceiling; with unbounded workers, pooled equals the ceiling.
        for pol in fleet["policies"]:
            for point, cap in zip(pol["points"], fleet["capacities"]):
                assert point["hit_rate"] <= fleet["ceiling"]["hit_rate"] + 1e-12
        assert fleet["capacities"][-1]["unbounded"]
        assert fleet["capacities"][-1]["pooled_hit_rate"] == fleet["ceiling"]["hit_rate"]
        labels = b.evaluate("[...document.querySelectorAll('#fleet-chart .axis.x text')]"
                            ".map(t => t.textContent)")
        assert labels[:n_sizes] == ["4K", "16K", "64K", "∞"], labels

        # The table: a row per policy with its rates and the load CVs at the largest bounded size.
        rows = b.evaluate("""[...document.querySelectorAll('#fleet-table tbody tr')]
            .map(r => [...r.cells].map(c => c.textContent))""")
        assert len(rows) == len(policies) + 2, rows  # + pooled + ceiling
        last_bounded = max(i for i, c in enumerate(fleet["capacities"]) if not c["unbounded"])
        for row, pol in zip(rows, fleet["policies"]):
            assert row[0] == pol["policy"], row
            assert row[1:1 + n_sizes] == ["%.1f%%" % (100 * p["hit_rate"]) for p in pol["points"]]
            at = pol["points"][last_bounded]
            assert row[1 + n_sizes:] == ["%.2f" % at["requests_cv"],
                                         "%.2f" % at["uncached_prefill_tokens_cv"]], row
        assert rows[-2][0].startswith("pooled") and rows[-1][0].startswith("ceiling")
        assert rows[-2][1:1 + n_sizes] == ["%.1f%%" % (100 * c["pooled_hit_rate"])
                                           for c in fleet["capacities"]]
        headers = b.evaluate("[...document.querySelectorAll('#fleet-table thead th')]"
                             ".map(t => t.textContent)")
        assert "GiB" in headers[1] or "MiB" in headers[1], headers  # --model: sizes in memory too
        note = b.evaluate("document.querySelector('#fleet .note').textContent")
        by_name = {p["policy"]: p for p in fleet["policies"]}
        fallback = by_name["session"]["fallback_requests"]
        if fallback:
            assert "session: {:,} of".format(fallback) in note, note
        else:
            assert "carried no session id" not in note, note
        guard = by_name["prefix-aware"]["points"][last_bounded]["guard_triggers"]
        assert "rerouted {:,} requests".format(guard) in note, note

        shot = os.path.join(ARTIFACTS, "report-fleet.png")
        width, height = b.screenshot(shot)
        with open(shot, "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    print("ok: fleet chart with %d policies x %d sizes, pooled and ceiling lines; screenshot %s "
          "(%dx%d)" % (len(policies), n_sizes, shot, width, height))


if __name__ == "__main__":
    main()
