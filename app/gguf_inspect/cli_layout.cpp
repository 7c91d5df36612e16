// SPDX-License-Identifier: GPL-3.0-or-later
// `layout`: the byte map, every byte of the file in order.
#include "app/gguf_inspect/commands.h"

#include "app/gguf_inspect/json_writer.h"
#include "core/format/byte_map.h"

#include <cstdio>

namespace cli {
namespace {

void writeLayoutJson(const gguf::ByteMap &map)
{
    JsonWriter json(stdout);
    json.beginArray();
    for (const gguf::Region &r : map.regions()) {
        json.beginObject();
        json.field("offset", r.offset);
        json.field("size", r.size);
        json.field("kind", gguf::regionKindName(r.kind));
        json.field("label", map.label(r));
        json.endObject();
    }
    json.endArray();
    json.finish();
}

void printTable(const gguf::ByteMap &map)
{
    TextTable table({{"offset", TextTable::Align::Right},
                     {"hex", TextTable::Align::Right},
                     {"size", TextTable::Align::Right},
                     {"kind"},
                     {"label"}});
    char hex[24];
    for (const gguf::Region &r : map.regions()) {
        std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(r.offset));
        table.addRow({std::to_string(r.offset), hex, groupDigits(r.size), std::string(gguf::regionKindName(r.kind)),
                      printable(map.label(r), 120)});
    }
    table.print();
}

} // namespace

int runLayout(const CommandArgs &args)
{
    // A file that stopped early is still mapped: what was parsed, then one "unparsed" region.
    const auto file = openFile(args.file, OpenMode::Partial);
    if (!file)
        return kExitBadFile;
    const gguf::ByteMap map(*file);
    if (args.json)
        writeLayoutJson(map);
    else
        printTable(map);
    if (file->error()) {
        reportError(args.file, file->error());
        return kExitBadFile;
    }
    return kExitOk;
}

} // namespace cli
