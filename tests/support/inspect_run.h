// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Runs the built gguf-inspect (inspectPath(), tests/support/test_paths.h) and keeps what it printed
// and its exit status.

#include "tests/support/test_paths.h"

#include <QByteArray>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace gguf::test {

struct InspectRun {
    int exitCode = -1; ///< stays -1 after a crash or a hang
    QByteArray out;
    QByteArray err;
};

inline InspectRun inspect(const QStringList &args, const QString &workDir = {})
{
    QProcess process;
    if (!workDir.isEmpty())
        process.setWorkingDirectory(workDir);
    process.start(inspectPath(), args);
    InspectRun run;
    if (!process.waitForFinished(120000) || process.exitStatus() != QProcess::NormalExit)
        return run;
    run.exitCode = process.exitCode();
    run.out = process.readAllStandardOutput();
    run.err = process.readAllStandardError();
    return run;
}

} // namespace gguf::test
