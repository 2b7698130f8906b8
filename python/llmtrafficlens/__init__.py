"""llmtrafficlens from Python: the C++ tool's own commands (profile, export, hash-shard) and its
hashed shards, through the pybind11 module llmtrafficlens._core. Nothing is re-implemented here:
each call builds the command line the CLI would get (keyword arguments become its flags:
``block_size=32`` is ``--block-size 32``, ``True`` a bare flag, a list or tuple repeats the flag)
and runs it in-process, so options, checks, defaults and error messages are the CLI's own
(README.md, "Python and Dask").

    import llmtrafficlens as ltl
    report = ltl.profile(["a.csv.gz", "b.jsonl.zst"], salt_file=".ltl-salt")
    report.ceiling.hit_rate, report.curve[0].hit_rate, report.to_dict()
    shards = [ltl.hash_shard(p, salt_file=".ltl-salt") for p in paths]
    ltl.replay(shards) == ltl.profile(paths)   # same report, minus the run description
"""
import json
import os
import shutil
import tempfile
import warnings

from . import _core

__all__ = ["Error", "Warning", "Report", "Shard", "profile", "export", "hash_shard", "replay",
           "command_line"]
__version__ = _core.__version__

Error = _core.Error  # a RuntimeError carrying the CLI's message (and .exit_code when it exited)
Shard = _core.Shard  # Shard.load(path), shard.save(path), shard.column(name), shard.block_ids(i)


class Warning(UserWarning):  # noqa: A001 - llmtrafficlens.Warning, as the CLI's "warning:" lines
    """A warning the CLI prints on stderr (e.g. a skipped row, an option without effect)."""


def _paths(paths):
    if isinstance(paths, (str, os.PathLike)):
        return [os.fspath(paths)]
    return [os.fspath(p) for p in paths]


def command_line(command, positional, options):
    """The CLI arguments for a call: `command POSITIONAL... --flag value...` from keyword options."""
    args = [command, *positional]
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        if value is None or value is False:
            continue
        if value is True:
            args.append(flag)
        elif isinstance(value, (list, tuple)):
            for v in value:
                args += [flag, os.fspath(v) if isinstance(v, os.PathLike) else str(v)]
        else:
            args += [flag, os.fspath(value) if isinstance(value, os.PathLike) else str(value)]
    return args


def _run(args, allow_too_many_skipped=False):
    """Runs the CLI in-process; raises Error with its message unless it exited 0 (or 1 when
    allowed: the run finished and wrote its outputs, but skipped more rows than tolerated)."""
    code, errors, warns, output = _core.run(args)
    for w in warns:
        warnings.warn(w, Warning, stacklevel=3)
    if code == 0 or (code == 1 and allow_too_many_skipped):
        return code, errors, output
    err = Error("\n".join(errors) or f"llmtrafficlens {args[0]} exited {code}")
    err.exit_code = code
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
        return json.loads(json.dumps(self._data))


class Report(_Node):
    """The content of report.json as Python objects (docs/REPORT.md describes every section);
    report.summary is the CLI's terminal summary, report.exit_code 1 when too many rows were skipped.
    """

    __slots__ = ("summary", "exit_code", "json_text")

    def __init__(self, json_text, summary="", exit_code=0):
        super().__init__(json.loads(json_text))
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


def _profile_args(paths, output, options):
    options = dict(options)
    quiet = not options.pop("progress", False)
    return command_line("profile", _paths(paths), {**options, "output": output, "quiet": quiet})


def profile(paths, output=None, **options):
    """`llmtrafficlens profile PATHS... [--option value...]`: returns the Report. `paths` is one
    path or a list (files, globs, hashed shards); `output` is the -o prefix for report.json/.html
    (default: a temporary directory, removed after reading). progress=True keeps the progress line.
    Raises Error with the CLI's message when the CLI would exit 2 (or 1: too many rows skipped,
    unless allow_too_many_skipped=True, which returns the report with exit_code 1)."""
    allow = options.pop("allow_too_many_skipped", False)
    tmp = None
    try:
        if output is None:
            tmp = tempfile.mkdtemp(prefix="llmtrafficlens-")
            prefix = os.path.join(tmp, "report")
        else:
            prefix = os.fspath(output)
            if prefix.endswith(".json"):
                prefix = prefix[: -len(".json")]
        code, _, summary = _run(_profile_args(paths, prefix, options), allow)
        with open(prefix + ".json", encoding="utf-8") as f:
            return Report(f.read(), summary, code)
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)


def export(paths, to, output, **options):
    """`llmtrafficlens export PATHS... --to TARGET -o OUTPUT [--option value...]`; returns OUTPUT."""
    options.setdefault("quiet", True)
    _run(command_line("export", _paths(paths), {"to": to, "output": output, **options}))
    return os.fspath(output)


def hash_shard(path, salt_file=".ltl-salt", **options):
    """`llmtrafficlens hash-shard PATH --salt-file SALT_FILE`: the file's hashed shard as a Shard
    (text-free: times, lengths, salted block ids, conversation keys; its per-request fields as
    buffers: memoryview(shard.column("input_tokens")), numpy.asarray(shard.block_ids(0))). The salt
    is read from the file; its content never passes through Python."""
    tmp = tempfile.mkdtemp(prefix="llmtrafficlens-")
    try:
        out = os.path.join(tmp, "shard.ltlshard")
        args = command_line("hash-shard", [os.fspath(path)],
                            {**options, "output": out, "salt_file": salt_file, "quiet": True})
        _run(args)
        return Shard.load(out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def replay(shards, output=None, **options):
    """Replays shards (Shard objects or shard file paths, in any mix) into one Report, exactly as
    `llmtrafficlens profile SHARD...` does: the report `profile` gives on the shards' files."""
    tmp = tempfile.mkdtemp(prefix="llmtrafficlens-")
    try:
        paths = []
        for i, s in enumerate(shards):
            if isinstance(s, Shard):
                p = os.path.join(tmp, f"{i:06d}.ltlshard")
                s.save(p)
                paths.append(p)
            else:
                paths.append(os.fspath(s))
        if not paths:
            raise Error("llmtrafficlens: replay needs at least one shard")
        return profile(paths, output=output, **options)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
