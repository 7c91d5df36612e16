// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/format/byte_source.h"

#include "core/format/mapped_file.h"

#include <algorithm>
#include <mutex>

namespace gguf {
namespace {

struct Opener {
    std::mutex mutex;
    RemoteOpener open;
};

Opener &remoteOpener()
{
    static Opener opener;
    return opener;
}

} // namespace

ByteLease ByteSource::acquire(uint64_t offset, uint64_t size, const FetchProgress &progress) const
{
    (void)progress;
    const uint64_t total = this->size();
    if (offset >= total)
        return ByteLease({}, nullptr);
    const uint64_t n = std::min(size, total - offset);
    return ByteLease({data() + offset, static_cast<size_t>(n)}, nullptr);
}

void setRemoteOpener(RemoteOpener opener)
{
    std::lock_guard lock(remoteOpener().mutex);
    remoteOpener().open = std::move(opener);
}

bool looksRemote(const std::string &name)
{
    return name.starts_with("http://") || name.starts_with("https://") || name.starts_with("hf:") ||
           name.starts_with("HTTP://") || name.starts_with("HTTPS://");
}

std::shared_ptr<ByteSource> openByteSource(const std::string &name, Error &error, const FetchProgress &progress)
{
    if (!looksRemote(name))
        return MappedFile::open(name, error);
    RemoteOpener open;
    {
        std::lock_guard lock(remoteOpener().mutex);
        open = remoteOpener().open;
    }
    if (!open) {
        error = Error{ErrorKind::Unreadable, "remote_unsupported", 0,
                      name + ": this program was built without support for remote files"};
        return nullptr;
    }
    return open(name, error, progress);
}

} // namespace gguf
