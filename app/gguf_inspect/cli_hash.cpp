// SPDX-License-Identifier: GPL-3.0-or-later
// `hash`: llama-gguf-hash's lines (core/hash, docs/HASH.md), and --check against a manifest.
#include "app/gguf_inspect/commands.h"

#include "core/hash/model_hash.h"

#include <cstdio>
#include <fstream>
#include <sstream>

namespace cli {
namespace {

// One line of a manifest: llama-gguf-hash's output (or its --check output): type, digest, name.
struct ManifestLine {
    gguf::HashKind kind;
    std::string digest, name;
};

// The lines of `path` whose first word is a hash kind; nullopt when it cannot be read.
std::optional<std::vector<ManifestLine>> readManifest(const std::string &path)
{
    std::ifstream in(path);
    if (!in)
        return std::nullopt;
    std::vector<ManifestLine> out;
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream words(line);
        std::string kind, digest, name;
        if (!(words >> kind >> digest >> name))
            continue;
        if (const auto k = gguf::hashKindFromName(kind))
            out.push_back({*k, digest, name});
    }
    return out;
}

// The manifest's digest for `line`: the entry of the same kind and name (FILE:tensor, FILE), else —
// the file named otherwise — of the same kind and tensor (the name's part after its last ':'), or
// for the whole model the entry of that kind that is no tensor's. Empty when there is none.
std::string expected(const std::vector<ManifestLine> &manifest, const gguf::HashLine &line, const std::string &file,
                     const std::vector<std::string> &tensors)
{
    const std::string name = line.tensor.empty() ? file : file + ":" + line.tensor;
    for (const ManifestLine &m : manifest)
        if (m.kind == line.kind && m.name == name)
            return m.digest;
    for (const ManifestLine &m : manifest) {
        if (m.kind != line.kind)
            continue;
        const size_t colon = m.name.rfind(':');
        const std::string tensor = colon == std::string::npos ? std::string() : m.name.substr(colon + 1);
        const bool ofATensor = std::find(tensors.begin(), tensors.end(), tensor) != tensors.end();
        if (line.tensor.empty() ? !ofATensor : tensor == line.tensor)
            return m.digest;
    }
    return {};
}

// The kinds asked for: the options, else the strongest kind of the manifest (sha256, sha1, xxh64,
// uuid, as llama-gguf-hash chooses), else xxh64.
gguf::HashSelection selection(const HashOptions &o, const std::vector<ManifestLine> *manifest)
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
    if (s.any())
        return s;
    if (manifest)
        for (const gguf::HashKind k :
             {gguf::HashKind::Sha256, gguf::HashKind::Sha1, gguf::HashKind::Xxh64, gguf::HashKind::Uuid})
            if (std::any_of(manifest->begin(), manifest->end(), [k](const ManifestLine &m) { return m.kind == k; })) {
                s.set(k);
                return s;
            }
    s.set(gguf::HashKind::Xxh64);
    return s;
}

} // namespace

int runHash(const CommandArgs &args)
{
    std::optional<std::vector<ManifestLine>> manifest;
    if (args.hash.check) {
        manifest = readManifest(*args.hash.check);
        if (!manifest) {
            std::fprintf(stderr, "gguf-inspect: %s: the manifest cannot be read\n",
                         printable(*args.hash.check).c_str());
            return kExitBadFile;
        }
        if (manifest->empty()) {
            std::fprintf(stderr, "gguf-inspect: %s: no line of the manifest starts with xxh64, sha1, sha256 or uuid\n",
                         printable(*args.hash.check).c_str());
            return kExitBadFile;
        }
    }
    const auto model = openModel(args.file);
    if (!model)
        return kExitBadFile;
    const gguf::HashSelection which = selection(args.hash, manifest ? &*manifest : nullptr);
    const gguf::ModelHashes hashes = gguf::hashModel(*model, which);
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
    std::vector<std::string> tensors;
    for (const gguf::SplitModel::TensorRef &t : model->tensors())
        tensors.emplace_back(t.info->name);
    bool differs = false, modelFound = false, anyTensorFound = false;
    std::vector<std::string> differing;
    for (const gguf::HashLine &line : hashes.lines) {
        const std::string want = expected(*manifest, line, args.file, tensors);
        const char *result = want.empty() ? "Not Found" : want == line.digest ? "Ok" : "Mismatch";
        (line.tensor.empty() ? modelFound : anyTensorFound) |= !want.empty();
        if (!want.empty() && want != line.digest) {
            differs = true;
            differing.push_back(line.tensor.empty()
                                    ? "the whole model (" + std::string(gguf::hashKindName(line.kind)) + ")"
                                    : line.tensor);
        }
        print(gguf::hashLineText(line, args.file) + "  -  " + result + "\n");
    }
    const bool missing = !modelFound && !anyTensorFound;
    print("\nVerification results for " + *args.hash.check + " - " +
          (differs   ? "Failure"
           : missing ? "Manifest Missing Entry"
                     : "Success") +
          "\n");
    for (const std::string &d : differing)
        std::fprintf(stderr, "gguf-inspect: differs from the manifest: %s\n", printable(d).c_str());
    if (missing)
        std::fprintf(stderr, "gguf-inspect: %s has no entry for this model\n", printable(*args.hash.check).c_str());
    return differs || missing ? kExitBadFile : kExitOk;
}

} // namespace cli
