"""llmtrafficlens from Python: the C++ tool's runs (profile, export, hash-shard) and its hashed
shards, through the pybind11 module llmtrafficlens._core, which calls the same pipeline the command
line calls (src/pipeline/). Nothing is re-implemented here and nothing goes through the command
line or a temporary file: keyword options are checked by the command line's own option table
(``block_size=32`` is what ``--block-size 32`` is, ``True`` a bare flag, a list or tuple repeats the
option), so options, checks, defaults and error messages are the CLI's own; the report comes back
from the in-memory Profile, shards go in and out as objects (README.md, "Python and Dask").

    import llmtrafficlens as ltl
    report = ltl.profile(["a.csv.gz", "b.jsonl.zst"], salt_file=".ltl-salt")
    report.ceiling.hit_rate, report.curve[0].hit_rate, report.to_dict()
    shards = [ltl.hash_shard(p, salt_file=".ltl-salt") for p in paths]
    ltl.replay(shards) == ltl.profile(paths)   # the same report
"""
import copy
import os
import warnings

from . import _core

__all__ = ["Error", "Warning", "Report", "Shard", "profile", "export", "hash_shard", "replay",
           "replay_stream"]
__version__ = _core.__version__

Error = _core.Error  # a RuntimeError carrying the CLI's message (and .exit_code when it exited)
Shard = _core.Shard  # Shard.load(path), shard.save(path), shard.column(name), shard.block_ids(i)


class Warning(UserWarning):  # noqa: A001 - llmtrafficlens.Warning, as the CLI's "warning:" lines
    """A warning the CLI prints on stderr (e.g. a skipped row, an option without effect)."""


def _paths(paths):
    if isinstance(paths, (str, os.PathLike)):
        return [os.fspath(paths)]
    return [os.fspath(p) for p in paths]


def _call(fn, *args):
    """Runs a _core call; its Error carries exit_code 2 (the CLI's exit code for the same)."""
    try:
        return fn(*args)
    except Error as e:
        if not hasattr(e, "exit_code"):
            e.exit_code = 2
        raise


def _finish(warns, too_many_skipped, allow_too_many_skipped=False):
    """Issues the run's warnings; raises Error (exit_code 1) when more rows were skipped than
    --max-skip-share tolerates, unless allowed. Returns the exit code the CLI would give."""
    for w in warns:
        warnings.warn(w, Warning, stacklevel=3)
    if not too_many_skipped:
        return 0
    if allow_too_many_skipped:
        return 1
    err = Error("llmtrafficlens: " + too_many_skipped)
    err.exit_code = 1
    raise err


class _Node:
    """Attribute access over the report's JSON objects: report.ceiling.hit_rate; lists stay lists
    (of nodes), numbers and strings stay as they are. Keys that are not identifiers: node["key"]."""

    __slots__ = ("_data",)

    def __init__(self, data):
        object.__setattr__(self, "_data", data)

    @staticmethod
    def wrap(value):
        if isinstance(value, dict):
            return _Node(value)
        if isinstance(value, list):
            return [_Node.wrap(v) for v in value]
        return value

    def __getattr__(self, name):
        try:
            return _Node.wrap(self._data[name])
        except KeyError:
            raise AttributeError(name) from None

    def __getitem__(self, key):
        return _Node.wrap(self._data[key])

    def __contains__(self, key):
        return key in self._data

    def __iter__(self):
        return iter(self._data)

    def keys(self):
        return self._data.keys()

    def __dir__(self):
        return [k for k in self._data if isinstance(k, str) and k.isidentifier()]

    def __eq__(self, other):
        if isinstance(other, _Node):
            return self._data == other._data
        return self._data == other

    def __repr__(self):
        return f"{type(self).__name__}({', '.join(list(self._data)[:8])})"

    def to_dict(self):
        """A deep copy as plain dicts, lists, numbers and strings (json.loads of report.json)."""
        return copy.deepcopy(self._data)


class Report(_Node):
    """The report as Python objects, made from the run's Profile in memory: the content of
    report.json (docs/REPORT.md describes every section). report.summary is the CLI's terminal
    summary, report.exit_code 1 when too many rows were skipped, report.json_text the text
    report.json holds (rendered on request: no file is written unless output= is given)."""

    __slots__ = ("summary", "exit_code", "json_text")

    def __init__(self, data, json_text, summary="", exit_code=0):
        super().__init__(data)
        object.__setattr__(self, "json_text", json_text)
        object.__setattr__(self, "summary", summary)
        object.__setattr__(self, "exit_code", exit_code)

    def to_pandas(self, section="curve"):
        """One list section (e.g. "curve", or a dotted path such as "input.files") as a
        pandas.DataFrame, one row per entry, nested objects flattened (pandas.json_normalize)."""
        import pandas  # optional: only this method needs it

        value = self._data
        for part in section.split("."):
            value = value[part]
        if not isinstance(value, list):
            raise TypeError(f"report section {section!r} is not a list")
        return pandas.json_normalize(value)


def _report(paths, shards, output, options, stream=None, stream_names=(), exact_unbounded=None):
    allow = options.pop("allow_too_many_skipped", False)
    progress = bool(options.pop("progress", False))
    options.pop("quiet", None)  # no progress line unless progress=True
    if output is not None:
        output = os.fspath(output)
        if output.endswith(".json"):
            output = output[: -len(".json")]
    r = _call(_core.profile, paths, shards, options, output, progress, stream, list(stream_names),
              exact_unbounded)
    code = _finish(r["warnings"], r["too_many_skipped"], allow)
    return Report(r["data"], r["json_text"], r["summary"], code)


def profile(paths, output=None, **options):
    """`llmtrafficlens profile PATHS... [--option value...]` in memory: returns the Report. `paths`
    is one path or a list (files, globs, hashed shard files); `output` is the -o prefix when
    report.json/.html should be written too (default: nothing written). progress=True shows the
    progress line. Raises Error with the CLI's message where the CLI would exit 2 (or 1: too many
    rows skipped, unless allow_too_many_skipped=True, which returns the report with exit_code
    1)."""
    return _report(_paths(paths), [], output, dict(options))


def export(paths, to, output, **options):
    """`llmtrafficlens export PATHS... --to mooncake|bailian|cctrace -o OUTPUT [--option
    value...]`; returns OUTPUT."""
    options = dict(options)
    options.pop("quiet", None)
    _, warns, too_many = _call(_core.export, _paths(paths), to, os.fspath(output), options)
    _finish(warns, too_many)
    return os.fspath(output)


def hash_shard(path, salt_file=".ltl-salt", _keep_workers=False, **options):
    """`llmtrafficlens hash-shard PATH --salt-file SALT_FILE` in memory: the file's hashed shard as
    a Shard (text-free: times, lengths, salted block ids, conversation keys; its per-request fields
    as buffers: memoryview(shard.column("input_tokens")), numpy.asarray(shard.block_ids(0))). The
    salt is read from the file; its content never passes through Python. _keep_workers (the Dask
    tasks, llmtrafficlens.dask): the calling thread keeps the read's workers for its next call
    with the same options instead of building them again (ingest/gateway_readers.h)."""
    options = dict(options, salt_file=salt_file)
    options.pop("quiet", None)
    shard, warns, too_many = _call(_core.hash_shard, os.fspath(path), options, _keep_workers)
    _finish(warns, too_many)
    return shard


def replay(shards, output=None, **options):
    """Replays shards (Shard objects or shard file paths, in any mix and in the order given) into
    one Report in memory, exactly as `llmtrafficlens profile SHARD...` does: the report `profile`
    gives on the shards' files."""
    items = [s if isinstance(s, Shard) else Shard.load(os.fspath(s)) for s in shards]
    if not items:
        err = Error("llmtrafficlens: replay needs at least one shard")
        err.exit_code = 2
        raise err
    return _report([], items, output, dict(options))


def replay_stream(shards, names, output=None, exact_unbounded=None, **options):
    """replay() of shards as an iterable yields them, in the order given: each item is a shard's
    bytes (Shard.to_bytes()), a shard file's path or a Shard, or (k, one of those) for a shard of
    names[k] (one file's pieces: shards of a file come together, in order), and is decoded and its
    block ids interned (without the GIL) before the next is asked for, so a driver merges while its
    workers still hash (llmtrafficlens.dask). `names` are the files the shards come from, in order:
    they name the run, as a shard's own file does in replay(), and the shard an error is about
    (the k-th item's file is names[k] unless the item says which). The report is replay's on the same
    shards; an exception the iterable raises is raised here. exact_unbounded(keys), when given,
    is called once the trace is built with its first-use keys (bytes) and returns the exact
    (steady_hit, steady_across, cold_hit, cold_across), which replace the replay's ceiling and
    cold ceiling (llmtrafficlens.dask's shuffle by block id; an exception it raises is raised
    here)."""
    names = [os.fspath(n) for n in names]
    if not names:
        err = Error("llmtrafficlens: replay needs at least one shard")
        err.exit_code = 2
        raise err
    return _report([], [], output, dict(options), iter(shards), names, exact_unbounded)
