// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/shell/open_url_dialog.h"

#include "core/net/remote_files.h"
#include "core/net/remote_url.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QVBoxLayout>

namespace {

const QString kRecentKey = QStringLiteral("remote/recentUrls");
const QString kCacheKey = QStringLiteral("remote/cacheMiB");
const QString kFolderKey = QStringLiteral("remote/cacheFolder");
constexpr int kDefaultCacheMiB = 512;
constexpr int kMaxRecent = 12;

} // namespace

OpenUrlDialog::OpenUrlDialog(QWidget *parent)
    : QDialog(parent), m_url(new QComboBox(this)), m_cacheMiB(new QSpinBox(this)), m_folder(new QLineEdit(this)),
      m_problem(new QLabel(this))
{
    setWindowTitle(tr("Open URL"));
    const QSettings settings;
    m_url->setEditable(true);
    m_url->addItems(settings.value(kRecentKey).toStringList());
    m_url->setCurrentText(QString());
    m_url->lineEdit()->setPlaceholderText(QStringLiteral("https://…/model.gguf  ·  hf:owner/repo/model.gguf"));
    m_url->setMinimumWidth(fontMetrics().horizontalAdvance(QLatin1Char('x')) * 70);
    m_cacheMiB->setRange(16, 1 << 20);
    m_cacheMiB->setSuffix(tr(" MiB"));
    m_cacheMiB->setValue(settings.value(kCacheKey, kDefaultCacheMiB).toInt());
    m_folder->setText(settings.value(kFolderKey).toString());
    m_folder->setPlaceholderText(tr("in memory"));
    m_folder->setClearButtonEnabled(true);
    auto *browse = new QPushButton(tr("&Browse…"), this);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Cache Folder"), m_folder->text());
        if (!dir.isEmpty())
            m_folder->setText(QDir::toNativeSeparators(dir));
    });
    auto *folderRow = new QHBoxLayout;
    folderRow->addWidget(m_folder, 1);
    folderRow->addWidget(browse);

    auto *hint = new QLabel(
        tr("A server that honours HTTP range requests, or a file on the Hugging Face hub as "
           "<tt>hf:OWNER/REPO/PATH.gguf</tt> (add <tt>@REVISION</tt> for another than main). Only the bytes the "
           "pages read are fetched: the header at once, a tensor's data when a page shows it."),
        this);
    hint->setWordWrap(true);
    const bool token = !gguf::net::hubToken().empty();
    auto *tokenNote = new QLabel(token ? tr("A hub token was found (HF_TOKEN or the hub's token file): it is sent to "
                                            "huggingface.co only, for gated and private repositories.")
                                       : tr("No hub token: gated and private repositories need one in HF_TOKEN or "
                                            "from <tt>huggingface-cli login</tt>."),
                                 this);
    tokenNote->setWordWrap(true);
    tokenNote->setEnabled(false);
    m_problem->setWordWrap(true);
    m_problem->hide();

    auto *form = new QFormLayout;
    form->addRow(tr("&URL:"), m_url);
    form->addRow(QString(), hint);
    form->addRow(tr("&Cache:"), m_cacheMiB);
    form->addRow(tr("Cache &folder:"), folderRow);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Open | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &OpenUrlDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(tokenNote);
    layout->addWidget(m_problem);
    layout->addWidget(buttons);
}

QString OpenUrlDialog::url() const
{
    return m_url->currentText().trimmed();
}

void OpenUrlDialog::accept()
{
    gguf::Error error;
    if (!gguf::net::parseRemoteUrl(url().toStdString(), error)) {
        m_problem->setText(url().isEmpty() ? tr("Type a URL or a hub name.") : QString::fromStdString(error.message));
        m_problem->show();
        return;
    }
    if (!m_folder->text().isEmpty() && !QFileInfo(m_folder->text()).isDir()) {
        m_problem->setText(tr("The cache folder %1 does not exist.").arg(m_folder->text()));
        m_problem->show();
        return;
    }
    QSettings settings;
    QStringList recent = settings.value(kRecentKey).toStringList();
    recent.removeAll(url());
    recent.prepend(url());
    while (recent.size() > kMaxRecent)
        recent.removeLast();
    settings.setValue(kRecentKey, recent);
    settings.setValue(kCacheKey, m_cacheMiB->value());
    settings.setValue(kFolderKey, QDir::fromNativeSeparators(m_folder->text()));
    QDialog::accept();
}

QString OpenUrlDialog::ask(QWidget *parent)
{
    OpenUrlDialog dialog(parent);
    if (dialog.exec() != QDialog::Accepted)
        return {};
    applySettings();
    return dialog.url();
}

void OpenUrlDialog::applySettings()
{
    gguf::net::RemoteOptions options;
    const QSettings settings;
    options.cache.cacheBytes = uint64_t(settings.value(kCacheKey, kDefaultCacheMiB).toUInt()) << 20;
    options.cache.folder = settings.value(kFolderKey).toString().toStdString();
    // the environment wins, as for gguf-inspect
    const gguf::net::RemoteOptions environment = gguf::net::remoteOptionsFromEnvironment();
    const gguf::net::RemoteOptions defaults;
    if (environment.cache.cacheBytes != defaults.cache.cacheBytes)
        options.cache.cacheBytes = environment.cache.cacheBytes;
    if (!environment.cache.folder.empty())
        options.cache.folder = environment.cache.folder;
    options.cache.blockBytes = environment.cache.blockBytes;
    options.hubEndpoint = environment.hubEndpoint;
    gguf::net::enableRemoteFiles(options);
}
