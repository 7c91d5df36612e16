// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Where the tests find their files and the built programs. The values live in one source file
// that CMake generates in the build folder (tests/support/test_paths.cpp.in), compiled into
// gguf_test_support: no test's own compile line names a folder of the checkout, so a clone in
// another folder compiles the tests to the same objects and hits the compiler cache
// (cmake/build_speed.cmake). Paths have no trailing slash.

#include <QString>
#include <QStringView>

namespace gguf::test {

/// tests/data
QString dataDir();
/// the repository's root
QString sourceDir();
/// the build folder (CMake's PROJECT_BINARY_DIR)
QString buildDir();
/// resources/
QString resourcesDir();
/// resources/sample/tiny-llama-tied-q4_k_m.gguf
QString sampleModel();
/// resources/sample
QString sampleModelDir();
/// the built gguf-inspect
QString inspectPath();
/// the built gguf-explorer; empty in a build without the explorer (GGUF_BUILD_GUI=OFF)
QString explorerPath();
/// Qt's lrelease; empty in a build without the explorer
QString lreleasePath();
/// the explorer's translation template made by the build (app/CMakeLists.txt); empty without the explorer
QString tsTemplate();

/// `relative` under tests/data
inline QString dataPath(QStringView relative)
{
    QString path = dataDir();
    path += QLatin1Char('/');
    path += relative;
    return path;
}

/// `relative` under the repository's root
inline QString sourcePath(QStringView relative)
{
    QString path = sourceDir();
    path += QLatin1Char('/');
    path += relative;
    return path;
}

} // namespace gguf::test
