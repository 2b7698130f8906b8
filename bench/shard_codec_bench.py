"""CPU of decoding and encoding a directory of shards with one build's Python module
(docs/PERFORMANCE.md "Shard version 6"). Run with Debian's python3, once per build, alternated:
    /usr/bin/python3 bench/shard_codec_bench.py BUILD/python SHARD_DIR
SHARD_DIR holds *.ltlshard files the same build wrote (llmtrafficlens hash-shard). Prints the
shards' size, the decode and encode CPU seconds, and whether encoding gives the same bytes back."""
import glob
import resource
import sys

sys.path.insert(0, sys.argv[1])
from llmtrafficlens import _core  # noqa: E402


def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


files = sorted(glob.glob(sys.argv[2] + "/*.ltlshard"))
data = [open(f, "rb").read() for f in files]
t = cpu()
shards = [_core.Shard.from_bytes(b) for b in data]
decode = cpu() - t
t = cpu()
again = [s.to_bytes() for s in shards]
encode = cpu() - t
print(f"{sys.argv[2]}: {len(files)} shards, {sum(map(len, data)) / 1e6:.1f} MB, "
      f"decode {decode:.2f} s, encode {encode:.2f} s, same bytes {again == data}")
