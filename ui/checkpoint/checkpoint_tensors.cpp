// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/checkpoint/checkpoint_tensors.h"

#include "core/safetensors/checkpoint.h"
#include "ui/common/compact_rows.h"
#include "ui/common/fixed_font.h"
#include "ui/common/text_format.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLineEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

using gguf::st::Checkpoint;

void CheckpointTensorModel::setCheckpoint(std::shared_ptr<const Checkpoint> checkpoint)
{
    beginResetModel();
    m_checkpoint = std::move(checkpoint);
    endResetModel();
}

int CheckpointTensorModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() || !m_checkpoint ? 0 : static_cast<int>(m_checkpoint->tensors().size());
}

int CheckpointTensorModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant CheckpointTensorModel::data(const QModelIndex &index, int role) const
{
    if (!m_checkpoint || !index.isValid())
        return {};
    const Checkpoint::TensorRef &ref = m_checkpoint->tensors()[size_t(index.row())];
    const gguf::st::TensorEntry &e = *ref.entry;
    const auto *file = m_checkpoint->shards()[ref.shard].file.get();
    const uint64_t dataStart = e.fileBegin - e.begin; // where the shard's data section begins
    if (role == kSortRole) {
        switch (index.column()) {
        case Elements: return static_cast<qulonglong>(e.elements);
        case Bytes: return static_cast<qulonglong>(e.bytes());
        case DataBegin: return static_cast<qulonglong>(e.fileBegin);
        case DataEnd: return static_cast<qulonglong>(dataStart + e.end);
        case Shard: return ref.shard;
        default: return data(index, Qt::DisplayRole);
        }
    }
    if (role == Qt::UserRole)
        return index.row();
    if (role == Qt::ToolTipRole && index.column() == Shard && file)
        return QString::fromStdString(file->path());
    if (role == Qt::TextAlignmentRole && index.column() >= Elements && index.column() != Shard)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case Name: return QString::fromStdString(e.name);
    case Dtype: return QString::fromStdString(std::string(gguf::st::dtypeName(e.dtype)));
    case Shape: return QString::fromStdString(gguf::st::shapeText(e.shape));
    case GgufDims: {
        QStringList dims;
        for (auto it = e.shape.rbegin(); it != e.shape.rend(); ++it)
            dims << QString::number(*it);
        return dims.isEmpty() ? tr("scalar") : dims.join(QStringLiteral(" × "));
    }
    case Elements: return TextFormat::count(e.elements);
    case Bytes: return TextFormat::byteSize(e.bytes());
    case Shard: return file ? QFileInfo(QString::fromStdString(file->path())).fileName() : QString();
    case DataBegin: return TextFormat::offset(e.fileBegin);
    case DataEnd: return TextFormat::offset(dataStart + e.end);
    default: return {};
    }
}

QVariant CheckpointTensorModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Name: return tr("Name");
    case Dtype: return tr("Dtype");
    case Shape: return tr("Shape");
    case GgufDims: return tr("As GGUF dims");
    case Elements: return tr("Elements");
    case Bytes: return tr("Size");
    case Shard: return tr("File");
    case DataBegin: return tr("Data begins");
    case DataEnd: return tr("Data ends");
    default: return {};
    }
}

CheckpointTensors::CheckpointTensors(QWidget *parent)
    : QWidget(parent), m_model(new CheckpointTensorModel(this)), m_proxy(new QSortFilterProxyModel(this)),
      m_filter(new QLineEdit(this)), m_view(new QTableView(this))
{
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(CheckpointTensorModel::kSortRole);
    m_proxy->setFilterKeyColumn(CheckpointTensorModel::Name);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(-1, Qt::AscendingOrder); // header order until a column is clicked
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->verticalHeader()->hide();
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->setFont(fixedFont());
    setCompactRows(m_view);
    m_view->horizontalHeader()->setResizeContentsPrecision(200); // column widths from 200 rows, not all
    m_filter->setPlaceholderText(tr("Filter by name"));
    m_filter->setClearButtonEnabled(true);
    auto *weights = new QPushButton(tr("Show &Values"), this);
    auto *bytes = new QPushButton(tr("Show B&ytes"), this);
    auto *bar = new QHBoxLayout;
    bar->addWidget(m_filter, 1);
    bar->addWidget(weights);
    bar->addWidget(bytes);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(m_view, 1);
    connect(m_filter, &QLineEdit::textChanged, this, &CheckpointTensors::setFilter);
    connect(m_view, &QTableView::activated, this, [this] {
        if (const int t = currentTensor(); t >= 0)
            emit tensorActivated(t);
    });
    connect(weights, &QPushButton::clicked, this, [this] {
        if (const int t = currentTensor(); t >= 0)
            emit tensorActivated(t);
    });
    connect(bytes, &QPushButton::clicked, this, [this] {
        if (const int t = currentTensor(); t >= 0)
            emit bytesRequested(t);
    });
}

void CheckpointTensors::setCheckpoint(const std::shared_ptr<const Checkpoint> &checkpoint)
{
    m_model->setCheckpoint(checkpoint);
    m_view->resizeColumnsToContents();
    if (m_proxy->rowCount() > 0)
        m_view->selectRow(0);
}

void CheckpointTensors::setFilter(const QString &text)
{
    m_proxy->setFilterFixedString(text);
}

int CheckpointTensors::currentTensor() const
{
    const QModelIndex index = m_view->currentIndex();
    return index.isValid() ? m_proxy->data(index, Qt::UserRole).toInt() : -1;
}
