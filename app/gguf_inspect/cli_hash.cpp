// SPDX-License-Identifier: GPL-3.0-or-later
// `hash`: llama-gguf-hash's lines (core/hash, docs/HASH.md), and --check against a manifest.
#include "app/gguf_inspect/commands.h"

#include "core/hash/model_hash.h"
#include "core/safetensors/checkpoint.h"
#include "core/safetensors/safetensors_file.h"

#include <cstdio>
#include <fstream>
#include <sstream>

namespace cli {
namespace {

// The manifest's lines; nullopt when it cannot be read.
std::optional<std::vector<gguf::ManifestLine>> readManifest(const std::string &path)
{
    std::ifstream in(path);
    if (!in)
        return std::nullopt;
    std::ostringstream text;
    text << in.rdbuf();
    return gguf::parseManifest(text.str());
}

// The kinds asked for: the options, else the strongest kind of the manifest (sha256, sha1, xxh64,
// uuid, as llama-gguf-hash chooses), else xxh64.
gguf::HashSelection selection(const HashOptions &o, const std::vector<gguf::ManifestLine> *manifest)
{
    gguf::HashSelection s;
    s.perTensor = !o.noLayer;
    if (o.xxh64 || o.all)
        s.set(gguf::HashKind::Xxh64);
    if (o.sha1 || o.all)
        s.set(gguf::HashKind::Sha1);
    if (o.sha256 || o.all)
        s.set(gguf::HashKind::Sha256);
    if (o.uuid)
        s.set(gguf::HashKind::Uuid);
    if (!s.any())
        s.set(manifest ? gguf::strongestKind(*manifest).value_or(gguf::HashKind::Xxh64) : gguf::HashKind::Xxh64);
    return s;
}

// The manifest of --check (nullopt without it); false, after the message, when it cannot be used.
bool manifestOf(const CommandArgs &args, std::optional<std::vector<gguf::ManifestLine>> &manifest)
{
    if (!args.hash.check)
        return true;
    manifest = readManifest(*args.hash.check);
    if (!manifest) {
        std::fprintf(stderr, "gguf-inspect: %s: the manifest cannot be read\n", printable(*args.hash.check).c_str());
        return false;
    }
    if (manifest->empty()) {
        std::fprintf(stderr, "gguf-inspect: %s: no line of the manifest starts with xxh64, sha1, sha256 or uuid\n",
                     printable(*args.hash.check).c_str());
        return false;
    }
    return true;
}

// The lines of `tensors`' hashes, or each checked against the manifest.
int hashAndPrint(const CommandArgs &args, const std::optional<std::vector<gguf::ManifestLine>> &manifest,
                 const std::vector<gguf::HashedTensor> &tensors)
{
    const gguf::HashSelection which = selection(args.hash, manifest ? &*manifest : nullptr);
    const gguf::ModelHashes hashes = gguf::hashTensors(tensors, which);
    if (hashes.error) {
        std::fprintf(stderr, "gguf-inspect: %s: %s\n", printable(args.file).c_str(),
                     printable(hashes.error->message).c_str());
        return kExitBadFile;
    }
    if (!manifest) {
        for (const gguf::HashLine &line : hashes.lines)
            print(gguf::hashLineText(line, args.file) + "\n");
        return kExitOk;
    }
    std::vector<std::string> names;
    names.reserve(tensors.size());
    for (const gguf::HashedTensor &t : tensors)
        names.push_back(t.name);
    const gguf::ManifestCheck check = gguf::checkAgainst(hashes.lines, *manifest, args.file, names);
    for (const gguf::CheckedLine &c : check.lines)
        print(gguf::hashLineText(c.line, args.file) + "  -  " + gguf::checkResultName(c.result) + "\n");
    print("\nVerification results for " + *args.hash.check + " - " +
          (!check.differing.empty() ? "Failure"
           : check.missing          ? "Manifest Missing Entry"
                                    : "Success") +
          "\n");
    for (const std::string &d : check.differing)
        std::fprintf(stderr, "gguf-inspect: differs from the manifest: %s\n", printable(d).c_str());
    if (check.missing)
        std::fprintf(stderr, "gguf-inspect: %s has no entry for this model\n", printable(*args.hash.check).c_str());
    return check.ok() ? kExitOk : kExitBadFile;
}

} // namespace

int runHash(const CommandArgs &args)
{
    std::optional<std::vector<gguf::ManifestLine>> manifest;
    if (!manifestOf(args, manifest))
        return kExitBadFile;
    const auto model = openModel(args.file);
    if (!model)
        return kExitBadFile;
    std::vector<gguf::HashedTensor> tensors;
    tensors.reserve(model->tensors().size());
    for (const gguf::SplitModel::TensorRef &t : model->tensors()) {
        const gguf::GgufFile &file = *model->shards()[t.shard].file;
        tensors.push_back({std::string(t.info->name), gguf::tensorData(file, *t.info), t.info->byteSize,
                           t.info->fileOffset, file.path()});
    }
    return hashAndPrint(args, manifest, tensors);
}

int runHashOf(const gguf::st::Checkpoint &checkpoint, const CommandArgs &args)
{
    std::optional<std::vector<gguf::ManifestLine>> manifest;
    if (!manifestOf(args, manifest))
        return kExitBadFile;
    std::vector<gguf::HashedTensor> tensors;
    tensors.reserve(checkpoint.tensors().size());
    for (const gguf::st::Checkpoint::TensorRef &t : checkpoint.tensors()) {
        const gguf::st::Checkpoint::Shard &shard = checkpoint.shards()[t.shard];
        if (!shard.file) {
            std::fprintf(stderr, "gguf-inspect: %s: %s\n", printable(shard.path).c_str(),
                         printable(shard.error.message).c_str());
            return kExitBadFile;
        }
        const gguf::st::TensorEntry &e = *t.entry;
        // the bytes as they are, whatever the dtype (the type id only matters to a decoder)
        tensors.push_back({e.name,
                           gguf::tensorData(shard.file->source(), 0, e.elements, e.fileBegin, e.bytes(), e.dataInFile),
                           e.bytes(), e.fileBegin, shard.path});
    }
    return hashAndPrint(args, manifest, tensors);
}

} // namespace cli
