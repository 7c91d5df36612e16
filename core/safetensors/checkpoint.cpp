// SPDX-License-Identifier: GPL-3.0-or-later
// Hugging Face checkpoints: the shards of an index (or a folder), checked against each other.
#include "checkpoint.h"

#include "core/format/byte_source.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <system_error>

namespace gguf::st {
namespace {

namespace fs = std::filesystem;

constexpr uint64_t kMaxSideFile = uint64_t(64) << 20; // an index or config.json larger than this is not one

bool endsWith(std::string_view s, std::string_view tail)
{
    return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

/// The whole of a small text file, local or remote; nullopt with `error` when it cannot be read.
std::optional<std::string> readSmallFile(const std::string &path, Error &error)
{
    const auto source = openByteSource(path, error);
    if (!source)
        return std::nullopt;
    if (source->size() > kMaxSideFile) {
        error = Error{ErrorKind::Malformed, "too_large", 0,
                      path + ": " + std::to_string(source->size()) + " bytes is too large"};
        return std::nullopt;
    }
    const ByteLease lease = source->acquire(0, source->size());
    if (!lease) {
        error = lease.error();
        return std::nullopt;
    }
    return std::string(reinterpret_cast<const char *>(lease.bytes().data()), lease.bytes().size());
}

/// `name` without what a remote name carries after its path: a URL's query and fragment (not
/// carried over to other files), an hf: name's "@REVISION" (returned in `revision`).
std::string pathPart(const std::string &name, std::string &revision)
{
    revision.clear();
    if (name.starts_with("hf:")) {
        const size_t slash = name.rfind('/'), at = name.rfind('@');
        if (at != std::string::npos && (slash == std::string::npos || at > slash)) {
            revision = name.substr(at);
            return name.substr(0, at);
        }
        return name;
    }
    if (looksRemote(name))
        return name.substr(0, std::min(name.find('?'), name.find('#')));
    return name;
}

/// The file called `file` beside `name` (a local path, a URL or an hf: name).
std::string sibling(const std::string &name, const std::string &file)
{
    if (!looksRemote(name))
        return (fs::path(name).parent_path() / file).string();
    std::string revision;
    const std::string path = pathPart(name, revision);
    const size_t slash = path.rfind('/');
    return (slash == std::string::npos ? std::string() : path.substr(0, slash + 1)) + file + revision;
}

/// A shard name an index may give: a plain file name in the checkpoint's folder.
bool plainFileName(const std::string &name)
{
    return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos &&
           name.find('\\') == std::string::npos;
}

std::string quotedName(std::string_view s)
{
    return "\"" + std::string(s) + "\"";
}

} // namespace

bool Checkpoint::looksLikeCheckpoint(const std::string &path)
{
    if (looksRemote(path)) { // told by the name: reading a remote file's first bytes costs a request
        std::string revision;
        const std::string name = pathPart(path, revision);
        return endsWith(name, ".safetensors") || endsWith(name, ".safetensors.index.json");
    }
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
        if (fs::exists(fs::path(path) / "config.json", ec))
            return true;
        for (const auto &entry : fs::directory_iterator(path, ec))
            if (endsWith(entry.path().filename().string(), ".safetensors"))
                return true;
        return false;
    }
    if (endsWith(path, ".safetensors.index.json"))
        return true;
    // only a regular file's first bytes are read: opening a FIFO would wait for a writer forever
    if (!fs::is_regular_file(path, ec))
        return false;
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in)
        return false;
    const auto size = static_cast<uint64_t>(in.tellg());
    std::array<char, 64> head{};
    in.seekg(0);
    in.read(head.data(), head.size());
    return looksLikeSafetensors(reinterpret_cast<const uint8_t *>(head.data()), static_cast<size_t>(in.gcount()), size);
}

std::shared_ptr<const Checkpoint> Checkpoint::open(const std::string &path, Error &error)
{
    error = Error{};
    auto c = std::make_shared<Checkpoint>();
    c->m_path = path;
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
        c->m_folder = path;
        const fs::path index = fs::path(path) / "model.safetensors.index.json";
        if (fs::exists(index, ec)) {
            c->openIndex(index.string(), error);
        } else {
            std::vector<std::string> files;
            for (const auto &entry : fs::directory_iterator(path, ec))
                if (endsWith(entry.path().filename().string(), ".safetensors"))
                    files.push_back(entry.path().string());
            std::sort(files.begin(), files.end());
            if (files.empty()) {
                error = Error{ErrorKind::NotFound, "no_checkpoint", 0,
                              path + ": no model.safetensors.index.json and no .safetensors file in this folder"};
                return nullptr;
            }
            c->openShards(files);
        }
    } else if (std::string revision; endsWith(pathPart(path, revision), ".index.json")) {
        c->m_folder = sibling(path, "");
        c->openIndex(path, error);
    } else {
        c->m_folder = sibling(path, "");
        c->openShards({path});
        if (!c->m_shards[0].file) {
            error = c->m_shards[0].error;
            return nullptr;
        }
    }
    if (error)
        return nullptr;
    c->readConfig();
    return c;
}

void Checkpoint::openIndex(const std::string &indexPath, Error &error)
{
    m_indexPath = indexPath;
    const auto text = readSmallFile(indexPath, error);
    if (!text)
        return;
    json::ParseError why;
    const auto root = json::parse(*text, why);
    if (!root) {
        error = Error{ErrorKind::Malformed, "bad_index_json", why.offset,
                      indexPath + ": not JSON at offset " + std::to_string(why.offset) + ": " + why.message};
        return;
    }
    const json::Value *map = root->find("weight_map");
    if (!map || map->kind != json::Value::Kind::Object) {
        error = Error{ErrorKind::Malformed, "no_weight_map", map ? map->begin : root->begin,
                      indexPath + ": no \"weight_map\" object naming each tensor's shard"};
        return;
    }
    std::vector<std::string> names;
    for (size_t i = 0; i < map->values.size(); ++i) {
        const json::Value &v = map->values[i];
        if (v.kind != json::Value::Kind::String || !plainFileName(v.text)) {
            note(indexPath, Severity::Error, "bad_shard_name", v.begin,
                 "index: tensor " + quotedName(map->keys[i].first) +
                     ": the shard is not a plain file name in the checkpoint's folder");
            continue;
        }
        if (std::find(names.begin(), names.end(), v.text) == names.end())
            names.push_back(v.text);
    }
    std::sort(names.begin(), names.end());
    std::vector<std::string> paths;
    paths.reserve(names.size());
    for (const std::string &n : names)
        paths.push_back(sibling(indexPath, n));
    openShards(paths);
    checkIndex(*map, root->find("metadata"));
}

void Checkpoint::openShards(const std::vector<std::string> &paths)
{
    for (const std::string &p : paths) {
        Shard s;
        s.path = p;
        SafetensorsOpen opened = SafetensorsFile::open(p);
        s.file = std::move(opened.file);
        s.error = std::move(opened.error);
        if (!s.file)
            note(p, Severity::Error, s.error.kind == ErrorKind::NotFound ? "shard_missing" : "shard_unreadable", 0,
                 p + ": " + s.error.message);
        m_shards.push_back(std::move(s));
    }
    std::map<std::string_view, uint32_t> seen;
    for (uint32_t i = 0; i < m_shards.size(); ++i) {
        if (!m_shards[i].file)
            continue;
        for (const TensorEntry &t : m_shards[i].file->tensors()) {
            if (const auto it = seen.find(t.name); it != seen.end())
                note(m_shards[i].path, Severity::Error, "duplicate_tensor", t.nameOffset,
                     "tensor " + quotedName(t.name) + " is in " + m_shards[it->second].path + " and again in " +
                         m_shards[i].path);
            else
                seen.emplace(t.name, i);
            m_tensors.push_back(TensorRef{i, &t});
        }
    }
}

void Checkpoint::checkIndex(const json::Value &weightMap, const json::Value *metadata)
{
    std::set<std::string_view> listed;
    for (size_t i = 0; i < weightMap.values.size(); ++i) {
        const std::string &name = weightMap.keys[i].first;
        const json::Value &shardName = weightMap.values[i];
        listed.insert(name);
        if (shardName.kind != json::Value::Kind::String || !plainFileName(shardName.text))
            continue;
        const std::string shardPath = sibling(m_indexPath, shardName.text);
        const auto shard =
            std::find_if(m_shards.begin(), m_shards.end(), [&](const Shard &s) { return s.path == shardPath; });
        if (shard == m_shards.end() || !shard->file)
            continue; // the shard itself is reported
        if (!shard->file->tensor(name))
            note(m_indexPath, Severity::Error, "tensor_missing_from_shard", weightMap.keys[i].second,
                 "index: tensor " + quotedName(name) + " should be in " + shardName.text + ", which does not hold it");
    }
    for (const TensorRef &t : m_tensors)
        if (!listed.count(t.entry->name))
            note(m_shards[t.shard].path, Severity::Warning, "tensor_not_in_index", t.entry->nameOffset,
                 "tensor " + quotedName(t.entry->name) +
                     " is not in the index's weight_map (loaders that follow the index skip it)");
    const json::Value *total = metadata ? metadata->find("total_size") : nullptr;
    if (const auto declared = total ? total->asUnsigned() : std::nullopt; declared && *declared != tensorBytes())
        note(m_indexPath, Severity::Warning, "total_size_mismatch", total->begin,
             "index: metadata.total_size says " + std::to_string(*declared) + " bytes; the shards' tensors hold " +
                 std::to_string(tensorBytes()));
}

std::string Checkpoint::besidePath(const std::string &file) const
{
    // beside the index or the shard (a folder's own file for a folder)
    std::error_code ec;
    return fs::is_directory(m_path, ec) ? (fs::path(m_path) / file).string()
                                        : sibling(m_indexPath.empty() ? m_path : m_indexPath, file);
}

std::optional<std::string> Checkpoint::readBeside(const std::string &file, Error &error) const
{
    const std::string path = besidePath(file);
    std::error_code ec;
    if (!looksRemote(path) && !fs::exists(path, ec)) {
        error = Error{ErrorKind::NotFound, "not_found", 0, path + ": no such file"};
        return std::nullopt;
    }
    return readSmallFile(path, error);
}

void Checkpoint::readConfig()
{
    const std::string config = besidePath("config.json");
    std::error_code ec;
    if (!looksRemote(config) && !fs::exists(config, ec))
        return;
    Error error;
    const auto text = readSmallFile(config, error);
    if (!text) {
        if (error.kind != ErrorKind::NotFound) // a remote folder without one is normal
            m_configProblem = error.message;
        return;
    }
    json::ParseError why;
    auto root = json::parse(*text, why);
    if (!root || root->kind != json::Value::Kind::Object) {
        m_configProblem =
            config + ": " +
            (root ? "not a JSON object" : "not JSON at offset " + std::to_string(why.offset) + ": " + why.message);
        return;
    }
    m_config = std::move(root);
}

std::string Checkpoint::architecture() const
{
    if (!m_config)
        return {};
    if (const json::Value *a = m_config->find("architectures"); a && a->kind == json::Value::Kind::Array &&
                                                                !a->values.empty() &&
                                                                a->values[0].kind == json::Value::Kind::String)
        return a->values[0].text;
    if (const json::Value *t = m_config->find("model_type"); t && t->kind == json::Value::Kind::String)
        return t->text;
    return {};
}

uint64_t Checkpoint::parameterCount() const
{
    uint64_t n = 0;
    for (const TensorRef &t : m_tensors)
        n += t.entry->elements;
    return n;
}

uint64_t Checkpoint::tensorBytes() const
{
    uint64_t n = 0;
    for (const TensorRef &t : m_tensors)
        n += t.entry->bytes();
    return n;
}

void Checkpoint::note(std::string file, Severity severity, std::string code, uint64_t offset, std::string message)
{
    m_findings.push_back(FileFinding{std::move(file), Finding{severity, std::move(code), offset, std::move(message)}});
}

bool Checkpoint::referenceAccepts() const
{
    const auto error = [](const FileFinding &f) { return f.finding.severity == Severity::Error; };
    return std::none_of(m_findings.begin(), m_findings.end(), error) &&
           std::all_of(m_shards.begin(), m_shards.end(),
                       [](const Shard &s) { return s.file && s.file->referenceAccepts(); });
}

const Checkpoint::TensorRef *Checkpoint::tensor(std::string_view name) const
{
    const auto it =
        std::find_if(m_tensors.begin(), m_tensors.end(), [&](const TensorRef &t) { return t.entry->name == name; });
    return it == m_tensors.end() ? nullptr : &*it;
}

} // namespace gguf::st
