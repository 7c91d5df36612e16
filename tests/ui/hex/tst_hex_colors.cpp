// SPDX-License-Identifier: GPL-3.0-or-later
// The Bytes page's colours keep text readable (#20): in a light and a dark palette, every byte's
// text against every background the view paints (each kind of byte, each block field, even and
// odd units, under the selection too) has a contrast of at least 4.5:1, the WCAG 2 level for
// body text; so do the offsets and notes on the plain base. The contrast is computed by
// tests/support/contrast.h from WCAG's formula, not by the code under test.

#include "tests/support/contrast.h"
#include "ui/hex/hex_colors.h"

#include <QStyle>
#include <QStyleFactory>
#include <QTest>

#include <memory>

namespace {

// `over` painted with its alpha onto the opaque `under`, as QPainter::fillRect does
QColor composite(const QColor &over, const QColor &under)
{
    const double a = over.alphaF();
    return QColor::fromRgbF(float(over.redF() * a + under.redF() * (1 - a)),
                            float(over.greenF() * a + under.greenF() * (1 - a)),
                            float(over.blueF() * a + under.blueF() * (1 - a)));
}

} // namespace

class TestHexColors : public QObject {
    Q_OBJECT

private slots:
    void textKeepsContrast_data()
    {
        QTest::addColumn<QPalette>("palette");
        const std::unique_ptr<QStyle> fusion(QStyleFactory::create(QStringLiteral("Fusion")));
        QVERIFY(fusion);
        QTest::newRow("light (Fusion)") << fusion->standardPalette();
        QTest::newRow("dark (Breeze Dark)") << gguf::test::breezeDarkPalette();
        QPalette white; // black on white, the other extreme
        white.setColor(QPalette::Base, Qt::white);
        white.setColor(QPalette::Text, Qt::black);
        white.setColor(QPalette::Highlight, QColor(0x30, 0x8c, 0xc6));
        QTest::newRow("black on white") << white;
    }

    void textKeepsContrast()
    {
        QFETCH(QPalette, palette);
        const HexColors colors(palette);
        QCOMPARE(colors.dark(), palette.color(QPalette::Base).lightness() < 128);
        double worst = 100;
        QString worstAt;
        auto check = [&](const QColor &text, const QColor &background, const QString &what) {
            const double c = gguf::test::contrastRatio(text, background);
            if (c < worst) {
                worst = c;
                worstAt = what;
            }
        };
        for (int category = 0; category < HexAnnotator::kCategoryCount; ++category) {
            const auto cat = HexAnnotator::Category(category);
            const int fields = cat == HexAnnotator::Category::TensorData ? HexColors::kFieldHues + 1 : 1;
            for (int field = 0; field < fields; ++field) {
                for (const bool odd : {false, true}) {
                    const HexAnnotator::Shade shade{cat, uint8_t(field), odd};
                    const QColor background = colors.background(shade);
                    const QString what = QStringLiteral("category %1 field %2 %3").arg(category).arg(field).arg(odd);
                    check(colors.text(cat), background, what);
                    check(colors.text(cat), composite(colors.selection(), background),
                          what + QStringLiteral(" selected"));
                    // the dots of bytes that have not arrived from a server are dimmed on any background
                    check(colors.dimText(), background, what + QStringLiteral(" dim"));
                    check(colors.dimText(), composite(colors.selection(), background),
                          what + QStringLiteral(" dim selected"));
                }
            }
        }
        check(colors.dimText(), colors.base(), QStringLiteral("offsets and notes"));
        check(colors.textColor(), composite(colors.selection(), colors.base()), QStringLiteral("plain bytes selected"));
        check(colors.dimText(), composite(colors.selection(), colors.base()), QStringLiteral("dots selected"));
        check(colors.notesText(), colors.base(), QStringLiteral("notes"));
        QVERIFY2(worst >= 4.5, qPrintable(QStringLiteral("contrast %1:1 at %2").arg(worst, 0, 'f', 2).arg(worstAt)));
    }
};

QTEST_MAIN(TestHexColors)
#include "tst_hex_colors.moc"
