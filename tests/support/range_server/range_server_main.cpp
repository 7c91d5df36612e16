// SPDX-License-Identifier: GPL-3.0-or-later
// gguf-test-server [--port N] DIR: serves every file under DIR at /<relative path> with RangeServer,
// for trying remote files in the explorer by hand. Prints its URL, then runs until killed.
#include "tests/support/range_server/range_server.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

#include <unistd.h>

namespace {

int usage()
{
    std::fprintf(stderr, "usage: gguf-test-server [--port N] DIR\n"
                         "Serves every file under DIR at http://127.0.0.1:PORT/<relative path> (GET, HEAD, ranges).\n");
    return 2;
}

} // namespace

int main(int argc, char **argv)
{
    unsigned long port = 0;
    std::string root;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg == "--port" && i + 1 < argc) {
            char *end = nullptr;
            port = std::strtoul(argv[++i], &end, 10);
            if (*end != '\0' || port > 65535)
                return usage();
        } else if (arg == "-h" || arg == "--help" || !root.empty() || arg.starts_with("-")) {
            return usage();
        } else {
            root = std::string(arg);
        }
    }
    if (root.empty())
        return usage();

    namespace fs = std::filesystem;
    std::error_code error;
    const fs::path base = fs::canonical(root, error);
    if (error || !fs::is_directory(base)) {
        std::fprintf(stderr, "gguf-test-server: %s is not a folder\n", root.c_str());
        return 1;
    }
    gguf::test::RangeServer server;
    int files = 0;
    const auto options =
        fs::directory_options::follow_directory_symlink | fs::directory_options::skip_permission_denied;
    for (auto it = fs::recursive_directory_iterator(base, options, error); !error && it != fs::end(it);
         it.increment(error)) {
        if (!it->is_regular_file(error))
            continue;
        server.serve("/" + it->path().lexically_relative(base).generic_string(), it->path().string());
        ++files;
    }
    if (error)
        std::fprintf(stderr, "gguf-test-server: %s: %s\n", base.c_str(), error.message().c_str());
    if (!server.start(static_cast<uint16_t>(port))) {
        std::fprintf(stderr, "gguf-test-server: cannot listen on 127.0.0.1:%lu\n", port);
        return 1;
    }
    // the URL first and alone on stdout, so a script can read the port
    std::printf("%s\n", server.url("/").c_str());
    std::fflush(stdout);
    std::fprintf(stderr, "serving %d files from %s (files added later are not served)\n", files, base.c_str());
    // until killed: the default SIGINT and SIGTERM actions end the process
    for (;;)
        ::pause();
}
