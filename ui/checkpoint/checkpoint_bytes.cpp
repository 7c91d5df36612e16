// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/checkpoint/checkpoint_bytes.h"

#include "core/safetensors/checkpoint.h"
#include "ui/common/fixed_font.h"
#include "ui/common/text_format.h"

#include <QAbstractTableModel>
#include <QComboBox>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSplitter>
#include <QTreeView>
#include <QVBoxLayout>

using gguf::st::Checkpoint;
using gguf::st::RegionKind;

namespace {

constexpr uint64_t kShownBytes = 4096; // of a region, in the dump

// "00000010  7b 22 5f 5f 6d 65 74 61  64 61 74 61 5f 5f 22 3a  |{"__metadata__":|"
QString hexLines(const uint8_t *bytes, uint64_t size, uint64_t offset)
{
    QString out;
    for (uint64_t row = 0; row < size; row += 16) {
        QString hex, text;
        for (uint64_t i = 0; i < 16; ++i) {
            if (row + i < size) {
                const uint8_t b = bytes[row + i];
                hex += QStringLiteral("%1 ").arg(b, 2, 16, QLatin1Char('0'));
                text += b >= 0x20 && b < 0x7f ? QChar(b) : QChar(u'.');
            } else {
                hex += QStringLiteral("   ");
            }
            if (i == 7)
                hex += QLatin1Char(' ');
        }
        out += QStringLiteral("%1  %2 |%3|\n").arg(offset + row, 8, 16, QLatin1Char('0')).arg(hex, text);
    }
    return out;
}

QString kindText(RegionKind kind)
{
    return QString::fromStdString(std::string(gguf::st::regionKindName(kind)));
}

} // namespace

/// The regions of a shard, a row each: built on demand in data(), so that a shard of tens of
/// thousands of tensors shows at once.
class RegionModel : public QAbstractTableModel {
public:
    using QAbstractTableModel::QAbstractTableModel;
    void setRegions(const std::vector<gguf::st::Region> *regions)
    {
        beginResetModel();
        m_regions = regions;
        endResetModel();
    }
    int rowCount(const QModelIndex &parent = {}) const override
    {
        return parent.isValid() || !m_regions ? 0 : static_cast<int>(m_regions->size());
    }
    int columnCount(const QModelIndex &parent = {}) const override { return parent.isValid() ? 0 : 4; }
    QVariant data(const QModelIndex &index, int role) const override
    {
        if (!m_regions || !index.isValid() || role != Qt::DisplayRole)
            return {};
        const gguf::st::Region &r = (*m_regions)[size_t(index.row())];
        switch (index.column()) {
        case 0: return TextFormat::offset(r.offset);
        case 1: return TextFormat::count(r.size);
        case 2: return kindText(r.kind);
        default: return QString::fromStdString(r.label);
        }
    }
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override
    {
        if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
            return {};
        const char *names[] = {QT_TR_NOOP("Offset"), QT_TR_NOOP("Size"), QT_TR_NOOP("Region"), QT_TR_NOOP("What")};
        return CheckpointBytes::tr(names[section]);
    }

private:
    const std::vector<gguf::st::Region> *m_regions = nullptr;
};

CheckpointBytes::CheckpointBytes(QWidget *parent)
    : QWidget(parent), m_shards(new QComboBox(this)), m_model(new RegionModel(this)), m_regions(new QTreeView(this)),
      m_explanation(new QLabel(this)), m_dump(new QPlainTextEdit(this))
{
    m_regions->setModel(m_model);
    m_regions->setRootIsDecorated(false);
    m_regions->setUniformRowHeights(true);
    m_regions->header()->setStretchLastSection(true);
    m_regions->setFont(fixedFont());
    m_dump->setReadOnly(true);
    m_dump->setFont(fixedFont());
    m_dump->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_explanation->setWordWrap(true);
    m_explanation->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto *right = new QWidget(this);
    auto *rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    rightLayout->addWidget(m_explanation);
    rightLayout->addWidget(m_dump, 1);
    auto *split = new QSplitter(this);
    split->addWidget(m_regions);
    split->addWidget(right);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_shards);
    layout->addWidget(split, 1);
    connect(m_shards, &QComboBox::currentIndexChanged, this, &CheckpointBytes::showShard);
    connect(m_regions->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &index) { showRegion(index.isValid() ? index.row() : -1); });
}

CheckpointBytes::~CheckpointBytes() = default;

void CheckpointBytes::setCheckpoint(const std::shared_ptr<const Checkpoint> &checkpoint)
{
    m_checkpoint = checkpoint;
    m_shard = -1;
    const QSignalBlocker block(m_shards);
    m_shards->clear();
    if (checkpoint)
        for (const Checkpoint::Shard &s : checkpoint->shards())
            m_shards->addItem(QFileInfo(QString::fromStdString(s.path)).fileName());
    showShard(checkpoint && !checkpoint->shards().empty() ? 0 : -1);
}

void CheckpointBytes::showTensor(int index)
{
    if (!m_checkpoint || index < 0 || size_t(index) >= m_checkpoint->tensors().size())
        return;
    const Checkpoint::TensorRef &ref = m_checkpoint->tensors()[size_t(index)];
    m_shards->setCurrentIndex(static_cast<int>(ref.shard));
    showShard(static_cast<int>(ref.shard));
    for (size_t i = 0; i < m_shown.size(); ++i)
        if (m_shown[i].kind == RegionKind::TensorData && m_shown[i].offset == ref.entry->fileBegin) {
            m_regions->setCurrentIndex(m_model->index(static_cast<int>(i), 0));
            return;
        }
}

void CheckpointBytes::showShard(int shard)
{
    if (shard == m_shard)
        return;
    m_shard = shard;
    m_model->setRegions(nullptr);
    m_shown.clear();
    m_dump->clear();
    m_explanation->clear();
    if (!m_checkpoint || shard < 0)
        return;
    const Checkpoint::Shard &s = m_checkpoint->shards()[size_t(shard)];
    if (!s.file) {
        m_explanation->setText(tr("This shard could not be read: %1").arg(QString::fromStdString(s.error.message)));
        return;
    }
    m_shown = gguf::st::byteRegions(*s.file);
    m_model->setRegions(&m_shown);
    for (int i = 0; i < 3; ++i)
        m_regions->resizeColumnToContents(i);
    if (!m_shown.empty())
        m_regions->setCurrentIndex(m_model->index(0, 0));
}

void CheckpointBytes::showRegion(int row)
{
    m_dump->clear();
    if (!m_checkpoint || m_shard < 0 || row < 0 || size_t(row) >= m_shown.size())
        return;
    const gguf::st::SafetensorsFile &file = *m_checkpoint->shards()[size_t(m_shard)].file;
    const gguf::st::Region &r = m_shown[size_t(row)];
    const uint64_t shown = std::min(r.size, kShownBytes);
    QString what = tr("%1 at %2, %3 bytes")
                       .arg(kindText(r.kind), TextFormat::offsetAndDecimal(r.offset), TextFormat::count(r.size));
    if (r.kind == RegionKind::HeaderLength)
        what += tr(": the JSON header's length, %1 bytes (little-endian u64); the data begins at %2")
                    .arg(TextFormat::count(file.headerLength()), TextFormat::offsetAndDecimal(file.dataOffset()));
    else if (!r.label.empty())
        what += QStringLiteral(": ") + QString::fromStdString(r.label);
    if (shown < r.size)
        what += tr(" (the first %1 shown)").arg(TextFormat::count(shown));
    m_explanation->setText(what);
    // a remote shard's bytes are shown when at hand; the GUI thread never waits for a fetch
    const gguf::ByteLease lease = file.source().peek(r.offset, shown);
    if (!lease) {
        m_dump->setPlainText(tr("Not fetched yet: %1").arg(QString::fromStdString(lease.error().message)));
        return;
    }
    m_dump->setPlainText(hexLines(lease.bytes().data(), lease.bytes().size(), r.offset));
}

QString CheckpointBytes::dumpText() const
{
    return m_dump->toPlainText();
}

QString CheckpointBytes::explanation() const
{
    return m_explanation->text();
}
