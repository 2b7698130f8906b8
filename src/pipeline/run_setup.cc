// RunSetup, LoadCachedTokenizer, SkipShareMessage (see run_setup.h).
#include "pipeline/run_setup.h"

#include <fmt/format.h>

#include "common/units.h"
#include "tokenize/caching_tokenizer.h"

namespace ltl {

Result<std::unique_ptr<Tokenizer>> LoadCachedTokenizer(const TokenizerSpec& spec) {
  if (spec.tokenizer.empty()) return std::unique_ptr<Tokenizer>();
  auto t = LoadTokenizer(spec.tokenizer, spec.data_dir);
  if (!t.ok()) return Status::InvalidArgument("--tokenizer: " + t.status().message());
  // Conversations resend their history: reuse the ids of segments seen before (exact).
  return std::unique_ptr<Tokenizer>(std::make_unique<CachingTokenizer>(std::move(t).value()));
}

Status RunSetup::LoadModels(const ReadSpec& spec) {
  auto loaded =
      LoadModelFiles(spec.io.chat_template, spec.io.model_dirs, !spec.tok.tokenizer.empty());
  if (!loaded.ok()) return loaded.status();
  models = std::move(loaded).value();
  return Status::Ok();
}

Status RunSetup::LoadTokenizer(const ReadSpec& spec) {
  auto loaded = LoadCachedTokenizer(spec.tok);
  if (!loaded.ok()) return loaded.status();
  tokenizer = std::move(loaded).value();
  return Status::Ok();
}

void RunSetup::MakeContext(const std::string& name, const ReadSpec& spec, const RunHooks& hooks) {
  ctx.name = name;
  ctx.block_size = spec.block_size;
  ctx.skips = &skips;
  ApplyInputSettings(spec.io, &ctx);
  ctx.gateway.tokenizer = tokenizer.get();
  ctx.gateway.models = models.models;
  ctx.threads = spec.threads;
  ctx.warn = [&hooks](const std::string& m) { hooks.Warn(m); };
  if (hooks.progress) ctx.progress = hooks.progress;
}

Status RunSetup::EncodeStatus() const {
  return tokenizer ? tokenizer->EncodeStatus() : Status::Ok();
}

void RunSetup::WarnTextOptionsUnused(const LoadedInput& in, bool has_text,
                                     const RunHooks& hooks) const {
  if (has_text) return;
  if (tokenizer)
    hooks.Warn(fmt::format("--tokenizer has no effect on {} input: hashed traces carry no text",
                           FormatName(in.format)));
  if (!models.models.empty())
    hooks.Warn(fmt::format(
        "--chat-template and --model-dir have no effect on {} input: hashed traces carry no text",
        FormatName(in.format)));
}

std::string SkipShareMessage(const std::string& name, uint64_t skipped, uint64_t rows,
                             double max_share, bool percent) {
  if (rows == 0) return "";
  const double share = static_cast<double>(skipped) / static_cast<double>(rows);
  if (!(share > max_share)) return "";
  if (percent)
    return fmt::format("{}: {} of {} rows skipped ({}), above --max-skip-share {}", name, skipped,
                       rows, Percent(share), max_share);
  return fmt::format("{}: {} of {} rows skipped, above --max-skip-share {}", name, skipped, rows,
                     max_share);
}

}  // namespace ltl
