// llmtrafficlens._core: the pybind11 binding under the Python package (python/llmtrafficlens/).
// It adds no second implementation: `profile`, `hash_shard` and `export` parse their keyword
// options with the command line's own option table and checks (cli/command_line.h,
// ParseCommandSpec) into the pipeline's specification and call the pipeline (pipeline/*_run.h) in
// memory: the Profile becomes Python objects directly (no report.json file), shards go in and out
// as objects. `Shard` is the C++ shard (shard/shard.h), its per-request fields exposed through the
// buffer protocol as strided, read-only views of the records (no copy).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "cli/command_line.h"
#include "cli/progress_line.h"
#include "common/request_record.h"
#include "hash/first_use.h"
#include "hash/salt_file.h"
#include "ingest/gateway_readers.h"
#include "pipeline/cctrace_export_run.h"
#include "pipeline/export_run.h"
#include "pipeline/hash_shard_run.h"
#include "pipeline/input_files.h"
#include "pipeline/profile_run.h"
#include "report/report_json.h"
#include "report/terminal_summary.h"
#include "shard/shard.h"
#include "shard/shard_codec.h"

namespace py = pybind11;

namespace {

// Raised as llmtrafficlens.Error (a RuntimeError) with the tool's own message.
struct CoreError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct PyShard {
  ltl::Shard shard;
};

// One per-request field of a shard, or one request's block ids: a 1-d read-only buffer into the
// shard's memory; holding the shard keeps the memory alive.
struct Column {
  std::shared_ptr<PyShard> owner;
  const void* data = nullptr;
  py::ssize_t itemsize = 0;
  std::string format;
  py::ssize_t size = 0;
  py::ssize_t stride = 0;
};

template <typename T>
Column FieldColumn(const std::shared_ptr<PyShard>& s, T ltl::RequestRecord::*field) {
  const auto& recs = s->shard.input.records;
  Column c;
  c.owner = s;
  c.itemsize = sizeof(T);
  c.format = py::format_descriptor<T>::format();
  c.size = static_cast<py::ssize_t>(recs.size());
  c.stride = sizeof(ltl::RequestRecord);
  static const T none{};
  c.data = recs.empty() ? static_cast<const void*>(&none) : &(recs.front().*field);
  return c;
}

Column NamedColumn(const std::shared_ptr<PyShard>& s, const std::string& name) {
  using R = ltl::RequestRecord;
  if (name == "line") return FieldColumn(s, &R::line);
  if (name == "time_s") return FieldColumn(s, &R::time_s);
  if (name == "has_time") return FieldColumn(s, &R::has_time);
  if (name == "input_tokens") return FieldColumn(s, &R::input_tokens);
  if (name == "output_tokens") return FieldColumn(s, &R::output_tokens);
  if (name == "block_size") return FieldColumn(s, &R::block_size);
  if (name == "stream") return FieldColumn(s, &R::stream);
  if (name == "status_code") return FieldColumn(s, &R::status_code);
  if (name == "turn") return FieldColumn(s, &R::turn);
  if (name == "provider_cached_tokens") return FieldColumn(s, &R::provider_cached_tokens);
  if (name == "tools_digest") return FieldColumn(s, &R::tools_digest);
  throw py::key_error("no shard column '" + name + "'");
}

const std::vector<std::string> kColumnNames = {
    "line",   "time_s",      "has_time", "input_tokens",           "output_tokens", "block_size",
    "stream", "status_code", "turn",     "provider_cached_tokens", "tools_digest"};

std::shared_ptr<PyShard> FromResult(ltl::Result<ltl::Shard> r) {
  if (!r.ok()) throw CoreError("llmtrafficlens: " + r.status().message());
  auto s = std::make_shared<PyShard>();
  s->shard = std::move(r).value();
  return s;
}

[[noreturn]] void Raise(const ltl::Status& st) {
  throw CoreError("llmtrafficlens: " + st.message());
}

// A keyword option's value as the command line would get it (a path-like object by os.fspath).
std::string OptionText(const py::handle& v) {
  if (py::hasattr(v, "__fspath__")) return py::str(v.attr("__fspath__")());
  return py::str(v);
}

// Keyword options as the command line's tokens: block_size=32 is --block-size 32, True a bare
// flag, False and None leave the option out, a list or tuple repeats it.
std::vector<std::string> OptionTokens(const py::dict& options) {
  std::vector<std::string> out;
  for (const auto& [key, value] : options) {
    std::string name = py::str(key);
    for (char& c : name)
      if (c == '_') c = '-';
    const std::string flag = "--" + name;
    if (value.is_none()) continue;
    if (py::isinstance<py::bool_>(value)) {
      if (value.cast<bool>()) out.push_back(flag);
      continue;
    }
    if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
      for (const auto& item : value) {
        out.push_back(flag);
        out.push_back(OptionText(item));
      }
      continue;
    }
    out.push_back(flag);
    out.push_back(OptionText(value));
  }
  return out;
}

// Parses `command POSITIONAL... options` with the command line's table; raises its message.
ltl::cli::CommandSpec ParseSpec(const std::string& command,
                                const std::vector<std::string>& positional,
                                const py::dict& options) {
  std::vector<std::string> args = {command};
  args.insert(args.end(), positional.begin(), positional.end());
  for (std::string& t : OptionTokens(options)) args.push_back(std::move(t));
  auto spec = ltl::cli::ParseCommandSpec(args);
  if (!spec.ok()) Raise(spec.status());
  return std::move(spec).value();
}

// The warnings of one run, collected while the GIL is released and handed back as a list.
struct Collected {
  std::vector<std::string> warnings;
  std::unique_ptr<ltl::cli::ProgressLine> progress;
  ltl::RunHooks Hooks(bool show_progress) {
    ltl::RunHooks h;
    h.warn = [this](const std::string& m) {
      if (progress) progress->Finish();
      warnings.push_back(m);
    };
    if (show_progress) {
      h.read_start = [this](const std::string& name) {
        progress =
            std::make_unique<ltl::cli::ProgressLine>(ltl::cli::ProgressLine::Wanted(false), name);
      };
      h.progress = [this](uint64_t bytes, uint64_t total) {
        if (progress) progress->Update(bytes, total);
      };
      h.read_done = [this] {
        if (progress) progress->Finish();
      };
    }
    return h;
  }
};

// report.json's value as Python objects, in its key order (what json.loads of the file gives:
// a non-finite number is null there, None here).
py::object ToPython(const nlohmann::ordered_json& j) {
  switch (j.type()) {
    case nlohmann::ordered_json::value_t::null:
      return py::none();
    case nlohmann::ordered_json::value_t::boolean:
      return py::bool_(j.get<bool>());
    case nlohmann::ordered_json::value_t::number_integer:
      return py::int_(j.get<int64_t>());
    case nlohmann::ordered_json::value_t::number_unsigned:
      return py::int_(j.get<uint64_t>());
    case nlohmann::ordered_json::value_t::number_float: {
      const double d = j.get<double>();
      return std::isfinite(d) ? py::object(py::float_(d)) : py::object(py::none());
    }
    case nlohmann::ordered_json::value_t::string: {
      const auto& str = j.get_ref<const std::string&>();
      // As the file's writer: an invalid UTF-8 sequence becomes U+FFFD.
      PyObject* o =
          PyUnicode_DecodeUTF8(str.data(), static_cast<py::ssize_t>(str.size()), "replace");
      if (!o) throw py::error_already_set();
      return py::reinterpret_steal<py::object>(o);
    }
    case nlohmann::ordered_json::value_t::array: {
      py::list out;
      for (const auto& v : j) out.append(ToPython(v));
      return out;
    }
    case nlohmann::ordered_json::value_t::object: {
      py::dict out;
      for (const auto& [k, v] : j.items()) out[py::str(k)] = ToPython(v);
      return out;
    }
    default:
      return py::none();
  }
}

// A Python iterable of shards pulled by the run while the GIL is released (ltl::ShardStream):
// each item is a shard's bytes (Shard.to_bytes(), decoded without the GIL), a shard file's path or
// a Shard, or (k, one of those) when the shard comes from names[k] (a file's pieces, or a file read
// whole instead of them: the Dask driver's), else the k-th item comes from names[k]. The name is
// what an error decoding the shard names. An exception the iterator raises (e.g. a Dask task's)
// ends the run and is raised again by the call.
struct StreamPull {
  py::object iterator;
  std::vector<std::string> names;
  size_t pulled = 0;
  std::optional<py::error_already_set> error;

  ltl::Status Pull(std::optional<ltl::Shard>* next) {
    py::gil_scoped_acquire gil;
    try {
      PyObject* raw = PyIter_Next(iterator.ptr());
      if (!raw) {
        if (PyErr_Occurred()) throw py::error_already_set();
        return ltl::Status::Ok();
      }
      py::object item = py::reinterpret_steal<py::object>(raw);
      size_t from = pulled++;
      if (py::isinstance<py::tuple>(item) && py::len(item) == 2 &&
          py::isinstance<py::int_>(item[py::int_(0)])) {
        const py::tuple pair = item.cast<py::tuple>();
        from = pair[0].cast<size_t>();
        item = pair[1];
      }
      const std::string name = from < names.size() ? names[from] : "<shard>";
      ltl::Result<ltl::Shard> s = ltl::Status::Ok();
      if (py::isinstance<py::bytes>(item)) {
        const std::string_view view(PyBytes_AS_STRING(item.ptr()),
                                    static_cast<size_t>(PyBytes_GET_SIZE(item.ptr())));
        py::gil_scoped_release release;  // `item` holds the bytes meanwhile
        // The run interns it next (pipeline/run_inputs.h): shared ids stay out (shard.h).
        s = ltl::DecodeShard(view, name, /*leave_shared_ids=*/true);
      } else if (py::isinstance<py::str>(item)) {
        const std::string path = item.cast<std::string>();
        py::gil_scoped_release release;
        s = ltl::ReadShardFile(path, /*leave_shared_ids=*/true);
      } else if (py::isinstance<PyShard>(item)) {
        s = item.cast<std::shared_ptr<PyShard>>()->shard;  // a copy: the object stays
      } else {
        return ltl::Status::InvalidArgument(
            name + ": a shard stream yields bytes, a shard file's path or a Shard, not " +
            std::string(py::str(py::type::of(item).attr("__name__"))));
      }
      if (!s.ok()) return s.status();
      next->emplace(std::move(s).value());
      return ltl::Status::Ok();
    } catch (py::error_already_set& e) {
      error.emplace(std::move(e));
    }
    return ltl::Status::InvalidArgument("the shard stream raised an exception");
  }
};

// profile(paths, shards, options, output, progress, stream, stream_names) -> dict: the report as
// Python objects ("data"), report.json's text ("json_text"), the terminal summary, the warnings
// and the --max-skip-share message ("" = within). `shards` are replayed after `paths`, in order,
// then the shards `stream` (an iterable, or None) yields as they come, named by stream_names.
// `exact` (or None): a Python callable given the trace's first-use keys (bytes) that returns the
// exact unbounded figures (steady_hit, steady_across, cold_hit, cold_across): the Dask driver's
// shuffle by block id (hash/first_use.h). An exception it raises ends the run and is raised again.
py::dict Profile(const std::vector<std::string>& paths,
                 const std::vector<std::shared_ptr<PyShard>>& shards, const py::dict& options,
                 const std::optional<std::string>& output, bool progress, const py::object& stream,
                 const std::vector<std::string>& stream_names, const py::object& exact) {
  ltl::cli::CommandSpec parsed = ParseSpec("profile", paths, options);
  if (!parsed.profile) Raise(ltl::Status::InvalidArgument("not a profile"));
  ltl::ProfileSpec spec = std::move(*parsed.profile);
  spec.output_prefix = output;
  for (const auto& s : shards)
    spec.read.shards.push_back(s->shard);  // the objects stay as they are
  StreamPull pull;
  if (!stream.is_none()) {
    pull.iterator = py::iter(stream);
    pull.names = stream_names;
    spec.read.stream.names = stream_names;
    spec.read.stream.pull = [&pull](std::optional<ltl::Shard>* next) { return pull.Pull(next); };
  }
  std::optional<py::error_already_set> exact_error;
  if (!exact.is_none()) {
    spec.exact_unbounded =
        [&exact, &exact_error](const std::string& keys) -> ltl::Result<ltl::FirstUseFigures> {
      py::gil_scoped_acquire gil;
      try {
        auto t = exact(py::bytes(keys)).cast<std::tuple<int64_t, int64_t, int64_t, int64_t>>();
        return ltl::FirstUseFigures{std::get<0>(t), std::get<1>(t), std::get<2>(t), std::get<3>(t)};
      } catch (py::error_already_set& e) {
        exact_error.emplace(std::move(e));
      } catch (const py::cast_error&) {
        return ltl::Status::InvalidArgument("the exact ceiling's figures are not 4 integers");
      }
      return ltl::Status::InvalidArgument("the exact ceiling's computation raised an exception");
    };
  }
  Collected collected;
  ltl::Result<ltl::ProfileResult> result = ltl::Status::Ok();
  {
    py::gil_scoped_release release;
    result = ltl::ProfileRun(std::move(spec), collected.Hooks(progress));
  }
  if (pull.error) throw std::move(*pull.error);
  if (exact_error) throw std::move(*exact_error);
  if (!result.ok()) Raise(result.status());
  const ltl::Profile& p = result->profile;
  std::string summary = ltl::RenderTerminalSummary(p);
  if (output) summary += "\nwrote " + result->json_path + ", " + result->html_path + "\n";
  py::dict out;
  out["data"] = ToPython(ltl::ProfileToJson(p));
  out["json_text"] = ltl::RenderReportJson(p);
  out["summary"] = summary;
  out["warnings"] = collected.warnings;
  out["too_many_skipped"] = result->too_many_skipped;
  return out;
}

// The shard's codec bytes, encoded straight into the bytes object returned (one buffer, written
// once: ltl::EncodeShardTo) without the GIL, so a Dask worker's other threads run meanwhile.
py::bytes ShardBytes(const PyShard& s) {
  py::object out;
  {
    py::gil_scoped_release release;
    ltl::EncodeShardTo(s.shard, [&out](size_t n) {
      py::gil_scoped_acquire gil;
      PyObject* b = PyBytes_FromStringAndSize(nullptr, static_cast<py::ssize_t>(n));
      if (!b) throw py::error_already_set();
      out = py::reinterpret_steal<py::object>(b);
      return PyBytes_AS_STRING(b);
    });
  }
  return py::reinterpret_borrow<py::bytes>(out);
}

// The gateway reads' workers a thread keeps from one hash task to the next (ltl::GatewayReadState:
// a Dask worker's thread runs its tasks one after another, and building and freeing the workers
// cost each task about 0.1 s), for tasks of the same options only: a task with other options frees
// them first. They are freed with the thread. Called with the GIL held.
ltl::GatewayReadState* KeptReadState(const py::dict& options) {
  struct Kept {
    std::string options;  // the sorted items of the options they served
    ltl::GatewayReadState state;
  };
  thread_local Kept kept;
  const std::string key =
      py::repr(py::module_::import("builtins").attr("sorted")(options.attr("items")()));
  if (key != kept.options) {
    kept.state.Release();
    kept.options = key;
  }
  return &kept.state;
}

// hash_shard(path, options, keep_workers) -> (Shard, warnings, --max-skip-share message).
// keep_workers: the thread keeps the read's workers for its next call (KeptReadState).
py::tuple HashShardOf(const std::string& path, const py::dict& options, bool keep_workers) {
  ltl::cli::CommandSpec parsed = ParseSpec("hash-shard", {path}, options);
  if (!parsed.hash_shard) Raise(ltl::Status::InvalidArgument("not hash-shard"));
  if (keep_workers) parsed.hash_shard->read_state = KeptReadState(options);
  Collected collected;
  ltl::Result<ltl::HashShardResult> result = ltl::Status::Ok();
  {
    py::gil_scoped_release release;
    result = ltl::HashShardRun(*parsed.hash_shard, collected.Hooks(false));
  }
  if (!result.ok()) Raise(result.status());
  auto s = std::make_shared<PyShard>();
  s->shard = std::move(result->shard);
  return py::make_tuple(s, collected.warnings, result->too_many_skipped);
}

// plan_pieces(path, piece_bytes, options) -> [(begin, end, first_line, index, last)]: the pieces
// a plain CSV or JSON-lines log is read in (ltl::PlanFilePieces; [] = read it whole).
std::vector<std::tuple<uint64_t, uint64_t, uint64_t, uint32_t, bool>> PlanPiecesOf(
    const std::string& path, uint64_t piece_bytes, const py::dict& options) {
  ltl::cli::CommandSpec parsed = ParseSpec("hash-shard", {path}, options);
  if (!parsed.hash_shard) Raise(ltl::Status::InvalidArgument("not hash-shard"));
  ltl::Result<std::vector<ltl::FilePiece>> pieces = ltl::Status::Ok();
  {
    py::gil_scoped_release release;
    pieces = ltl::PlanFilePieces(*parsed.hash_shard, piece_bytes);
  }
  if (!pieces.ok()) Raise(pieces.status());
  std::vector<std::tuple<uint64_t, uint64_t, uint64_t, uint32_t, bool>> out;
  for (const ltl::FilePiece& p : *pieces)
    out.emplace_back(p.begin, p.end, p.first_line, p.index, p.last);
  return out;
}

// hash_piece(path, options, piece, keep_workers) -> (Shard or None, warnings): one piece of
// plan_pieces; None when its end proved not to be a record boundary (HashShardResult::
// piece_unsure). keep_workers as for hash_shard.
py::tuple HashPieceOf(const std::string& path, const py::dict& options,
                      const std::tuple<uint64_t, uint64_t, uint64_t, uint32_t, bool>& piece,
                      bool keep_workers) {
  ltl::cli::CommandSpec parsed = ParseSpec("hash-shard", {path}, options);
  if (!parsed.hash_shard) Raise(ltl::Status::InvalidArgument("not hash-shard"));
  ltl::FilePiece p;
  std::tie(p.begin, p.end, p.first_line, p.index, p.last) = piece;
  parsed.hash_shard->piece = p;
  if (keep_workers) parsed.hash_shard->read_state = KeptReadState(options);
  Collected collected;
  ltl::Result<ltl::HashShardResult> result = ltl::Status::Ok();
  {
    py::gil_scoped_release release;
    result = ltl::HashShardRun(*parsed.hash_shard, collected.Hooks(false));
  }
  if (!result.ok()) Raise(result.status());
  if (result->piece_unsure) return py::make_tuple(py::none(), collected.warnings);
  auto s = std::make_shared<PyShard>();
  s->shard = std::move(result->shard);
  return py::make_tuple(s, collected.warnings);
}

// export(paths, to, output, options) -> (summary, warnings, --max-skip-share message).
py::tuple ExportTrace(const std::vector<std::string>& paths, const std::string& to,
                      const std::string& output, const py::dict& options) {
  std::vector<std::string> positional = paths;
  for (const std::string& t : {std::string("--to"), to, std::string("--output"), output})
    positional.push_back(t);
  ltl::cli::CommandSpec parsed = ParseSpec("export", positional, options);
  Collected collected;
  if (parsed.export_cctrace) {
    ltl::Result<ltl::CctraceExportResult> result = ltl::Status::Ok();
    {
      py::gil_scoped_release release;
      result = ltl::CctraceExportRun(*parsed.export_cctrace, collected.Hooks(false));
    }
    if (!result.ok()) Raise(result.status());
    return py::make_tuple(result->stats.conversations, collected.warnings,
                          result->too_many_skipped);
  }
  if (!parsed.export_trace) Raise(ltl::Status::InvalidArgument("not an export"));
  ltl::Result<ltl::ExportResult> result = ltl::Status::Ok();
  {
    py::gil_scoped_release release;
    result = ltl::ExportRun(std::move(*parsed.export_trace), collected.Hooks(false));
  }
  if (!result.ok()) Raise(result.status());
  return py::make_tuple(result->stats.written, collected.warnings, result->too_many_skipped);
}

// The first-use shuffle's steps (hash/first_use.h) over bytes, each without the GIL.
std::string_view View(const py::bytes& b) {
  return {PyBytes_AS_STRING(b.ptr()), static_cast<size_t>(PyBytes_GET_SIZE(b.ptr()))};
}

template <typename T>
T OrRaise(ltl::Result<T> r) {
  if (!r.ok()) Raise(r.status());
  return std::move(r).value();
}

std::vector<py::bytes> FirstUseMapOf(const std::shared_ptr<PyShard>& s, uint32_t file_index,
                                     uint32_t partitions) {
  std::vector<std::string> parts;
  {
    py::gil_scoped_release release;
    parts = ltl::FirstUseMap(s->shard.input.records, file_index, partitions);
  }
  std::vector<py::bytes> out;
  for (std::string& p : parts) out.emplace_back(std::move(p));
  return out;
}

py::tuple FirstUseReduceOf(const std::vector<py::bytes>& blobs, const py::bytes& keys) {
  std::vector<std::string_view> views;
  for (const py::bytes& b : blobs) views.push_back(View(b));
  const std::string_view k = View(keys);
  std::string across, misses;
  ltl::Status st;
  {
    py::gil_scoped_release release;
    auto decoded = ltl::DecodeFirstUseKeys(k);
    auto reduced = decoded.ok() ? ltl::FirstUseReduce(views, *decoded)
                                : ltl::Result<ltl::FirstUseReduced>(decoded.status());
    if (reduced.ok()) {
      across = ltl::EncodeFirstUseAccesses(reduced->across);
      misses = ltl::EncodeFirstUseAccesses(reduced->first_miss);
    } else {
      st = reduced.status();
    }
  }
  if (!st.ok()) Raise(st);
  return py::make_tuple(py::bytes(across), py::bytes(misses));
}

py::bytes FirstUseCutsOf(const py::bytes& keys, const std::vector<py::bytes>& misses) {
  const ltl::FirstUseKeys k = OrRaise(ltl::DecodeFirstUseKeys(View(keys)));
  std::vector<std::vector<ltl::FirstUseAccess>> parts;
  for (const py::bytes& m : misses) parts.push_back(OrRaise(ltl::DecodeFirstUseAccesses(View(m))));
  const std::vector<uint32_t> cuts = OrRaise(ltl::FirstUseCuts(k, parts));
  return py::bytes(reinterpret_cast<const char*>(cuts.data()), cuts.size() * sizeof(uint32_t));
}

py::bytes MergeFirstMissesOf(const py::bytes& a, const py::bytes& b) {
  const auto x = OrRaise(ltl::DecodeFirstUseAccesses(View(a)));
  const auto y = OrRaise(ltl::DecodeFirstUseAccesses(View(b)));
  return py::bytes(ltl::EncodeFirstUseAccesses(ltl::MergeFirstMisses(x, y)));
}

std::vector<uint32_t> CutsOf(const py::bytes& cuts, size_t ranks) {
  const std::string_view v = View(cuts);
  if (v.size() != ranks * sizeof(uint32_t)) Raise(ltl::Status::Corrupt("first-use cuts: size"));
  std::vector<uint32_t> out(ranks);
  if (ranks) std::memcpy(out.data(), v.data(), v.size());
  return out;
}

py::tuple FirstUseAcrossOf(const py::bytes& across, const py::bytes& keys, const py::bytes& cuts) {
  const ltl::FirstUseKeys k = OrRaise(ltl::DecodeFirstUseKeys(View(keys)));
  const auto acc = OrRaise(ltl::DecodeFirstUseAccesses(View(across)));
  const ltl::FirstUseFigures f = ltl::FirstUseAcross(acc, k, CutsOf(cuts, k.conversation.size()));
  return py::make_tuple(f.steady_across, f.cold_across);
}

py::tuple FirstUseFiguresOfPy(const py::bytes& keys, const py::bytes& cuts,
                              const std::vector<std::pair<int64_t, int64_t>>& across) {
  const ltl::FirstUseKeys k = OrRaise(ltl::DecodeFirstUseKeys(View(keys)));
  std::vector<ltl::FirstUseFigures> sums;
  for (const auto& [steady, cold] : across) sums.push_back({0, steady, 0, cold});
  const ltl::FirstUseFigures f =
      ltl::FirstUseFiguresOf(k, CutsOf(cuts, k.conversation.size()), sums);
  return py::make_tuple(f.steady_hit, f.steady_across, f.cold_hit, f.cold_across);
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "llmtrafficlens C++ core (the tool's pipeline and its hashed shards)";
  m.attr("__version__") = LTL_VERSION;
  py::register_exception<CoreError>(m, "Error", PyExc_RuntimeError);
  m.def("profile", &Profile, py::arg("paths"), py::arg("shards"), py::arg("options"),
        py::arg("output"), py::arg("progress") = false, py::arg("stream") = py::none(),
        py::arg("stream_names") = std::vector<std::string>(), py::arg("exact") = py::none(),
        "Profiles files and shards in memory, then the shards an iterable yields as they come; "
        "returns {data, json_text, summary, warnings, too_many_skipped}");
  m.def("first_use_map", &FirstUseMapOf, py::arg("shard"), py::arg("file_index"),
        py::arg("partitions"), "A shard's block accesses as one bytes per partition (by block id)");
  m.def("first_use_reduce", &FirstUseReduceOf, py::arg("blobs"), py::arg("keys"),
        "One partition (a map output of every file): (across accesses, first misses) as bytes");
  m.def("first_use_merge_misses", &MergeFirstMissesOf, py::arg("a"), py::arg("b"),
        "Two partitions' first misses as one (the smaller position per request)");
  m.def("first_use_cuts", &FirstUseCutsOf, py::arg("keys"), py::arg("first_misses"),
        "Per request, where its unbounded hit run ends (bytes)");
  m.def("first_use_across", &FirstUseAcrossOf, py::arg("across"), py::arg("keys"), py::arg("cuts"),
        "A partition's across-conversation hit tokens: (steady, cold)");
  m.def("first_use_figures", &FirstUseFiguresOfPy, py::arg("keys"), py::arg("cuts"),
        py::arg("across"),
        "(steady_hit, steady_across, cold_hit, cold_across) from the cuts and across sums");
  m.def("plan_pieces", &PlanPiecesOf, py::arg("path"), py::arg("piece_bytes"), py::arg("options"));
  m.def("hash_piece", &HashPieceOf, py::arg("path"), py::arg("options"), py::arg("piece"),
        py::arg("keep_workers") = false);
  m.def("hash_shard", &HashShardOf, py::arg("path"), py::arg("options"),
        py::arg("keep_workers") = false,
        "The hashed shard of one file: (Shard, warnings, too_many_skipped)");
  m.def("export", &ExportTrace, py::arg("paths"), py::arg("to"), py::arg("output"),
        py::arg("options"),
        "Writes a mooncake or bailian trace or a cctrace directory: (requests or conversations "
        "written, warnings, too_many_skipped)");
  m.def("command_options", &ltl::cli::CommandOptions, py::arg("command"),
        "The long options of a subcommand: [(name without --, takes a value)]");
  m.def(
      "expand_inputs",
      [](const std::vector<std::string>& args) {
        auto r = ltl::ExpandInputs(args);
        if (!r.ok()) throw CoreError("llmtrafficlens: " + r.status().message());
        std::vector<std::string> paths;
        for (const auto& in : *r) paths.push_back(in.path);
        return paths;
      },
      py::arg("args"), "FILE... as profile expands them (globs, in order)");
  m.def(
      "ensure_salt",
      [](const std::string& path) {
        auto salt = ltl::LoadOrCreateSalt(path);
        if (!salt.ok()) throw CoreError("llmtrafficlens: " + salt.status().message());
        return salt->created;
      },
      py::arg("path"), "Creates the salt file when missing (never returns its content)");

  py::class_<Column>(m, "Column", py::buffer_protocol())
      .def_buffer([](Column& c) {
        return py::buffer_info(const_cast<void*>(c.data), c.itemsize, c.format, 1, {c.size},
                               {c.stride}, /*readonly=*/true);
      })
      .def("__len__", [](const Column& c) { return c.size; });

  py::class_<PyShard, std::shared_ptr<PyShard>>(m, "Shard")
      .def_static(
          "load", [](const std::string& path) { return FromResult(ltl::ReadShardFile(path)); },
          py::arg("path"))
      .def_static(
          "from_bytes",
          [](const py::bytes& b, const std::string& name) {
            std::string_view view = b;
            return FromResult(ltl::DecodeShard(view, name));
          },
          py::arg("data"), py::arg("name") = "<bytes>")
      .def(
          "save",
          [](const PyShard& s, const std::string& path) {
            ltl::Status st = ltl::WriteShardFile(path, s.shard);
            if (!st.ok()) throw CoreError("llmtrafficlens: " + st.message());
          },
          py::arg("path"))
      .def("to_bytes", &ShardBytes)
      .def("__len__", [](const PyShard& s) { return s.shard.input.records.size(); })
      .def_property_readonly("files",
                             [](const PyShard& s) {
                               std::vector<std::string> names;
                               for (const auto& f : s.shard.input.files) names.push_back(f.name);
                               return names;
                             })
      .def_property_readonly("bytes", [](const PyShard& s) { return s.shard.input.bytes; })
      .def_property_readonly("tokenizer", [](const PyShard& s) { return s.shard.tokenizer; })
      .def_property_readonly_static("columns", [](py::object) { return kColumnNames; })
      .def("column", &NamedColumn, py::arg("name"))
      .def(
          "block_ids",
          [](const std::shared_ptr<PyShard>& s, size_t i) {
            const auto& recs = s->shard.input.records;
            if (i >= recs.size()) throw py::index_error("request index out of range");
            static const uint64_t none = 0;
            const auto& ids = recs[i].block_ids;
            Column c;
            c.owner = s;
            c.itemsize = sizeof(uint64_t);
            c.format = py::format_descriptor<uint64_t>::format();
            c.size = static_cast<py::ssize_t>(ids.size());
            c.stride = sizeof(uint64_t);
            c.data = ids.empty() ? static_cast<const void*>(&none) : ids.data();
            return c;
          },
          py::arg("index"))
      .def(py::pickle([](const PyShard& s) { return ShardBytes(s); },
                      [](const py::bytes& b) {
                        std::string_view view = b;
                        return FromResult(ltl::DecodeShard(view, "<pickled shard>"));
                      }));
}
