"""Profiling on a Dask cluster (issue 20 item 4, issue 34 item 2): each input file, or each piece
of one (a plain CSV or JSON-lines gateway log is cut at record boundaries into pieces of about
--piece-size, 64 MiB by default, found by one scan on the driver: read/record_boundaries.h), is
hashed into a shard by a task on a worker (llmtrafficlens.hash_shard: the C++ hash-shard, one
thread per task unless threads= says otherwise: a worker runs as many tasks at once as it has
threads, by default its cores), the shards come back to the driver as the shard codec's bytes
or, with shard_dir on a file system the workers share, are written there and only their paths
come back. The driver
merges each shard as soon as it and every earlier file's (or piece's) shard have arrived, the
pieces of a file joined into that file (its rows, line numbers, skips and per-file time steps as
the file read whole gives them; a piece whose end proves not to be a record boundary, after a
malformed CSV quote, has the driver read the rest of that file from that piece's start as one
task, the earlier pieces, which ended cleanly, being right)
(llmtrafficlens.replay_stream: decoded and its block ids interned in C++ without the GIL while
later tasks still run; a later file's shard that arrives first waits as bytes), then replays, and
gets the report `profile FILES...` gives in one process. The salt travels as a path: the driver
creates the salt file if it is missing, the tasks get its absolute path and the workers read it
(so it must be on a shared file system, mode 0600); its content is never in a task's arguments, a
result or a log. A worker that dies is replaced by its nanny and Dask reruns its task: a shard
depends only on its file and the salt, so the report is unchanged. Progress (shards done / total,
bytes) goes to stderr, then the phases' wall times: the map (hash-shard tasks until the last shard
is back and merged on the driver, with the workers' peak RSS) and the merge+replay on the driver
after it (with the driver's RSS at the start, before it, and its peak), then the driver's time
spent merging shards during the map: the figures of docs/PERFORMANCE.md "Dask"
(bench/run-dask-bench.sh). With --exact-ceiling (exact_ceiling=True), each hash-shard task also
cuts its file's block accesses into P pieces by block id, which stay on the workers; once the
driver's trace is built, P reduce tasks find each block's first use by request rank, and the
ceiling, its across/same-conversation split and the cold ceiling come from that shuffle (exact
with --sample-rate, while the curve is sampled; docs/SCALE.md "The exact ceiling on a cluster").

    python3 -m llmtrafficlens.dask --local 2 -o report logs/*.jsonl.zst
    python3 -m llmtrafficlens.dask --scheduler tcp://host:8786 -o report --salt-file /shared/.ltl-salt \\
        --shard-dir /shared/shards 's3-mirror/2025-07-*/*.csv.gz' --capacity 1M,4M
    python3 -m llmtrafficlens.dask --scheduler tcp://host:8786 --sample-rate 0.01 --exact-ceiling \
        --salt-file /shared/.ltl-salt 'logs/*.csv.gz'
"""
import argparse
import concurrent.futures
import os
import platform
import resource
import sys
import time
import uuid

import llmtrafficlens as ltl
from llmtrafficlens import _core

__all__ = ["profile", "split_options", "local_cluster", "parse_piece_size", "main"]


def _dashed(key):
    return key.replace("_", "-")


def split_options(options):
    """Splits profile() keyword options into those of hash-shard (run on the workers) and those of
    the replay (profile on the driver). An option both commands accept (--format, --block-size,
    --tokenizer, --max-skip-share, ...) goes to both, so the replay checks what the shards were
    cut with; one neither accepts is left to the replay, whose parser names it in its error."""
    hash_names = {n for n, _ in _core.command_options("hash-shard")}
    profile_names = {n for n, _ in _core.command_options("profile")}
    worker, driver = {}, {}
    for key, value in options.items():
        name = _dashed(key)
        if name in ("output", "quiet"):
            raise TypeError(f"{key}= is set by llmtrafficlens.dask.profile")
        if name in hash_names:
            worker[key] = value
        if name in profile_names or name not in hash_names:
            driver[key] = value
    return worker, driver


def _hash_task(index, path, salt_file, options, shard_dir, task_hook, partitions=0, piece=None,
               file_index=None):
    """One task: (index, the shard of one file, or of one piece of it, as the codec's bytes or
    its path under shard_dir, the bytes read). Bytes, not a Shard: Dask ships them as they are,
    and the driver decodes them in C++ without the GIL. piece: one of _core.plan_pieces(path)
    (begin, end, first line, piece index, last); the shard is then None when the piece's end
    proved not to be a record boundary (a malformed CSV quote before it), and the driver reads
    the rest of the file from the piece's start as one piece instead (_Arrivals). With partitions > 0 (the exact ceiling), (that, the block accesses cut
    into `partitions` bytes by block id): the map of the shuffle, which stays on the worker (_head
    and _part take the pieces apart there)."""
    if task_hook is not None:
        task_hook(index if file_index is None else file_index, path)
    # The worker's thread keeps the read's workers (their memos, buffers) for its next task of
    # the same options: built and freed per task they cost about 0.1 s each (GatewayReadState).
    if piece is None:
        shard = ltl.hash_shard(path, salt_file=salt_file, _keep_workers=True, **options)
        nbytes = None
    else:
        opts = dict(options, salt_file=salt_file)
        opts.pop("quiet", None)
        shard, _ = ltl._call(_core.hash_piece, os.fspath(path), opts, tuple(piece), True)
        nbytes = piece[1] - piece[0]
        if shard is None:
            if partitions:
                err = ltl.Error(f"llmtrafficlens: {path}: a piece's end at byte {piece[1]} is not "
                                "a record boundary (a malformed CSV quote before it); read this "
                                "file whole (--piece-size file)")
                err.exit_code = 2
                raise err
            return index, None, nbytes
    parts = _core.first_use_map(shard, index, partitions) if partitions else None
    if nbytes is None:
        nbytes = shard.bytes
    if shard_dir is None:
        head = index, shard.to_bytes(), nbytes
    else:
        out = os.path.join(shard_dir, f"{index:06d}.ltlshard")
        shard.save(out)
        head = index, out, nbytes
    return head if parts is None else (head, parts)


def _head(result):
    """What the driver merges of a map task's result (the shard)."""
    return result[0]


def _part(result, partition):
    """One partition's piece of a map task's block accesses."""
    return result[1][partition]


def _first_use_reduce(partition, keys, *pieces):
    """The reduce of one partition (a piece of every file, in any order): (across accesses, first
    misses) as bytes; the first stay on the worker for _first_use_across."""
    return _core.first_use_reduce(list(pieces), keys)


def _first_misses(reduced):
    return reduced[1]


def _merge_misses(a, b):
    return _core.first_use_merge_misses(a, b)


def _first_use_across(reduced, keys, cuts):
    return _core.first_use_across(reduced[0], keys, cuts)


class _Shuffle:
    """The exact unbounded figures by a shuffle by block id (hash/first_use.h, docs/SCALE.md "The
    exact ceiling on a cluster"): called by the driver's replay once its trace is built, with the
    trace's first-use keys (a few bytes per request). Every file's map task cut its block
    accesses into `partitions` pieces (self.pieces[file][partition], on the workers); a reduce
    task per partition gathers that partition's pieces and orders each block's accesses by
    request rank; the driver takes per request the smallest first-miss position (its cut) and the
    workers sum the across-conversation tokens before the cuts."""

    def __init__(self, client, partitions, tag):
        self.client, self.partitions, self.tag = client, partitions, tag
        self.pieces = []
        self.seconds = None

    def __call__(self, keys):
        start = time.monotonic()
        client, tag = self.client, self.tag
        keys_f = client.scatter(keys, broadcast=True, hash=False)
        reduced = [client.submit(_first_use_reduce, p, keys_f,
                                 *[pieces[p] for pieces in self.pieces],
                                 key=f"llmtrafficlens-first-use-reduce-{p}-{tag}", pure=False)
                   for p in range(self.partitions)]
        self.pieces = []  # the reduces hold them now; released as each one ends
        # The partitions' first misses, combined pairwise on the workers: the driver receives
        # one list of at most one entry per request.
        level = [client.submit(_first_misses, r, pure=False,
                               key=f"llmtrafficlens-first-use-misses-{p}-{tag}")
                 for p, r in enumerate(reduced)]
        depth = 0
        while len(level) > 1:
            depth += 1
            level = [client.submit(_merge_misses, level[i], level[i + 1], pure=False,
                                   key=f"llmtrafficlens-first-use-merge-{depth}.{i // 2}-{tag}")
                     if i + 1 < len(level) else level[i] for i in range(0, len(level), 2)]
        cuts = _core.first_use_cuts(keys, [level[0].result()])
        del level
        cuts_f = client.scatter(cuts, broadcast=True, hash=False)
        sums = client.gather([client.submit(_first_use_across, r, keys_f, cuts_f, pure=False,
                                            key=f"llmtrafficlens-first-use-across-{p}-{tag}")
                              for p, r in enumerate(reduced)])
        del reduced, keys_f, cuts_f
        figures = _core.first_use_figures(keys, cuts, sums)
        self.seconds = time.monotonic() - start
        return figures


def _peak_rss_bytes():
    """This process's peak resident set size (Linux reports ru_maxrss in KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _rss_bytes():
    """This process's resident set size now (/proc/self/statm), or None off Linux."""
    try:
        with open("/proc/self/statm", encoding="ascii") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


def _mib(nbytes):
    return "?" if nbytes is None else f"{nbytes / 2**20:.0f}"


def _usage():
    """This process's peak RSS (bytes), CPU seconds so far (user + sys, every thread) and minor
    page faults (each a fresh 4 KiB page: ~15 us of system time on the VM of PERFORMANCE.md)."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_maxrss * 1024, r.ru_utime + r.ru_stime, r.ru_minflt


def _process_start():
    """When this process started, on time.monotonic()'s clock (Linux: /proc/self/stat's start
    time against the boot-time clock; else now)."""
    try:
        with open("/proc/self/stat", encoding="ascii") as f:
            started = int(f.read().rsplit(")", 1)[1].split()[19]) / os.sysconf("SC_CLK_TCK")
        return time.monotonic() - (time.clock_gettime(time.CLOCK_BOOTTIME) - started)
    except (OSError, ValueError, IndexError, AttributeError):
        return time.monotonic()


class _Clock:
    """Wall time, this process's CPU (every thread) and its minor page faults at the named
    moments of a command-line run, from the process's start: the run's last line, where the wall
    goes besides the map and the replay (the interpreter and imports, the cluster's start and
    close), and what each phase costs the driver."""

    def __init__(self):
        self.marks = [("start", _process_start(), 0.0, 0)]
        self.workers = []  # each worker's (CPU seconds, minor faults) before the close

    def mark(self, name, at=None, usage=None):
        _, cpu, faults = usage or _usage()
        self.marks.append((name, time.monotonic() if at is None else at, cpu, faults))

    def line(self):
        steps = list(zip(self.marks, self.marks[1:]))
        walls = ", ".join(f"{b[0]} {b[1] - a[1]:.2f}" for a, b in steps)
        cpus = ", ".join(f"{b[0]} {b[2] - a[2]:.2f}" for a, b in steps)
        faults = ", ".join(f"{b[0]} {(b[3] - a[3]) / 1000:.0f}k" for a, b in steps)
        workers = "; ".join(f"{c:.2f} s, {f / 1000:.0f}k faults" for c, f in self.workers) or "?"
        return (f"llmtrafficlens.dask: run {self.marks[-1][1] - self.marks[0][1]:.2f} s "
                f"({walls} s); driver CPU {self.marks[-1][2]:.2f} s ({cpus} s), minor faults "
                f"{self.marks[-1][3] / 1000:.0f}k ({faults}); workers' CPU {workers}")


class _Progress:
    """Shards done of the tasks the run needs, and bytes hashed of the inputs' bytes: a task
    counts once its shard is in; pieces replaced by a task reading the rest of their file (after
    an unsure piece, _Arrivals) are taken back, so done never passes total."""

    def __init__(self, total, total_bytes, enabled):
        self.total, self.total_bytes, self.enabled = total, total_bytes, enabled
        self.done = self.bytes = 0
        self._counted = {}  # task -> bytes counted for it

    def step(self, nbytes, task=None):
        self.done += 1
        self.bytes += nbytes
        if task is not None:
            self._counted[task] = nbytes
        self._show()

    def drop(self, task):
        """A task replaced: no longer needed, its shard (if it came) no longer counted."""
        self.total -= 1
        if task in self._counted:
            self.done -= 1
            self.bytes -= self._counted.pop(task)

    def _show(self):
        if self.enabled:
            print(f"llmtrafficlens.dask: shards {self.done}/{self.total}, "
                  f"{self.bytes / 1e6:.1f} of {self.total_bytes / 1e6:.1f} MB hashed",
                  file=sys.stderr, flush=True)

    def phases(self, client, map_seconds, replay_seconds, rss_at_start, rss_before_replay,
               merge_seconds, shuffle=None, clock=None):
        """The phase line: map and merge+replay wall times, workers' and driver's memory, and the
        driver's time merging shards during the map; with the exact ceiling, the part of the
        merge+replay spent in its shuffle's reduces. clock (a _Clock) gets the workers' CPU."""
        if not self.enabled:
            return
        try:  # a worker's peak since it started (a LocalCluster's workers start with the run)
            usage = sorted(client.run(_usage).values())
        except Exception:  # noqa: BLE001 (a figure for the log only; never fail the run for it)
            usage = []
        workers = [rss for rss, _, _ in usage]
        if clock is not None:
            clock.workers = [(cpu, faults) for _, cpu, faults in usage]
        rate = self.bytes / 1e6 / map_seconds if map_seconds > 0 else 0.0
        print(f"llmtrafficlens.dask: map {map_seconds:.2f} s ({self.done} shards, "
              f"{self.bytes / 1e6:.1f} MB, {rate:.1f} MB/s; workers' peak RSS "
              f"{', '.join(_mib(w) for w in workers) or '?'} MiB), merge+replay on the driver "
              f"{replay_seconds:.2f} s (driver RSS {_mib(rss_at_start)} MiB at the start, "
              f"{_mib(rss_before_replay)} MiB before it, "
              f"peak {_mib(_peak_rss_bytes())} MiB); shards merged on the driver as they "
              f"arrived: {merge_seconds:.2f} s during the map"
              + ("" if shuffle is None or shuffle.seconds is None else
                 f"; exact ceiling by the shuffle ({shuffle.partitions} partitions): "
                 f"{shuffle.seconds:.2f} s of the merge+replay"), file=sys.stderr, flush=True)


class _Arrivals:
    """The tasks' shards in the order of the files and their pieces, each yielded, as (its
    file's index, its bytes or path), as soon as it and every earlier one have arrived (a later
    one waits as bytes in `held`); the time the consumer (the C++ merge) spends between two pulls
    is merge time; the map ends when the last one is merged.

    A piece that comes back without a shard (its end is not a record boundary: a malformed CSV
    quote before it moved the cut) makes `rest(unit)` submit one task reading its file from that
    piece's start to the end, whose shard takes the place of that piece and every later one of
    the file. The earlier pieces stand: each began where the one before it ended cleanly, so by
    induction from the file's start each ended where the whole file's read has a record boundary
    in the same state (docs/SCALE.md), and they may already be merged. An unsure piece never is
    (nothing after it is yielded before its replacement), and if an earlier piece of the same file
    proves unsure later, its own rest task replaces the first one."""

    def __init__(self, futures, bar, distributed, unit_files=None, rest=None):
        self.futures, self.bar, self.distributed = futures, bar, distributed
        self.unit_files = unit_files or list(range(len(futures)))
        self.rest = rest
        self.merge_seconds = 0.0
        self.map_end = self.usage_at_map_end = None
        self.rss_before_replay = None
        self.read_rest = []  # (file, task) where the file was read to its end from that task on

    def __iter__(self):
        units_of = {}
        for u, f in enumerate(self.unit_files):
            units_of.setdefault(f, []).append(u)
        held, skip, cut, next_index = {}, set(), {}, 0  # cut: file -> its first unsure task
        arrivals = self.distributed.as_completed(self.futures, with_results=True)
        for future, (index, payload, nbytes) in arrivals:
            future.release()  # the result is here: the worker may drop it
            if index < 0:  # the rest of a file, read from an unsure piece's start
                u = -1 - index
                if cut.get(self.unit_files[u]) != u:
                    continue  # an earlier piece of the file proved unsure since: its rest counts
                self.bar.step(nbytes, ("rest", u))
                held[u] = payload
            elif index >= cut.get(self.unit_files[index], len(self.unit_files)):
                continue  # replaced by the rest of its file
            elif payload is None:
                f = self.unit_files[index]
                before = cut.get(f)
                cut[f] = index
                self.read_rest.append((f, index))
                if before is not None:
                    self.bar.drop(("rest", before))
                for u in units_of[f]:
                    if u >= index and (before is None or u < before):
                        held.pop(u, None)
                        self.bar.drop(u)
                        if u != index:
                            skip.add(u)
                if before is not None:
                    skip.add(before)
                    held.pop(before, None)
                self.bar.total += 1  # the rest task
                arrivals.add(self.rest(index))
                continue
            else:
                self.bar.step(nbytes, index)
                held[index] = payload
            while next_index in held or next_index in skip:
                if next_index in skip:
                    next_index += 1
                    continue
                payload = held.pop(next_index)
                next_index += 1
                handed = time.monotonic()
                yield self.unit_files[next_index - 1], payload  # named by its file
                del payload
                self.merge_seconds += time.monotonic() - handed
        self.futures.clear()
        self.map_end = time.monotonic()
        self.usage_at_map_end = _usage()
        self.rss_before_replay = _rss_bytes()


_UNITS = {"": 1, "B": 1, "K": 2**10, "KB": 10**3, "KIB": 2**10, "M": 2**20, "MB": 10**6,
          "MIB": 2**20, "G": 2**30, "GB": 10**9, "GIB": 2**30}
DEFAULT_PIECE_BYTES = 64 * 2**20


def parse_piece_size(text):
    """--piece-size: bytes as a number with an optional unit (64MiB, 64M = 64 MiB, 4KiB, 100MB,
    1G); 0 or "file" = one task per file."""
    if isinstance(text, int):
        value = text
    else:
        t = str(text).strip().upper().replace(" ", "")
        if t == "FILE":
            return 0
        num = t.rstrip("KMGIB")
        unit = t[len(num):]
        if unit not in _UNITS or not num:
            raise ValueError(f"--piece-size {text!r}: a size such as 64MiB, 4KiB, 1G, or 'file'")
        value = int(float(num) * _UNITS[unit])
    if value < 0:
        raise ValueError(f"--piece-size {text!r}: must not be negative")
    return value


def profile(paths, client=None, output=None, salt_file=".ltl-salt", shard_dir=None,
            progress=True, task_hook=None, exact_ceiling=False, partitions=None,
            piece_bytes=DEFAULT_PIECE_BYTES, _plans=None, _clock=None, **options):
    """Profiles `paths` (files and globs, expanded as `profile` expands them) on a Dask cluster and
    returns the Report; output="PREFIX" also writes PREFIX.json and PREFIX.html. client: a
    distributed.Client (default: the current one, else local_cluster(1): one worker process with
    a thread per core). Other keyword options are the CLI's flags (llmtrafficlens.profile), split between the
    workers' hash-shard and the driver's replay (split_options). task_hook(index, path), when
    given, runs on the worker before each task (e.g. to prepare the worker's environment).
    exact_ceiling=True computes the ceiling, its across/same-conversation split and the cold
    ceiling by a shuffle by block id on the workers (`partitions` reduce tasks, default one per
    worker thread), so they are exact with sample_rate= too, and no machine holds every block.
    piece_bytes (default 64 MiB; 0 = one task per file): a plain CSV or JSON-lines gateway log
    is cut at record boundaries into pieces of about that size, a task each (found by one pass
    on the driver, read/record_boundaries.h); other inputs (compressed files, JSON arrays and
    documents, hashed traces, shards, PostgreSQL) are one task per file. The report is the same
    either way; task_hook gets the file's index."""
    import distributed  # Debian's python3-distributed

    files = _core.expand_inputs([os.fspath(p) for p in
                                 ([paths] if isinstance(paths, (str, os.PathLike)) else paths)])
    salt_file = os.path.abspath(os.fspath(salt_file))
    _core.ensure_salt(salt_file)  # created once here, never by racing workers
    worker_opts, driver_opts = split_options(options)
    # One hash-shard thread per task, a task per worker thread: the worker's cores are busy
    # without oversubscribing them (threads= given by the caller goes to both, as the CLI's).
    worker_opts.setdefault("threads", 1)
    if shard_dir is not None:
        shard_dir = os.path.abspath(os.fspath(shard_dir))
        os.makedirs(shard_dir, exist_ok=True)
    own = None
    if client is None:
        try:
            client = distributed.get_client()
        except ValueError:
            own = distributed.Client(local_cluster(1))
            client = own
    try:
        sizes = [os.path.getsize(f) if os.path.isfile(f) else 0 for f in files]
        bar = _Progress(len(files), sum(sizes), progress)
        rss_at_start = _rss_bytes()
        map_start = time.monotonic()
        # Earlier files first (a higher priority), so the driver's in-order merge rarely waits.
        tag = f"{os.getpid()}-{id(files)}"
        shuffle = None
        if exact_ceiling:
            if partitions is None:
                partitions = max(1, sum(client.nthreads().values()))
            shuffle = _Shuffle(client, int(partitions), f"{tag}-{uuid.uuid4().hex[:8]}")
        futures, task = [], None
        units = []  # the file of each task, in merge order
        unit_pieces = []  # and its piece (None = the file whole)
        plans = _plans.result() if _plans is not None else None
        if _clock is not None:
            _clock.mark("plan")

        def submit(i, f, piece, unit, priority, key):
            return client.submit(_hash_task, unit, f, salt_file, worker_opts, shard_dir,
                                 task_hook, shuffle.partitions if shuffle else 0, piece, i,
                                 key=key, pure=False, priority=priority)

        for i, f in enumerate(files):
            pieces = plans[i] if plans is not None else _plan(f, piece_bytes, worker_opts,
                                                              salt_file)
            for piece in pieces:
                u = len(units)
                units.append(i)
                unit_pieces.append(piece)
                task = submit(i, f, piece, u, -u,
                              f"llmtrafficlens-hash-shard-{i}" +
                              ("" if piece is None else f".{piece[3]}") + f"-{tag}")
                if shuffle is not None:
                    # The shard goes to the driver, the pieces stay on the worker for the reduces.
                    shuffle.pieces.append([client.submit(_part, task, p, pure=False,
                                                         key=f"llmtrafficlens-first-use-map-{u}-"
                                                             f"{p}-{shuffle.tag}")
                                           for p in range(shuffle.partitions)])
                    task = client.submit(_head, task, pure=False, priority=-u,
                                         key=f"llmtrafficlens-shard-of-{u}-{shuffle.tag}")
                futures.append(task)
        bar.total = len(units)

        def rest(u):
            """Task u's piece proved unsure (never with the shuffle): its file from that piece's
            start to the end, as the file's last piece."""
            i, (begin, _, first_line, index, _) = units[u], unit_pieces[u]
            end = max(p[1] for p, g in zip(unit_pieces, units) if g == i)
            return submit(i, files[i], (begin, end, first_line, index, True), -1 - u, 1,
                          f"llmtrafficlens-hash-shard-{i}.{index}-rest-{tag}")

        del task
        if _clock is not None:
            _clock.mark("submit")
        arrivals = _Arrivals(futures, bar, distributed, units, rest)
        del futures
        report = ltl.replay_stream(arrivals, files, output=output, exact_unbounded=shuffle,
                                   **driver_opts)
        end = time.monotonic()
        if _clock is not None:
            _clock.mark("map", arrivals.map_end, arrivals.usage_at_map_end)
            _clock.mark("merge+replay")
        bar.phases(client, arrivals.map_end - map_start, end - arrivals.map_end, rss_at_start,
                   arrivals.rss_before_replay, arrivals.merge_seconds, shuffle, _clock)
        return report
    finally:
        if own is not None:
            cluster = own.cluster
            own.close()
            cluster.close()


def _plan(path, piece_bytes, worker_opts, salt_file):
    """The pieces of one file for the hash tasks ([None] = the file whole)."""
    if not piece_bytes:
        return [None]
    opts = dict(worker_opts, salt_file=salt_file)
    opts.pop("quiet", None)
    return _core.plan_pieces(path, int(piece_bytes), opts) or [None]


def _plan_files(paths, piece_bytes, options):
    """Every file's pieces, as profile() would plan them (the command line runs this in a thread
    while Dask is imported and the --local cluster starts: the scan releases the GIL)."""
    files = _core.expand_inputs([os.fspath(p) for p in paths])
    worker_opts, _ = split_options(options)
    worker_opts.setdefault("threads", 1)
    return [_plan(f, piece_bytes, worker_opts, ".ltl-salt") for f in files]


def _versions_without_imports():
    """Has Dask's version handshake report only packages this process has already imported, of
    its optional ones (distributed.versions: each worker sends get_versions() when it registers,
    and the scheduler calls it to compare; get_versions imports every package it lists, and
    pandas, which nothing here uses, took 0.3-0.6 s in each worker and then in the scheduler, one
    after the other, of a --local cluster's start). The packages the scheduler compares
    (scheduler_relevant_packages: dask, distributed, msgpack, cloudpickle, tornado, toolz, lz4,
    python) are still reported, and a cluster forked from this process runs the same ones.
    Source: distributed/versions.py (optional_packages, scheduler_relevant_packages,
    get_versions) in Debian's python3-distributed 2022.12.1+ds.1-3, read 2026-12-07."""
    from distributed import versions

    versions.optional_packages = [
        p for p in versions.optional_packages
        if p[0] in sys.modules or p[0] in versions.scheduler_relevant_packages]
    # get_versions also reads platform.uname().processor, which forks and runs `uname -p` the
    # first time in a process: once here, the forked workers inherit the answer.
    platform.uname().processor  # noqa: B018 (a cached property, computed for the forks)


def local_cluster(n_workers):
    """A LocalCluster of n_workers processes sharing this machine's cores as their threads, with
    no dashboard; the worker processes are forked from this one (already holding Python, Dask and
    llmtrafficlens: a second instead of several to start), not spawned, and their version
    handshake imports nothing (_versions_without_imports)."""
    import dask
    import distributed

    _versions_without_imports()
    cores = os.cpu_count() or 1
    with dask.config.set({"distributed.worker.multiprocessing-method": "fork"}):
        return distributed.LocalCluster(n_workers=n_workers,
                                        threads_per_worker=max(1, cores // n_workers),
                                        processes=True, dashboard_address=None)


def _parse_rest(rest):
    """FILES and the CLI's own flags after the driver's, as keyword options (a value as the string
    given, a flag as True, a repeated option as a list), using the commands' own option table to
    tell a flag from an option taking a value."""
    takes = dict(_core.command_options("profile"))
    takes.update(_core.command_options("hash-shard"))
    files, opts = [], {}
    i = 0
    while i < len(rest):
        tok = rest[i]
        if not tok.startswith("--") or tok == "--":
            files.append(tok)
            i += 1
            continue
        name, eq, value = tok[2:].partition("=")
        if eq:
            val, i = value, i + 1
        elif takes.get(name, False) and i + 1 < len(rest):
            val, i = rest[i + 1], i + 2
        else:
            val, i = True, i + 1
        key = name.replace("-", "_")
        if key in opts:
            prev = opts[key]
            opts[key] = (prev if isinstance(prev, list) else [prev]) + [val]
        else:
            opts[key] = val
    return files, opts


def main(argv=None):
    clock = _Clock()
    parser = argparse.ArgumentParser(
        prog="python3 -m llmtrafficlens.dask",
        description="Profile log files on a Dask cluster: hash-shard on the workers, replay on "
                    "this machine; writes PREFIX.json and PREFIX.html as `llmtrafficlens profile` "
                    "does. Other --options are the CLI's (hash-shard's go to the workers).")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--scheduler", metavar="ADDR", help="a running scheduler, e.g. tcp://h:8786")
    where.add_argument("--local", metavar="N", type=int,
                       help="a LocalCluster of N worker processes sharing this machine's cores")
    parser.add_argument("-o", "--output", default="report", help="output prefix (default: report)")
    parser.add_argument("--salt-file", default=".ltl-salt",
                        help="the salt file, on a path every worker reads (default: .ltl-salt)")
    parser.add_argument("--shard-dir", help="write shards here (a directory the workers share) "
                        "and bring back only their paths")
    parser.add_argument("--exact-ceiling", action="store_true",
                        help="the ceiling, its across/same-conversation split and the cold "
                        "ceiling by a shuffle by block id on the workers: exact with "
                        "--sample-rate too, and no machine holds every block")
    parser.add_argument("--partitions", type=int, metavar="P",
                        help="--exact-ceiling: reduce tasks (default: one per worker thread)")
    parser.add_argument("--piece-size", default="64MiB", metavar="SIZE",
                        help="cut each plain CSV or JSON-lines gateway log at record boundaries "
                        "into pieces of about SIZE (64MiB, 4KiB, 1G, ...), one task each, so one "
                        "big file keeps every worker thread busy; 0 or 'file' = one task per "
                        "file. Compressed files, JSON arrays and documents, hashed traces, shards "
                        "and PostgreSQL inputs are one task per file (default: 64MiB)")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    args, rest = parser.parse_known_args(argv)
    files, options = _parse_rest(rest)
    if not files:
        parser.error("no input FILES")
    try:
        piece_bytes = parse_piece_size(args.piece_size)
    except ValueError as e:
        parser.error(str(e))
    # The pieces are planned (a scan of each big file) while Dask is imported and the cluster
    # starts; an error there is raised again by profile(), which meets it first itself.
    planner = concurrent.futures.ThreadPoolExecutor(1)
    plans = planner.submit(_plan_files, files, piece_bytes, options)
    planner.shutdown(wait=False)
    import distributed

    clock.mark("imports")
    if args.local is not None:
        if args.local < 1:
            parser.error("--local N needs N >= 1")
        client = distributed.Client(local_cluster(args.local))
    else:
        client = distributed.Client(args.scheduler)
    clock.mark("cluster")
    try:
        report = profile(files, client=client, output=args.output, salt_file=args.salt_file,
                         shard_dir=args.shard_dir, progress=not args.quiet,
                         exact_ceiling=args.exact_ceiling, partitions=args.partitions,
                         piece_bytes=piece_bytes, _plans=plans, _clock=clock, **options)
    except ltl.Error as e:
        print(e, file=sys.stderr)
        return getattr(e, "exit_code", 2)
    finally:
        cluster = client.cluster if args.local is not None else None
        client.close()
        if cluster is not None:
            cluster.close()
    clock.mark("close")
    if not args.quiet:
        print(clock.line(), file=sys.stderr, flush=True)
    sys.stdout.write(report.summary)
    return report.exit_code


if __name__ == "__main__":
    sys.exit(main())
