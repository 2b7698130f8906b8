// Loading --chat-template and --model-dir (see model_files.h).
#include "pipeline/model_files.h"

#include <fmt/format.h>

#include <filesystem>

#include "render/model_chat_template.h"
#include "tokenize/caching_tokenizer.h"

namespace ltl {
namespace {

namespace fs = std::filesystem;

bool IsFile(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

// One folder (see FindModelFolder): its template, its tokenizer.json when present.
Status LoadFolder(const std::string& name, const std::string& dir, LoadedModelFiles* out) {
  const std::string opt = "--model-dir " + (name.empty() ? dir : name + "=" + dir);
  auto folder = FindModelFolder(opt, dir);
  if (!folder.ok()) return folder.status();
  ModelFiles m;
  m.model = name;
  auto t = ModelChatTemplate::Load(folder->chat_template);
  if (!t.ok()) return Status::InvalidArgument(opt + ": " + t.status().message());
  m.chat_template = *t;
  if (!folder->tokenizer.empty()) {
    auto loaded = LoadTokenizer(folder->tokenizer, "");
    if (!loaded.ok()) return Status::InvalidArgument(opt + ": " + loaded.status().message());
    out->tokenizers.push_back(std::make_unique<CachingTokenizer>(std::move(loaded).value()));
    m.tokenizer = out->tokenizers.back().get();
  }
  if (name.empty()) out->kv_config = folder->config;
  out->models.push_back(std::move(m));
  return Status::Ok();
}

}  // namespace

Result<ModelFolder> FindModelFolder(const std::string& option, const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return Status::InvalidArgument(option + ": not a directory");
  const fs::path d(dir);
  fs::path tmpl = d / "chat_template.jinja";
  if (!IsFile(tmpl)) tmpl = d / "tokenizer_config.json";
  if (!IsFile(tmpl))
    return Status::InvalidArgument(option +
                                   ": neither chat_template.jinja nor tokenizer_config.json found");
  ModelFolder f;
  f.chat_template = tmpl.string();
  if (IsFile(d / "tokenizer.json")) f.tokenizer = (d / "tokenizer.json").string();
  if (IsFile(d / "config.json")) f.config = (d / "config.json").string();
  return f;
}

Result<LoadedModelFiles> LoadModelFiles(const std::string& chat_template,
                                        const std::vector<std::string>& model_dirs,
                                        bool has_tokenizer) {
  LoadedModelFiles out;
  std::vector<std::pair<std::string, std::string>> named;
  std::string unnamed;
  for (const std::string& arg : model_dirs) {
    const size_t eq = arg.find('=');
    // A folder path may hold '=': NAME=DIR only when what follows names a directory.
    std::error_code ec;
    if (eq != std::string::npos && eq > 0 && !fs::is_directory(arg, ec)) {
      named.emplace_back(arg.substr(0, eq), arg.substr(eq + 1));
      for (size_t i = 0; i + 1 < named.size(); ++i)
        if (named[i].first == named.back().first)
          return Status::InvalidArgument("--model-dir: model '" + named.back().first +
                                         "' given twice");
    } else {
      if (!unnamed.empty())
        return Status::InvalidArgument(
            fmt::format("--model-dir: two folders for every request ({}, {}); name them NAME=DIR "
                        "to serve requests by model",
                        unnamed, arg));
      unnamed = arg;
    }
  }
  if (!unnamed.empty() && !chat_template.empty())
    return Status::InvalidArgument("--chat-template and --model-dir " + unnamed +
                                   " both give the template for every request; keep one");
  for (const auto& [name, dir] : named)
    if (Status st = LoadFolder(name, dir, &out); !st.ok()) return st;
  if (!unnamed.empty()) {
    if (Status st = LoadFolder("", unnamed, &out); !st.ok()) return st;
    if (has_tokenizer && out.models.back().tokenizer)
      return Status::InvalidArgument("--tokenizer and --model-dir " + unnamed +
                                     " (its tokenizer.json) both give the tokenizer for every "
                                     "request; keep one");
  }
  if (!chat_template.empty()) {
    auto t = ModelChatTemplate::Load(chat_template);
    if (!t.ok()) return Status::InvalidArgument("--chat-template: " + t.status().message());
    ModelFiles m;
    m.chat_template = *t;
    out.models.push_back(std::move(m));
  }
  return out;
}

}  // namespace ltl
