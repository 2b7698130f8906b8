"""Choosing a router (docs/FLEET.md "Choosing a router"): `--router-sweep NAME.KEY=V1,V2` runs the
router once more per value alongside the --routing ones. Each sweep entry's --routes-out routes are
compared with a separate run of that router alone with the value given by --router-param (and the
default run for the default value): the same routes, request by request. report.json marks the
entries (fleet.policies[].sweep) and ranks every entry at each per-worker size (fleet.ranking):
checked here against the criteria written again from the docs (hit rate, then requests CV), with
the pooled bound and ceiling as reference rows and the terminal's best-value line. Named routers
sweep their own parameters (sglang-cache-aware.cache_threshold, aibrix-prefix's imbalance count)
under --engine vllm, swept without being in --routing: the same check against single runs, the
engine pool's waiting p50/p95 in every ranked row, each named router's view once on the page. A bad
sweep key or router, or a parameter that shapes the view ingest computes, exits 2 naming what is
valid."""
import html
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
import ltl_test_env as env  # noqa: E402

SRC = env.SOURCE_DIR
GATEWAY = os.path.join(SRC, "examples", "gateway.csv")
ROUTER = "vllm-router-prefix"
KEY = "prefix_min_match_length"


class RouterSweep(unittest.TestCase):
    def setUp(self):
        self.dir = env.tempdir()

    def profile(self, name, extra):
        routes = os.path.join(self.dir, name + ".jsonl")
        r = env.run(["profile", GATEWAY, "--workers", "4", "--routes-out", routes,
                     "-o", os.path.join(self.dir, name)] + extra)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(routes, encoding="utf-8") as f:
            got = [json.loads(line) for line in f]
        with open(os.path.join(self.dir, name + ".json"), encoding="utf-8") as f:
            report = json.load(f)
        stdout = r.stdout.decode() if isinstance(r.stdout, bytes) else r.stdout
        return got, report["fleet"], stdout

    def test_sweep_entries_route_as_their_values_and_are_ranked(self):
        got, fleet, out = self.profile("sweep", ["--router-sweep", f"{ROUTER}.{KEY}=0,256"])
        pols = fleet["policies"]
        swept = [p for p in pols if "sweep" in p]
        self.assertEqual([p["sweep"] for p in swept],
                         [{"key": KEY, "value": 0}, {"key": KEY, "value": 256}])
        self.assertTrue(all(p["policy"] == ROUTER for p in swept))
        self.assertEqual([p["router"]["params"][KEY] for p in swept], [0, 256])
        # The --routing entries (all generic policies by default) come first, unmarked.
        self.assertEqual(pols[-2:], swept)
        self.assertTrue(all("sweep" not in p for p in pols[:-2]))
        for label in (f"{ROUTER} ({KEY}=0)", f"{ROUTER} ({KEY}=256)"):
            self.assertIn(label, out)

        # Routes of each sweep entry = a run of the router alone with that value.
        caps = [c["per_worker_capacity_blocks"] for c in fleet["capacities"]]
        for value, extra in ((0, []), (256, ["--router-param", f"{ROUTER}.{KEY}=256"])):
            mine = [x for x in got if x.get("sweep") == {"key": KEY, "value": value}]
            self.assertTrue(all(x["policy"] == ROUTER for x in mine))
            alone, _, _ = self.profile(f"alone{value}", ["--routing", ROUTER] + extra)
            self.assertEqual(len(mine), len(alone))
            self.assertEqual([(x["per_worker_capacity_blocks"], x["request"], x["worker"])
                              for x in mine],
                             [(x["per_worker_capacity_blocks"], x["request"], x["worker"])
                              for x in alone])
            self.assertEqual(sorted({x["per_worker_capacity_blocks"] for x in mine},
                                    key=lambda c: (c is None, c)),
                             sorted(set(caps), key=lambda c: (c is None, c)))
            print(f"{KEY}={value}: {len(mine)} of {len(alone)} routes identical")
        self.assertTrue(all("sweep" not in x for x in got if x["policy"] != ROUTER))

        # The ranking: one entry per size; every policy entry once, ordered by the criteria.
        ranking = fleet["ranking"]
        self.assertEqual(len(ranking), len(fleet["capacities"]))
        for c, at in enumerate(ranking):
            self.assertEqual(at["per_worker_capacity_blocks"], caps[c])
            rows = at["rows"]
            policies = [r for r in rows if r["kind"] == "policy"]
            self.assertEqual([r["kind"] for r in rows[len(policies):]], ["pooled", "ceiling"])
            self.assertEqual(len(policies), len(pols))
            self.assertEqual(len({r["label"] for r in policies}), len(pols))
            # Hit rate and CVs as in fleet.policies[].points at that size.
            by_key = {}
            for p in pols:
                pt = p["points"][c]
                by_key.setdefault((p["policy"], json.dumps(p.get("sweep"))), []).append(
                    (pt["hit_rate"], pt["requests_cv"]))
            for r in policies:
                want = by_key[(r["policy"], json.dumps(r.get("sweep")))]
                self.assertIn((r["hit_rate"], r["requests_cv"]), want)
            keys = [(-r["hit_rate"], r["requests_cv"]) for r in policies]
            self.assertEqual(keys, sorted(keys))
            ranks = [r["rank"] for r in policies]
            for i in range(len(policies)):
                want = ranks[i - 1] if i and keys[i] == keys[i - 1] else i + 1
                self.assertEqual(ranks[i], want)
            self.assertEqual(rows[-2]["hit_rate"], fleet["capacities"][c]["pooled_hit_rate"])
            self.assertEqual(rows[-1]["hit_rate"], fleet["ceiling"]["hit_rate"])
            self.assertTrue(all(r["waiting_p95_s"] is None for r in rows))
            rate = at["ttft_prefill_rate_tokens_per_s"]
            for r in rows:
                self.assertAlmostEqual(r["ttft_estimate_s"],
                                       r["uncached_prefill_tokens_per_request"] / rate)
            # The sweep's best value: the first of its entries in rank order (and those tied).
            mine = [r for r in policies if r.get("sweep")]
            best = [r["sweep"]["value"] for r in mine
                    if (-r["hit_rate"], r["requests_cv"]) ==
                    (-mine[0]["hit_rate"], mine[0]["requests_cv"])]
            self.assertEqual(at["sweep_best"],
                             [{"router": ROUTER, "key": KEY, "best_values": best}])
        self.assertIn(f"sweep {ROUTER}.{KEY}: best ", out)
        self.assertIn("router ranking at ", out)
        self.assertIn("TTFT estimate = mean uncached prefill tokens per measured request", out)

    def test_named_router_sweeps_with_the_engine_pool(self):
        sweeps = {("sglang-cache-aware", "cache_threshold"): [0.3, 0.5, 0.7],
                  ("aibrix-prefix", "pod_running_request_imbalance_abs_count"): [4, 8, 16]}
        common = ["--engine", "vllm", "--per-worker-capacity-blocks", "96,512"]
        args = ["--routing", "round-robin,dynamo-kv"] + common
        for (router, key), values in sweeps.items():
            args += ["--router-sweep", f"{router}.{key}=" + ",".join(str(v) for v in values)]
        got, fleet, out = self.profile("named", args)
        pols = fleet["policies"]
        self.assertEqual([p["policy"] for p in pols],
                         ["round-robin", "dynamo-kv"] + ["sglang-cache-aware"] * 3
                         + ["aibrix-prefix"] * 3)
        for p in pols[2:]:
            # Swept alone, each still routes on its own view of the text (ingest computed it).
            self.assertEqual(p["router"]["requests_without_text"], 0, p["policy"])
            self.assertEqual(p["router"]["params"][p["sweep"]["key"]], p["sweep"]["value"])

        for (router, key), values in sweeps.items():
            for value in values:
                mine = [x for x in got if x["policy"] == router
                        and x.get("sweep") == {"key": key, "value": value}]
                alone, _, _ = self.profile(
                    f"alone-{router}-{value}",
                    ["--routing", router, "--router-param", f"{router}.{key}={value}"] + common)
                self.assertGreater(len(alone), 0)
                self.assertEqual([(x["per_worker_capacity_blocks"], x["request"], x["worker"])
                                  for x in mine],
                                 [(x["per_worker_capacity_blocks"], x["request"], x["worker"])
                                  for x in alone])
                print(f"{router}.{key}={value}: {len(mine)} of {len(alone)} routes identical")

        views = {p["policy"]: p["router"]["view"] for p in pols if "router" in p}
        self.assertEqual(set(views), {"dynamo-kv", "sglang-cache-aware", "aibrix-prefix"})
        for c, at in enumerate(fleet["ranking"]):
            rows = at["rows"]
            policies = [r for r in rows if r["kind"] == "policy"]
            self.assertEqual(len(policies), len(pols))
            for r in policies:
                # The engine pool's waiting at that size, as in fleet.policies[].points.
                pts = [p["points"][c] for p in pols if p["policy"] == r["policy"]
                       and p.get("sweep") == r.get("sweep")]
                self.assertEqual(len(pts), 1)
                self.assertEqual(r["waiting_p50_s"], pts[0]["waiting_p50_s"])
                self.assertEqual(r["waiting_p95_s"], pts[0]["waiting_p95_s"])
                self.assertLessEqual(r["waiting_p50_s"], r["waiting_p95_s"])
                self.assertEqual(r.get("view"), views.get(r["policy"]))
            keys = [(-r["hit_rate"], r["requests_cv"], r["waiting_p95_s"]) for r in policies]
            self.assertEqual(keys, sorted(keys))
            rate = at["ttft_prefill_rate_tokens_per_s"]
            for r in policies:
                self.assertAlmostEqual(r["ttft_estimate_s"],
                                       r["uncached_prefill_tokens_per_request"] / rate
                                       + r["waiting_p50_s"])
            self.assertEqual([(b["router"], b["key"]) for b in at["sweep_best"]], list(sweeps))
        self.assertIn("wait p95", out)
        for (router, key) in sweeps:
            self.assertIn(f"sweep {router}.{key}: best ", out)
        with open(os.path.join(self.dir, "named.html"), encoding="utf-8") as f:
            page = f.read()
        section = page[page.index('<section id="fleet-ranking">'):]
        section = section[:section.index("</section>")]
        self.assertEqual(section.count('<table class="fleet-ranking-table"'), 2)
        for name, view in views.items():  # escaped as the report escapes (' as &#39;)
            view = html.escape(view, quote=True).replace("&#x27;", "&#39;")
            self.assertEqual(section.count(f"<li><strong>{name}</strong>: {view}</li>"), 1, name)

    def test_no_sweep_leaves_policies_unmarked(self):
        _, fleet, out = self.profile("plain", ["--routing", "round-robin,prefix-aware"])
        self.assertTrue(all("sweep" not in p for p in fleet["policies"]))
        self.assertTrue(all(at["sweep_best"] == [] for at in fleet["ranking"]))
        self.assertNotIn("\n  sweep ", out)

    def test_bad_sweeps_exit_2_naming_what_is_valid(self):
        base = ["profile", GATEWAY, "--workers", "4", "-o", os.path.join(self.dir, "rep")]
        r = env.run(base + ["--router-sweep", f"{ROUTER}.chunk_size=64,128"])
        self.assertEqual(r.returncode, 2)
        err = r.stderr.decode() if isinstance(r.stderr, bytes) else r.stderr
        self.assertIn(f"--router-sweep: unknown parameter 'chunk_size' of {ROUTER} (valid: "
                      f"{KEY}, request_stats_window)", err)
        r = env.run(base + ["--router-sweep", "round-robin.k=1,2"])
        self.assertEqual(r.returncode, 2)
        err = r.stderr.decode() if isinstance(r.stderr, bytes) else r.stderr
        self.assertIn("--router-sweep: unknown router 'round-robin' (routers with parameters: ",
                      err)
        self.assertIn(f"{ROUTER} ({KEY}, request_stats_window)", err)
        r = env.run(base + ["--router-sweep", f"{ROUTER}.{KEY}=1,x"])
        self.assertEqual(r.returncode, 2)
        r = env.run(base + ["--router-sweep", "aibrix-prefix.block_size=4,8"])
        self.assertEqual(r.returncode, 2)
        err = r.stderr.decode() if isinstance(r.stderr, bytes) else r.stderr
        self.assertIn("--router-param aibrix-prefix.block_size=VALUE", err)
        r = env.run(["profile", GATEWAY, "--router-sweep", f"{ROUTER}.{KEY}=1",
                     "-o", os.path.join(self.dir, "rep")])
        self.assertEqual(r.returncode, 2)  # needs --workers


if __name__ == "__main__":
    unittest.main()
