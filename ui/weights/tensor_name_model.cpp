// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/weights/tensor_name_model.h"

#include "core/format/split_model.h"

#include <string>
#include <string_view>

TensorNameModel::TensorNameModel(bool checkable, QObject *parent) : QAbstractListModel(parent), m_checkable(checkable)
{
}

void TensorNameModel::setSplitModel(std::shared_ptr<const gguf::SplitModel> model)
{
    beginResetModel();
    m_model = std::move(model);
    m_checked.assign(m_model ? m_model->tensors().size() : 0, 0);
    endResetModel();
}

int TensorNameModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_checked.size());
}

QString TensorNameModel::nameAt(int row) const
{
    const std::string_view name = m_model->tensors()[static_cast<size_t>(row)].info->name;
    return QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size()));
}

QVariant TensorNameModel::data(const QModelIndex &index, int role) const
{
    // a combo box with no current row asks for the invalid index
    if (!index.isValid() || index.parent().isValid() || index.row() >= rowCount())
        return {};
    switch (role) {
    case Qt::DisplayRole:
    case Qt::EditRole:
    case Qt::ToolTipRole: return nameAt(index.row());
    case Qt::CheckStateRole:
        if (m_checkable)
            return m_checked[static_cast<size_t>(index.row())] ? Qt::Checked : Qt::Unchecked;
        return {};
    default: return {};
    }
}

bool TensorNameModel::setData(const QModelIndex &index, const QVariant &value, int role)
{
    if (!m_checkable || role != Qt::CheckStateRole || !index.isValid() || index.row() >= rowCount())
        return false;
    const char checked = value.value<Qt::CheckState>() == Qt::Checked ? 1 : 0;
    char &stored = m_checked[static_cast<size_t>(index.row())];
    if (stored == checked)
        return true;
    stored = checked;
    emit dataChanged(index, index, {Qt::CheckStateRole});
    emit checksEdited();
    return true;
}

Qt::ItemFlags TensorNameModel::flags(const QModelIndex &index) const
{
    if (!index.isValid())
        return Qt::NoItemFlags;
    return m_checkable ? Qt::ItemIsEnabled | Qt::ItemIsUserCheckable : Qt::ItemIsEnabled | Qt::ItemIsSelectable;
}

void TensorNameModel::checkOnly(const QStringList &names)
{
    std::vector<std::string> wanted;
    wanted.reserve(static_cast<size_t>(names.size()));
    for (const QString &name : names)
        wanted.push_back(name.toStdString());
    int first = -1, last = -1;
    for (size_t row = 0; row < m_checked.size(); ++row) {
        const std::string_view name = m_model->tensors()[row].info->name;
        char checked = 0;
        for (const std::string &w : wanted)
            if (name == w) {
                checked = 1;
                break;
            }
        if (m_checked[row] != checked) {
            m_checked[row] = checked;
            first = first < 0 ? static_cast<int>(row) : first;
            last = static_cast<int>(row);
        }
    }
    if (first >= 0)
        emit dataChanged(index(first), index(last), {Qt::CheckStateRole});
}

QStringList TensorNameModel::checkedNames() const
{
    QStringList names;
    for (size_t row = 0; row < m_checked.size(); ++row)
        if (m_checked[row])
            names << nameAt(static_cast<int>(row));
    return names;
}
