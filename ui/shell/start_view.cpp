// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/shell/start_view.h"

#include "ui/common/message_bar.h"

#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

StartView::StartView(QWidget *parent)
    : QWidget(parent), m_failure(new MessageBar(this)), m_open(new QPushButton(tr("&Open a File…"), this)),
      m_openUrl(new QPushButton(tr("Open a &URL…"), this)),
      m_openFolder(new QPushButton(tr("Open a Checkpoint Fol&der…"), this)),
      m_recentTitle(new QLabel(tr("Recent files"), this)), m_recent(new QListWidget(this))
{
    setObjectName(QStringLiteral("startView"));
    auto *title = new QLabel(tr("No model open"));
    QFont big = title->font();
    big.setPointSizeF(big.pointSizeF() * 1.6);
    big.setBold(true);
    title->setFont(big);
    auto *hint = new QLabel(tr("Drop a .gguf file (or any shard of a split model), a .safetensors file, its "
                               "model.safetensors.index.json or a checkpoint folder anywhere on this window, or:"),
                            this);
    hint->setWordWrap(true);
    // why the last open failed
    m_failure->setObjectName(QStringLiteral("startFailure"));
    m_failure->hide();
    m_open->setIcon(QIcon::fromTheme(QStringLiteral("document-open")));
    m_openUrl->setIcon(QIcon::fromTheme(QStringLiteral("network-server")));
    m_openUrl->setToolTip(
        tr("Look inside a GGUF file or a checkpoint on a web server or the Hugging Face hub without downloading it"));
    m_openFolder->setIcon(QIcon::fromTheme(QStringLiteral("folder-open")));
    m_openFolder->setToolTip(tr("A Hugging Face checkpoint: the folder with config.json and its .safetensors shards"));
    m_recent->setObjectName(QStringLiteral("startRecent"));
    m_recent->setMaximumHeight(fontMetrics().height() * 12);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_open);
    buttons->addWidget(m_openUrl);
    buttons->addWidget(m_openFolder);
    buttons->addStretch(1);
    // a column of readable width in the middle: its word-wrapped texts are laid out for that width,
    // never for the few pixels of a window squeezed by its stretches (their height for such a width
    // made the window's minimum height hundreds of thousands of pixels)
    auto *content = new QWidget(this);
    content->setMinimumWidth(fontMetrics().averageCharWidth() * 60);
    content->setMaximumWidth(fontMetrics().averageCharWidth() * 110);
    auto *column = new QVBoxLayout(content);
    column->setContentsMargins(0, 0, 0, 0);
    column->addWidget(title);
    column->addWidget(m_failure);
    column->addWidget(hint);
    column->addLayout(buttons);
    column->addSpacing(fontMetrics().height());
    column->addWidget(m_recentTitle);
    column->addWidget(m_recent);
    column->addStretch(1);
    auto *outer = new QHBoxLayout(this);
    outer->addStretch(1);
    outer->addWidget(content, 4);
    outer->addStretch(1);
    connect(m_open, &QPushButton::clicked, this, &StartView::openRequested);
    connect(m_openUrl, &QPushButton::clicked, this, &StartView::openUrlRequested);
    connect(m_openFolder, &QPushButton::clicked, this, &StartView::openFolderRequested);
    connect(m_recent, &QListWidget::itemActivated, this,
            [this](const QListWidgetItem *item) { emit recentChosen(item->data(Qt::UserRole).toString()); });
    setRecentFiles({});
}

void StartView::setRecentFiles(const QStringList &files)
{
    m_recent->clear();
    for (const QString &path : files) {
        // the name first, then where it is (a URL as it is)
        const QFileInfo info(path);
        const bool local = !path.contains(QStringLiteral("://"));
        auto *item = new QListWidgetItem(
            local ? tr("%1 — %2").arg(info.fileName(), QDir::toNativeSeparators(info.path())) : path, m_recent);
        item->setData(Qt::UserRole, path);
        item->setToolTip(path);
    }
    m_recentTitle->setVisible(!files.isEmpty());
    m_recent->setVisible(!files.isEmpty());
}

void StartView::setFailure(const QString &path, const QString &message)
{
    if (path.isEmpty())
        m_failure->clearMessage();
    else
        m_failure->showMessage(MessageBar::Kind::Error,
                               tr("Could not open %1:\n%2").arg(QDir::toNativeSeparators(path), message));
}

QString StartView::failureText() const
{
    return m_failure->isVisibleTo(this) ? m_failure->text() : QString();
}
