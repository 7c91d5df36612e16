// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/format/split_model.h"

#include "magic_sniffer.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>
#include <regex>
#include <unordered_map>

namespace gguf {

std::optional<ShardName> parseShardName(const std::string &path)
{
    static const std::regex pattern(R"(^(.*)-(\d{5})-of-(\d{5})\.gguf$)");
    // a remote name may go on: a hub revision (hf:…/m-00001-of-00002.gguf@v2) or a URL's query
    static const std::regex remote(R"(^(.*)-(\d{5})-of-(\d{5})\.gguf([@?].*)?$)");
    std::smatch m;
    if (!std::regex_match(path, m, looksRemote(path) ? remote : pattern))
        return std::nullopt;
    ShardName name;
    name.base = m[1].str();
    if (m.size() > 4)
        name.suffix = m[4].str();
    name.number = static_cast<uint32_t>(std::stoul(m[2].str()));
    name.count = static_cast<uint32_t>(std::stoul(m[3].str()));
    if (name.number == 0 || name.count == 0 || name.number > name.count)
        return std::nullopt;
    return name;
}

std::string shardPath(const ShardName &name, uint32_t number)
{
    char suffix[32];
    std::snprintf(suffix, sizeof suffix, "-%05u-of-%05u.gguf", number, name.count);
    return name.base + suffix + name.suffix;
}

namespace {

// What a shard that did not open is: missing, empty, a Git LFS pointer, a web page (a download that
// went wrong), else unreadable. A local file's first bytes are read again to tell.
std::string shardProblem(const std::string &path, const Error &error)
{
    if (error.kind == ErrorKind::NotFound)
        return "shard_missing";
    if (error.kind != ErrorKind::InvalidMagic || looksRemote(path))
        return "shard_unreadable";
    // its first bytes again (the open that failed kept none)
    std::ifstream in(path, std::ios::binary);
    std::array<char, 64> head{};
    in.read(head.data(), std::streamsize(head.size()));
    switch (classifyForeign(reinterpret_cast<const uint8_t *>(head.data()),
                            uint64_t(std::max<std::streamsize>(0, in.gcount())))) {
    case ForeignFile::Empty: return "shard_empty";
    case ForeignFile::GitLfsPointer: return "shard_lfs_pointer";
    case ForeignFile::HtmlPage: return "shard_html";
    case ForeignFile::Other: break;
    }
    return "shard_unreadable";
}

} // namespace

std::shared_ptr<const SplitModel> SplitModel::open(const std::string &path, Error &error, const OpenOptions &options)
{
    OpenResult first = GgufFile::open(path, options);
    if (!first.file) {
        error = first.error;
        return nullptr;
    }
    error = first.error;
    const auto shardName = parseShardName(path);
    const uint64_t declared = first.file->value("split.count").toUInt().value_or(0);
    if (!shardName || shardName->count < 2) {
        auto model = std::shared_ptr<SplitModel>(new SplitModel());
        model->m_shards.push_back(Shard{path, first.file, first.error, {}});
        model->indexTensors();
        return model;
    }
    auto model = std::shared_ptr<SplitModel>(new SplitModel());
    model->m_shards.resize(shardName->count);
    for (uint32_t k = 1; k <= shardName->count; ++k) {
        Shard &slot = model->m_shards[k - 1];
        slot.path = shardPath(*shardName, k);
        if (k == shardName->number) {
            slot.file = first.file;
            slot.error = first.error;
            continue;
        }
        OpenResult r = GgufFile::open(slot.path, options);
        slot.file = r.file;
        slot.error = r.error;
        if (!slot.file)
            slot.problem = shardProblem(slot.path, slot.error);
        if (!slot.file && slot.error.kind == ErrorKind::NotFound)
            slot.error.message =
                slot.path + ": shard " + std::to_string(k) + " of " + std::to_string(shardName->count) + " is missing";
    }
    if (declared && declared != shardName->count)
        model->m_shards[shardName->number - 1].error.message +=
            (model->m_shards[shardName->number - 1].error.message.empty() ? "" : "; ") +
            std::string("split.count says ") + std::to_string(declared) + " shards but the name says " +
            std::to_string(shardName->count);
    for (size_t i = 0; i < model->m_shards.size(); ++i)
        if (model->m_shards[i].file) {
            model->m_primary = i;
            break;
        }
    model->indexTensors();
    return model;
}

std::shared_ptr<const SplitModel> SplitModel::single(std::shared_ptr<const GgufFile> file)
{
    auto model = std::shared_ptr<SplitModel>(new SplitModel());
    model->m_shards.push_back(Shard{file->path(), file, file->error(), {}});
    model->indexTensors();
    return model;
}

void SplitModel::indexTensors()
{
    for (uint32_t s = 0; s < m_shards.size(); ++s) {
        if (!m_shards[s].file)
            continue;
        for (const TensorInfo &t : m_shards[s].file->tensors())
            m_tensors.push_back(TensorRef{s, &t});
    }
}

std::vector<std::string> SplitModel::problems() const
{
    std::vector<std::string> out;
    for (const Shard &s : m_shards)
        if (!s.file)
            out.push_back(s.error.message.empty() ? s.path + ": could not be opened" : s.error.message);
    return out;
}

std::vector<Finding> SplitModel::setFindings() const
{
    std::vector<Finding> out;
    const size_t n = m_shards.size();
    if (n < 2)
        return out;
    const auto shard = [&](size_t i) {
        return "shard " + std::to_string(i + 1) + " of " + std::to_string(n) + " (" + m_shards[i].path + ")";
    };
    const auto add = [&](const char *code, std::string message) {
        out.push_back(Finding{Severity::Error, code, 0, std::move(message)});
    };
    for (size_t i = 0; i < n; ++i) {
        const Shard &s = m_shards[i];
        if (s.file)
            continue;
        if (s.problem == "shard_missing")
            add("shard_missing", shard(i) + " is missing");
        else if (s.problem == "shard_empty")
            add("shard_empty", shard(i) + " is empty (0 bytes): its download did not finish; download it again");
        else if (s.problem == "shard_lfs_pointer")
            add("shard_lfs_pointer", shard(i) + " is a Git LFS pointer, not the shard: fetch it with git lfs pull");
        else if (s.problem == "shard_html")
            add("shard_html", shard(i) + " is an HTML page (an error page a download saved), not the shard: download "
                                         "it again");
        else
            add(s.problem.empty() ? "shard_unreadable" : s.problem.c_str(),
                shard(i) + ": " + (s.error.message.empty() ? std::string("could not be opened") : s.error.message));
    }
    // the split keys of the shards that opened: their place, the count, the set's tensors
    std::optional<std::pair<uint64_t, size_t>> declared; // split.tensors.count and the shard saying it
    bool allOpened = true;
    for (size_t i = 0; i < n; ++i) {
        const GgufFile *f = m_shards[i].file.get();
        allOpened = allOpened && f;
        if (!f)
            continue;
        if (const auto no = f->value("split.no").toUInt(); no && *no != i)
            add("split_no_mismatch", shard(i) + ": split.no is " + std::to_string(*no) + ", not " + std::to_string(i) +
                                         " (split.no counts from 0): a shard of another set, "
                                         "or renamed");
        if (const auto count = f->value("split.count").toUInt(); count && *count != n)
            add("split_count_mismatch", shard(i) + ": split.count says " + std::to_string(*count) +
                                            " shards, the set has " + std::to_string(n));
        if (const auto tensors = f->value("split.tensors.count").toUInt()) {
            if (!declared)
                declared = std::pair{*tensors, i};
            else if (declared->first != *tensors)
                add("shard_other_set", shard(i) + ": split.tensors.count is " + std::to_string(*tensors) + " where " +
                                           shard(declared->second) + " says " + std::to_string(declared->first) +
                                           ": shards of different sets");
        }
    }
    if (allOpened && declared && declared->first != m_tensors.size())
        add("split_tensors_count_mismatch", "split.tensors.count says " + std::to_string(declared->first) +
                                                " tensors, the " + std::to_string(n) + " shards hold " +
                                                std::to_string(m_tensors.size()));
    std::unordered_map<std::string_view, uint32_t> seen;
    for (const TensorRef &t : m_tensors)
        if (const auto [at, fresh] = seen.emplace(t.info->name, t.shard); !fresh)
            add("tensor_duplicated", "tensor " + std::string(t.info->name) + " is in " + shard(at->second) +
                                         " and again in " + shard(t.shard));
    return out;
}

bool SplitModel::llamaCppAccepts() const
{
    return std::all_of(m_shards.begin(), m_shards.end(),
                       [](const Shard &s) { return s.file && s.file->llamaCppAccepts(); }) &&
           setFindings().empty();
}

std::optional<SplitModel::Refusal> SplitModel::firstRefusal() const
{
    for (size_t i = 0; i < m_shards.size(); ++i)
        if (const GgufFile *file = m_shards[i].file.get())
            if (const Finding *f = file->firstRefusal())
                return Refusal{*f, i};
    if (const std::vector<Finding> set = setFindings(); !set.empty())
        return Refusal{set.front(), std::nullopt};
    for (const Shard &s : m_shards)
        if (s.file && !s.file->llamaCppAccepts())
            return Refusal{
                Finding{Severity::Error, s.file->error().code, s.file->error().offset, s.file->error().message},
                std::nullopt};
    return std::nullopt;
}

std::optional<SplitModel::Break> SplitModel::firstBreak() const
{
    for (size_t i = 0; i < m_shards.size(); ++i)
        if (const GgufFile *file = m_shards[i].file.get(); file && file->breakage())
            return Break{i, file};
    return std::nullopt;
}

SplitModel::Outcome SplitModel::outcome(const SplitModel *model, const Error &error)
{
    if (!model)
        return Outcome::Refused;
    if (error) {
        // `error` is the opened path's own: a break only when it is where some shard broke off
        const bool isBreak = std::any_of(model->m_shards.begin(), model->m_shards.end(), [&](const Shard &shard) {
            return shard.file && shard.file->breakage() && shard.file->error().offset == error.offset &&
                   shard.file->error().code == error.code;
        });
        if (!isBreak)
            return Outcome::Refused;
    }
    return model->firstBreak() ? Outcome::OpenedDamaged : Outcome::Opened;
}

uint64_t SplitModel::parameterCount() const
{
    uint64_t total = 0;
    for (const Shard &s : m_shards)
        if (s.file)
            total += s.file->parameterCount();
    return total;
}

uint64_t SplitModel::totalFileSize() const
{
    uint64_t total = 0;
    for (const Shard &s : m_shards)
        if (s.file)
            total += s.file->fileSize();
    return total;
}

} // namespace gguf
