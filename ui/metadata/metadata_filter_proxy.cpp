// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/metadata/metadata_filter_proxy.h"

MetadataFilterProxy::MetadataFilterProxy(QObject *parent) : QSortFilterProxyModel(parent)
{
    setRecursiveFilteringEnabled(true);
    setAutoAcceptChildRows(true);
    setFilterCaseSensitivity(Qt::CaseInsensitive);
    setFilterKeyColumn(-1);
}

void MetadataFilterProxy::setFilterText(const QString &text)
{
    m_text = text;
    m_filtering = true;
    setFilterFixedString(text);
    m_filtering = false;
}

bool MetadataFilterProxy::canFetchMore(const QModelIndex &parent) const
{
    return !m_filtering && QSortFilterProxyModel::canFetchMore(parent);
}

void MetadataFilterProxy::fetchMore(const QModelIndex &parent)
{
    if (!m_filtering)
        QSortFilterProxyModel::fetchMore(parent);
}
