// SPDX-License-Identifier: GPL-3.0-or-later
// Block-field layouts: for every ggml type id the fields tile its block exactly (the type table's
// byte size), scalar fields have their format's size, and bytes of a tensor locate to the right
// block and field (including BitNet I2_S's trailing scale).
#include "core/format/block_fields.h"
#include "core/format/ggml_types.h"

#include <QtTest>

#include <set>
#include <string>

using namespace gguf;

namespace {

uint32_t id(GgmlType t)
{
    return static_cast<uint32_t>(t);
}

// Bytes a scalar format occupies; 0 for formats that are arrays of any length.
uint32_t scalarSize(FieldFormat format)
{
    switch (format) {
    case FieldFormat::F16:
    case FieldFormat::BF16: return 2;
    case FieldFormat::F32: return 4;
    case FieldFormat::F64: return 8;
    case FieldFormat::E8M0: return 1;
    default: return 0;
    }
}

QString fieldNames(uint32_t typeId)
{
    QStringList names;
    for (const BlockField &f : blockFields(typeId))
        names << QStringLiteral("%1@%2+%3")
                     .arg(QLatin1String(f.name.data(), qsizetype(f.name.size())))
                     .arg(f.offset)
                     .arg(f.size);
    return names.join(u' ');
}

} // namespace

class TestBlockFields : public QObject {
    Q_OBJECT

private slots:
    void fieldsTileTheBlock_data()
    {
        QTest::addColumn<uint>("typeId");
        for (uint32_t t = 0; t < kGgmlTypeCount + 3; ++t)
            QTest::newRow(typeName(t).c_str()) << uint(t);
        QTest::newRow("fork id 133") << 133u;
    }

    void fieldsTileTheBlock()
    {
        QFETCH(uint, typeId);
        const TypeTraits &traits = typeTraits(typeId);
        const auto fields = blockFields(typeId);
        if (traits.typeSize == 0) {
            QVERIFY2(fields.empty(), "a type without a size has no layout");
            return;
        }
        QVERIFY2(!fields.empty(), "every sized type has a layout");
        uint32_t end = 0;
        std::set<std::string_view> names;
        for (const BlockField &f : fields) {
            QCOMPARE(f.offset, end); // no gap, no overlap
            QVERIFY(f.size > 0);
            QVERIFY(!f.name.empty());
            QVERIFY(!f.description.empty());
            QVERIFY2(names.insert(f.name).second, "field names are unique in a block");
            if (const uint32_t scalar = scalarSize(f.format))
                QCOMPARE(f.size, scalar);
            end = f.offset + f.size;
        }
        QCOMPARE(end, traits.typeSize);
        if (traits.blockSize == 1)
            QCOMPARE(fields.size(), size_t(1)); // plain types: the element itself
    }

    void knownLayouts_data()
    {
        QTest::addColumn<uint>("typeId");
        QTest::addColumn<QString>("layout");
        QTest::newRow("Q4_0") << uint(id(GgmlType::Q4_0)) << "d@0+2 qs@2+16";
        QTest::newRow("Q5_1") << uint(id(GgmlType::Q5_1)) << "d@0+2 m@2+2 qh@4+4 qs@8+16";
        QTest::newRow("Q8_0") << uint(id(GgmlType::Q8_0)) << "d@0+2 qs@2+32";
        QTest::newRow("Q2_K") << uint(id(GgmlType::Q2_K)) << "scales@0+16 qs@16+64 d@80+2 dmin@82+2";
        QTest::newRow("Q4_K") << uint(id(GgmlType::Q4_K)) << "d@0+2 dmin@2+2 scales@4+12 qs@16+128";
        QTest::newRow("Q6_K") << uint(id(GgmlType::Q6_K)) << "ql@0+128 qh@128+64 scales@192+16 d@208+2";
        QTest::newRow("Q8_K") << uint(id(GgmlType::Q8_K)) << "d@0+4 qs@4+256 bsums@260+32";
        QTest::newRow("IQ4_XS") << uint(id(GgmlType::IQ4_XS)) << "d@0+2 scales_h@2+2 scales_l@4+4 qs@8+128";
        QTest::newRow("MXFP4") << uint(id(GgmlType::MXFP4)) << "e@0+1 qs@1+16";
        QTest::newRow("I2_S") << uint(id(GgmlType::I2_S)) << "qs@0+32";
        QTest::newRow("F32") << uint(id(GgmlType::F32)) << "value@0+4";
        QTest::newRow("BF16") << uint(id(GgmlType::BF16)) << "value@0+2";
    }

    void knownLayouts()
    {
        QFETCH(uint, typeId);
        QFETCH(QString, layout);
        QCOMPARE(fieldNames(typeId), layout);
    }

    void locate_data()
    {
        QTest::addColumn<uint>("typeId");
        QTest::addColumn<quint64>("elements");
        QTest::addColumn<quint64>("relative");
        QTest::addColumn<bool>("found");
        QTest::addColumn<quint64>("block");
        QTest::addColumn<QString>("field");
        QTest::addColumn<bool>("trailer");
        const uint q4k = id(GgmlType::Q4_K), i2s = id(GgmlType::I2_S);
        QTest::newRow("Q4_K block 37, scales")
            << q4k << quint64(256 * 100) << quint64(37 * 144 + 5) << true << quint64(37) << "scales" << false;
        QTest::newRow("Q4_K block 0, first byte")
            << q4k << quint64(256) << quint64(0) << true << quint64(0) << "d" << false;
        QTest::newRow("Q4_K last byte") << q4k << quint64(512) << quint64(287) << true << quint64(1) << "qs" << false;
        QTest::newRow("Q4_K past the blocks")
            << q4k << quint64(512) << quint64(288) << false << quint64(0) << "" << false;
        QTest::newRow("Q8_0 d of block 3")
            << uint(id(GgmlType::Q8_0)) << quint64(320) << quint64(3 * 34 + 1) << true << quint64(3) << "d" << false;
        QTest::newRow("F16 element 9") << uint(id(GgmlType::F16)) << quint64(64) << quint64(19) << true << quint64(9)
                                       << "value" << false;
        QTest::newRow("I2_S codes") << i2s << quint64(256) << quint64(40) << true << quint64(1) << "qs" << false;
        QTest::newRow("I2_S trailing scale")
            << i2s << quint64(256) << quint64(64 + 2) << true << quint64(0) << "scale" << true;
        QTest::newRow("I2_S trailer padding")
            << i2s << quint64(256) << quint64(64 + 31) << true << quint64(0) << "padding" << true;
        QTest::newRow("I2_S past the trailer")
            << i2s << quint64(256) << quint64(64 + 32) << false << quint64(0) << "" << false;
        QTest::newRow("removed type") << 4u << quint64(32) << quint64(0) << false << quint64(0) << "" << false;
    }

    void locate()
    {
        QFETCH(uint, typeId);
        QFETCH(quint64, elements);
        QFETCH(quint64, relative);
        QFETCH(bool, found);
        QFETCH(quint64, block);
        QFETCH(QString, field);
        QFETCH(bool, trailer);
        const auto pos = locateInTensor(typeId, elements, relative);
        QCOMPARE(pos.has_value(), found);
        if (!found)
            return;
        QCOMPARE(pos->trailer, trailer);
        if (!trailer)
            QCOMPARE(pos->block, block);
        QCOMPARE(QLatin1String(pos->field->name.data(), qsizetype(pos->field->name.size())), field);
        QCOMPARE(pos->trailerScale, trailer && field == QLatin1String("scale"));
        // the field holds the byte
        QVERIFY(relative >= pos->blockOffset + pos->field->offset);
        QVERIFY(relative < pos->blockOffset + pos->field->offset + pos->field->size);
    }
};

QTEST_GUILESS_MAIN(TestBlockFields)
#include "tst_block_fields.moc"
