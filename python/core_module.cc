// llmtrafficlens._core: the pybind11 binding under the Python package (python/llmtrafficlens/).
// It adds no second implementation: `run` is the tool's own command line (cli/command_line.h) with
// its messages collected instead of printed, and `Shard` is the C++ shard (shard/shard.h) loaded
// with the shard codec, its per-request fields exposed through the buffer protocol as strided,
// read-only views of the records (no copy).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "common/request_record.h"
#include "hash/salt_file.h"
#include "pipeline/input_files.h"
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

// Runs the command line; returns (exit code, errors, warnings, output).
py::tuple Run(const std::vector<std::string>& args) {
  std::vector<std::string> errors, warnings;
  std::string output;
  ltl::cli::MessageSink sink;
  sink.error = [&errors](const std::string& m) { errors.push_back(m); };
  sink.warning = [&warnings](const std::string& m) { warnings.push_back(m); };
  sink.output = [&output](const std::string& m) { output += m; };
  int code;
  {
    py::gil_scoped_release release;
    std::vector<std::string> argv = {"llmtrafficlens"};
    argv.insert(argv.end(), args.begin(), args.end());
    code = ltl::cli::RunCommandLine(argv, &sink);
  }
  return py::make_tuple(code, errors, warnings, output);
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "llmtrafficlens C++ core (the tool's command line and its hashed shards)";
  m.attr("__version__") = LTL_VERSION;
  py::register_exception<CoreError>(m, "Error", PyExc_RuntimeError);
  m.def("run", &Run, py::arg("args"),
        "Runs `llmtrafficlens ARGS...`; returns (exit code, errors, warnings, stdout text)");
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
      .def("to_bytes", [](const PyShard& s) { return py::bytes(ltl::EncodeShard(s.shard)); })
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
      .def(py::pickle([](const PyShard& s) { return py::bytes(ltl::EncodeShard(s.shard)); },
                      [](const py::bytes& b) {
                        std::string_view view = b;
                        return FromResult(ltl::DecodeShard(view, "<pickled shard>"));
                      }));
}
