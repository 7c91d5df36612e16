// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/tensors/tensors_page.h"

#include "ui/common/page_state.h"

#include "core/format/split_model.h"
#include "ui/common/damage_text.h"
#include "ui/common/message_bar.h"
#include "ui/common/text_format.h"
#include "ui/common/value_text.h"
#include "ui/tensors/tensor_sort_filter_proxy.h"
#include "ui/tensors/tensor_table_model.h"

#include <QCheckBox>
#include <QDataStream>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QTreeView>
#include <QVBoxLayout>

namespace {
constexpr quint32 kTensorsStateVersion = 1;
}

TensorsPage::TensorsPage(QWidget *parent)
    : Page(parent), m_model(new TensorTableModel(this)), m_proxy(new TensorSortFilterProxy(this)),
      m_filter(new QLineEdit(this)), m_damage(new MessageBar(this)),
      m_regex(new QCheckBox(tr("&Regular expression"), this)), m_grouped(new QCheckBox(tr("&Group by layer"), this)),
      m_view(new QTreeView(this)), m_totals(new QLabel(this))
{
    m_totals->setObjectName(QStringLiteral("tensorTotals"));
    m_proxy->setSourceModel(m_model);
    m_filter->setPlaceholderText(tr("Filter by name or type…"));
    m_filter->setClearButtonEnabled(true);
    // Files dropped anywhere open in the window; the filter box must not take them as text.
    m_filter->setAcceptDrops(false);
    connect(m_filter, &QLineEdit::textChanged, this, &TensorsPage::applyFilter);
    connect(m_regex, &QCheckBox::toggled, this, &TensorsPage::applyFilter);
    connect(m_grouped, &QCheckBox::toggled, this, &TensorsPage::setGroupedByLayer);

    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(TensorTableModel::IndexColumn, Qt::AscendingOrder);
    m_view->setUniformRowHeights(true);
    m_view->setAlternatingRowColors(true);
    m_view->setRootIsDecorated(false);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->header()->setSectionResizeMode(QHeaderView::Interactive);
    m_view->header()->resizeSection(TensorTableModel::IndexColumn, 60);
    m_view->header()->resizeSection(TensorTableModel::NameColumn, 240);
    connect(
        m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex &current) {
            const QModelIndex source = m_proxy->mapToSource(current);
            if (const gguf::TensorInfo *info = m_model->tensorAt(source))
                emit linkActivated(
                    Link::tensor(TensorRef{m_model->shardAt(source), static_cast<int>(info->index)}).inBackground());
        });
    connect(m_proxy, &QAbstractItemModel::modelReset, this, &TensorsPage::updateTotals);
    connect(m_proxy, &QAbstractItemModel::layoutChanged, this, &TensorsPage::updateTotals);
    connect(m_proxy, &QAbstractItemModel::rowsInserted, this, &TensorsPage::updateTotals);
    connect(m_proxy, &QAbstractItemModel::rowsRemoved, this, &TensorsPage::updateTotals);

    auto *bar = new QHBoxLayout;
    bar->addWidget(m_filter, 1);
    bar->addWidget(m_regex);
    bar->addWidget(m_grouped);
    m_damage->setObjectName(QStringLiteral("tensorsDamage"));
    connect(m_damage, &MessageBar::actionTriggered, this, [this] {
        const gguf::SplitModel *model = m_model->model();
        if (const auto broken = model ? model->firstBreak() : std::nullopt) {
            const auto [offset, size] = broken->file->brokenBytes();
            emit linkActivated(Link::bytes(int(broken->shard), offset, size));
        }
    });
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_damage);
    layout->addLayout(bar);
    layout->addWidget(m_view, 1);
    layout->addWidget(m_totals);
    updateTotals();
    // the view state kept between runs (the same layout as before PageState: old settings restore)
    m_state = PageState(kTensorsStateVersion);
    m_state.add(m_view->header()).add(m_grouped);
}

void TensorsPage::setModel(std::shared_ptr<const gguf::SplitModel> model)
{
    m_model->setModel(std::move(model));
    // Fit the columns to the first file shown, unless the user's widths were restored.
    if (!m_columnsFitted && m_model->rowCount() > 0) {
        m_columnsFitted = true;
        for (int c = 0; c < TensorTableModel::ColumnCount; ++c)
            m_view->resizeColumnToContents(c);
    }
    if (m_model->isGroupedByLayer())
        m_view->expandAll();
    updateTotals();
    showDamage();
}

void TensorsPage::showDamage()
{
    const gguf::SplitModel *model = m_model->model();
    const auto broken = model ? model->firstBreak() : std::nullopt;
    if (!broken) {
        m_damage->clearMessage();
        return;
    }
    const gguf::GgufFile &file = *broken->file;
    const QString lead = file.breakage()->section == gguf::Breakage::Section::TensorInfos
                             ? QString()
                             : tr("No tensor infos were read.") + QLatin1Char(' ');
    const QString who =
        model->isSplit()
            ? QFileInfo(QString::fromStdString(model->shards()[broken->shard].path)).fileName() + QStringLiteral(": ")
            : QString();
    m_damage->showMessage(MessageBar::Kind::Error,
                          who + lead + DamageText::where(file) + QLatin1Char('\n') + DamageText::missing(file),
                          tr("Show in &Bytes"), false);
}

void TensorsPage::setFilter(const QString &pattern, bool regularExpression)
{
    m_regex->setChecked(regularExpression);
    m_filter->setText(pattern);
    applyFilter();
}

void TensorsPage::setGroupedByLayer(bool grouped)
{
    m_grouped->setChecked(grouped);
    m_model->setGroupedByLayer(grouped);
    m_view->setRootIsDecorated(grouped);
    if (grouped)
        m_view->expandAll();
    updateTotals();
}

void TensorsPage::applyFilter()
{
    const auto syntax = m_regex->isChecked() ? TensorSortFilterProxy::Syntax::RegularExpression
                                             : TensorSortFilterProxy::Syntax::Substring;
    const bool valid = m_proxy->setFilter(m_filter->text(), syntax);
    QPalette palette = m_filter->parentWidget()->palette();
    if (!valid)
        palette.setColor(QPalette::Base, QColor::fromRgbF(0.85f, 0.27f, 0.33f, 0.35f));
    m_filter->setPalette(palette);
    m_filter->setToolTip(m_proxy->errorString());
    if (m_model->isGroupedByLayer())
        m_view->expandAll();
    updateTotals();
}

QString TensorsPage::totalsText() const
{
    return m_totals->text();
}

void TensorsPage::updateTotals()
{
    const int all = m_model->model() ? static_cast<int>(m_model->model()->tensors().size()) : 0;
    const TensorSortFilterProxy::Totals totals = m_proxy->visibleTotals();
    const QString shown = all == 1 ? tr("%1 of 1 tensor shown").arg(totals.tensors)
                                   : tr("%1 of %2 tensors shown").arg(totals.tensors).arg(all);
    QString text =
        tr("%1 — %2 elements, %3").arg(shown, QLocale().toString(totals.elements), TextFormat::byteSize(totals.bytes));
    // a damaged file whose tensor infos broke off: its last row is the one being read, not a tensor
    const auto broken = m_model->model() ? m_model->model()->firstBreak() : std::nullopt;
    if (broken && broken->file->breakage()->section == gguf::Breakage::Section::TensorInfos)
        text += tr(" — reading stopped in tensor info %1 of the %2 the header declares (the last row)")
                    .arg(broken->file->breakage()->index)
                    .arg(broken->file->declaredTensorCount());
    if (!m_proxy->errorString().isEmpty())
        text += QStringLiteral(" — ") + m_proxy->errorString();
    m_totals->setText(text);
}

bool TensorsPage::follow(const Link &link)
{
    if (link.target != Link::Target::Tensor)
        return false;
    selectTensor(link.tensorRef());
    return true;
}

void TensorsPage::selectTensor(TensorRef tensor)
{
    const int shard = tensor.shard, index = tensor.index;
    const gguf::SplitModel *model = m_model->model();
    if (!model)
        return;
    const auto &tensors = model->tensors();
    for (size_t position = 0; position < tensors.size(); ++position) {
        if (int(tensors[position].shard) != shard || int(tensors[position].info->index) != index)
            continue;
        const auto find = [&] {
            const QModelIndexList hits = m_proxy->match(m_proxy->index(0, 0), TensorTableModel::TensorRole,
                                                        int(position), 1, Qt::MatchExactly | Qt::MatchRecursive);
            return hits.isEmpty() ? QModelIndex() : hits.first();
        };
        QModelIndex hit = find();
        if (!hit.isValid() && !m_filter->text().isEmpty()) {
            setFilter(QString(), m_regex->isChecked());
            hit = find();
        }
        m_view->setCurrentIndex(hit);
        m_view->scrollTo(hit);
        return;
    }
}

bool TensorsPage::focusFind()
{
    focusFilter();
    return true;
}

void TensorsPage::focusFilter()
{
    m_filter->setFocus(Qt::ShortcutFocusReason);
    m_filter->selectAll();
}

QByteArray TensorsPage::saveState() const
{
    return m_state.save();
}

void TensorsPage::restoreState(const QByteArray &state)
{
    m_columnsFitted = m_state.restore(state);
}
