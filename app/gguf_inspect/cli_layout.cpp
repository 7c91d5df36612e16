// SPDX-License-Identifier: GPL-3.0-or-later
// `layout`: the byte map, every byte of the file in order.
#include "app/gguf_inspect/commands.h"

#include "app/gguf_inspect/json_writer.h"
#include "core/format/byte_map.h"

#include <cstdio>

namespace cli {
namespace {

// Every region of every shard in shard order; for a split set each names its `file`, as
// validate's findings do.
void writeLayoutJson(const gguf::SplitModel &model)
{
    JsonWriter json(stdout);
    json.beginArray();
    for (const gguf::SplitModel::Shard &shard : model.shards()) {
        if (!shard.file)
            continue;
        const gguf::ByteMap map(*shard.file);
        for (const gguf::Region &r : map.regions()) {
            json.beginObject();
            if (model.isSplit())
                json.field("file", shard.path);
            json.field("offset", r.offset);
            json.field("size", r.size);
            json.field("kind", gguf::regionKindName(r.kind));
            json.field("label", map.label(r));
            json.endObject();
        }
    }
    json.endArray();
    json.finish();
}

void printMap(const gguf::ByteMap &map)
{
    std::vector<LayoutRow> rows;
    for (const gguf::Region &r : map.regions())
        rows.push_back({r.offset, r.size, gguf::regionKindName(r.kind), map.label(r)});
    printLayoutTable(rows);
}

} // namespace

int runLayout(const CommandArgs &args)
{
    // A split set: each shard's map in turn. A file that stopped early is still mapped: what was
    // parsed, then one "unparsed" region.
    const auto model = openModelAsFarAsItParses(args.file);
    if (!model)
        return kExitBadFile;
    if (args.json) {
        writeLayoutJson(*model);
    } else if (!model->isSplit()) {
        printMap(gguf::ByteMap(model->primary()));
    } else {
        for (size_t i = 0; i < model->shards().size(); ++i)
            if (const gguf::GgufFile *file = printShardHeading(*model, i))
                printMap(gguf::ByteMap(*file));
    }
    return reportModelProblem(*model) ? kExitBadFile : kExitOk;
}

} // namespace cli
