// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/hex/hex_inspector.h"
#include "ui/common/fixed_font.h"

#include "core/format/gguf_file.h"
#include "core/util/byte_order.h"
#include "core/util/float_convert.h"
#include "ui/hex/hex_annotator.h"
#include "ui/hex/hex_colors.h"

#include <QEvent>
#include <QFontDatabase>
#include <QGridLayout>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

namespace {

const QString kMissing = QStringLiteral("—");

template <typename T> QString integer(std::span<const uint8_t> b, bool swapped)
{
    if (b.size() < sizeof(T))
        return kMissing;
    return QString::number(gguf::loadAs<T>(b.data(), swapped));
}

QString real(double value)
{
    return QString::number(value, 'g', 17);
}

} // namespace

HexInspector::HexInspector(QWidget *parent)
    : QWidget(parent), m_label(new QLabel(this)), m_explanation(new QLabel(this)), m_position(new QLabel(this)),
      m_byteOrder(new QLabel(this)), m_values(new QTableWidget(12, 2, this)), m_legend(new QGridLayout)
{
    for (QLabel *label : {m_label, m_explanation, m_position}) {
        label->setWordWrap(true);
        label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    }
    QFont bold = m_label->font();
    bold.setBold(true);
    m_label->setFont(bold);

    m_values->setHorizontalHeaderLabels({tr("Type"), tr("Value")});
    m_values->verticalHeader()->hide();
    m_values->horizontalHeader()->setStretchLastSection(true);
    m_values->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_values->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_values->setFont(fixedFont());
    m_values->setFocusPolicy(Qt::NoFocus);
    m_values->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    const auto rows = decode({}, false);
    for (int r = 0; r < rows.size(); ++r) {
        m_values->setItem(r, 0, new QTableWidgetItem(rows[r].first));
        m_values->setItem(r, 1, new QTableWidgetItem(rows[r].second));
    }
    m_values->resizeRowsToContents();
    const int rowsHeight = m_values->verticalHeader()->length() + m_values->horizontalHeader()->height();
    m_values->setFixedHeight(rowsHeight + 2 * m_values->frameWidth());

    auto *legendBox = new QGroupBox(tr("Colours"), this);
    legendBox->setLayout(m_legend);
    m_legend->setSpacing(2);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_label);
    layout->addWidget(m_explanation);
    layout->addWidget(m_position);
    layout->addWidget(m_byteOrder);
    layout->addWidget(m_values);
    layout->addWidget(legendBox);
    layout->addStretch(1);
    createLegend();
    updateLegend();
    inspect(nullptr, nullptr, 0);
}

QList<QPair<QString, QString>> HexInspector::decode(std::span<const uint8_t> b, bool swapped)
{
    const auto f16 = [&](bool brain) {
        if (b.size() < 2)
            return kMissing;
        const uint16_t bits = gguf::loadAs<uint16_t>(b.data(), swapped);
        return real(brain ? gguf::bf16ToFp32(bits) : gguf::fp16ToFp32(bits));
    };
    return {
        {QStringLiteral("u8"), integer<uint8_t>(b, swapped)},
        {QStringLiteral("i8"), integer<int8_t>(b, swapped)},
        {QStringLiteral("u16"), integer<uint16_t>(b, swapped)},
        {QStringLiteral("i16"), integer<int16_t>(b, swapped)},
        {QStringLiteral("u32"), integer<uint32_t>(b, swapped)},
        {QStringLiteral("i32"), integer<int32_t>(b, swapped)},
        {QStringLiteral("u64"), integer<uint64_t>(b, swapped)},
        {QStringLiteral("i64"), integer<int64_t>(b, swapped)},
        {QStringLiteral("f16"), f16(false)},
        {QStringLiteral("bf16"), f16(true)},
        {QStringLiteral("f32"), b.size() < 4 ? kMissing : real(gguf::loadAs<float>(b.data(), swapped))},
        {QStringLiteral("f64"), b.size() < 8 ? kMissing : real(gguf::loadAs<double>(b.data(), swapped))},
    };
}

void HexInspector::inspect(const gguf::GgufFile *file, const HexAnnotator *annotator, uint64_t offset)
{
    if (!file || offset >= file->fileSize()) {
        m_label->setText(tr("No file"));
        m_explanation->clear();
        m_position->clear();
        m_byteOrder->clear();
        const auto rows = decode({}, false);
        for (int r = 0; r < rows.size(); ++r)
            m_values->item(r, 1)->setText(rows[r].second);
        return;
    }
    // a remote file's bytes only once fetched (the view asks for the rows on screen)
    const gguf::ByteLease held = file->peek(offset, 8);
    const std::span<const uint8_t> bytes = held.bytes();
    if (annotator) {
        const HexAnnotator::Description d = annotator->describe(offset);
        m_label->setText(d.label);
        m_explanation->setText(d.explanation);
        m_position->setText(tr("Byte 0x%1 (%2) · field 0x%3–0x%4, %5 bytes")
                                .arg(QString::number(offset, 16))
                                .arg(offset)
                                .arg(QString::number(d.unitOffset, 16), QString::number(d.unitOffset + d.unitSize, 16))
                                .arg(d.unitSize));
    } else {
        m_label->setText(tr("Mapping the file's bytes…"));
        m_explanation->clear();
        m_position->setText(tr("Byte 0x%1 (%2)").arg(QString::number(offset, 16)).arg(offset));
    }
    m_byteOrder->setText(file->byteSwapped() ? tr("Read big-endian (the file's byte order):")
                                             : tr("Read little-endian (the file's byte order):"));
    const auto rows = decode(bytes, file->byteSwapped());
    for (int r = 0; r < rows.size(); ++r)
        m_values->item(r, 1)->setText(rows[r].second);
}

QString HexInspector::labelText() const
{
    return m_label->text();
}

QString HexInspector::explanationText() const
{
    return m_explanation->text();
}

QString HexInspector::valueText(const QString &type) const
{
    for (int r = 0; r < m_values->rowCount(); ++r)
        if (m_values->item(r, 0)->text() == type)
            return m_values->item(r, 1)->text();
    return {};
}

void HexInspector::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        updateLegend();
}

void HexInspector::createLegend()
{
    QStringList names;
    for (int c = 0; c < HexAnnotator::kCategoryCount; ++c) {
        const auto category = HexAnnotator::Category(c);
        names << (category == HexAnnotator::Category::TensorData ? tr("tensor data: plain elements")
                                                                 : HexAnnotator::categoryName(category));
    }
    names << tr("1st block field (Q4_K d)") << tr("2nd block field (dmin)") << tr("3rd block field (scales)")
          << tr("4th block field (qs)");
    for (int i = 0; i < names.size(); ++i) {
        auto *label = new QLabel(names[i], this);
        label->setAutoFillBackground(true);
        label->setContentsMargins(4, 0, 4, 0);
        m_legend->addWidget(label, i / 2, i % 2);
        m_swatches << label;
    }
}

void HexInspector::updateLegend()
{
    const HexColors colors(palette());
    for (int i = 0; i < m_swatches.size(); ++i) {
        const QColor color = i < HexAnnotator::kCategoryCount ? colors.swatch(HexAnnotator::Category(i))
                                                              : colors.fieldSwatch(i - HexAnnotator::kCategoryCount);
        QPalette p = m_swatches[i]->palette();
        p.setColor(QPalette::Window, color);
        p.setColor(QPalette::WindowText, colors.textColor());
        m_swatches[i]->setPalette(p);
    }
}
