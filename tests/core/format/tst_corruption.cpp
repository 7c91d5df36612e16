// SPDX-License-Identifier: GPL-3.0-or-later
// The corruption matrix: every handcrafted mode of llama.cpp's tests/test-gguf.cpp and every finding
// the reader reports (cuts and impossible sizes are in tst_corruption_sizes). Each case asserts the
// error or finding code, its byte offset (taken from where the builder wrote the field) and
// whether llama.cpp would accept the file.
#include "core/format/ggml_types.h"
#include "core/format/gguf_file.h"
#include "tests/support/corruption_cases.h"
#include "tests/support/gguf_builder.h"
#include "tests/support/test_printers.h"

#include <QtTest>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

using namespace gguf;
using namespace gguf::test;
using namespace corruption_cases;

class TestCorruption : public QObject {
    Q_OBJECT

private slots:
    void llamaCppHandcrafted_data() { addLlamaCppRows(); }
    void llamaCppHandcrafted()
    {
        QFETCH(Case, testCase);
        checkCase(testCase);
    }
    void findings_data() { addFindingRows(); }
    void findings()
    {
        QFETCH(Case, testCase);
        checkCase(testCase);
    }
};

QTEST_GUILESS_MAIN(TestCorruption)
#include "tst_corruption.moc"
