// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/shell/verify_dialog.h"

#include "core/format/split_model.h"
#include "core/hash/model_hash.h"
#include "ui/common/job_progress.h"
#include "ui/common/job_tracker.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFile>
#include <QFileDialog>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <optional>

namespace {

// What the worker gives back: the hashes, and the check against the manifest when there is one.
struct VerifyOutcome {
    gguf::ModelHashes hashes;
    std::optional<gguf::ManifestCheck> check;
};

} // namespace

VerifyDialog::VerifyDialog(std::shared_ptr<const gguf::SplitModel> model, QWidget *parent)
    : QDialog(parent), m_model(std::move(model)), m_perTensor(new QCheckBox(tr("Each tensor"), this)),
      m_manifest(new QLineEdit(this)), m_browse(new QPushButton(tr("Browse…"), this)),
      m_start(new QPushButton(tr("&Verify"), this)), m_save(new QPushButton(tr("&Save Manifest…"), this)),
      m_results(new QTreeWidget(this)), m_summary(new QLabel(this)), m_progress(new JobProgress(this)),
      m_jobs(new JobTracker(this))
{
    setWindowTitle(tr("Verify Tensor Hashes"));
    setObjectName(QStringLiteral("verifyDialog"));
    auto *kinds = new QHBoxLayout;
    for (const gguf::HashKind k : gguf::kHashKinds) {
        auto *box = new QCheckBox(QString::fromLatin1(gguf::hashKindName(k)), this);
        box->setObjectName(QStringLiteral("verify_%1").arg(QLatin1String(gguf::hashKindName(k))));
        m_kinds[size_t(k)] = box;
        kinds->addWidget(box);
    }
    m_kinds[size_t(gguf::HashKind::Sha256)]->setChecked(true);
    m_perTensor->setChecked(true);
    kinds->addWidget(m_perTensor);
    kinds->addStretch(1);
    m_manifest->setObjectName(QStringLiteral("verifyManifest"));
    m_manifest->setPlaceholderText(tr("none: only compute the hashes"));
    m_manifest->setToolTip(tr("llama-gguf-hash's lines (or gguf-inspect hash's) to compare with"));
    m_results->setColumnCount(4);
    m_results->setHeaderLabels({tr("Kind"), tr("Tensor"), tr("Hash"), tr("Result")});
    m_results->setRootIsDecorated(false);
    m_results->setAlternatingRowColors(true);
    m_results->header()->setStretchLastSection(false);
    m_results->setMinimumSize(720, 300);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_save->setEnabled(false);

    auto *grid = new QGridLayout;
    grid->addWidget(new QLabel(tr("Hashes:"), this), 0, 0);
    grid->addLayout(kinds, 0, 1, 1, 2);
    grid->addWidget(new QLabel(tr("Manifest:"), this), 1, 0);
    grid->addWidget(m_manifest, 1, 1);
    grid->addWidget(m_browse, 1, 2);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    buttons->addButton(m_start, QDialogButtonBox::ActionRole);
    buttons->addButton(m_save, QDialogButtonBox::ActionRole);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(grid);
    layout->addWidget(m_progress);
    layout->addWidget(m_results, 1);
    layout->addWidget(m_summary);
    layout->addWidget(buttons);

    m_progress->track(m_jobs);
    connect(m_progress, &JobProgress::restartClicked, this, &VerifyDialog::start);
    connect(m_start, &QPushButton::clicked, this, &VerifyDialog::start);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_browse, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Manifest"), QString(),
                                                          tr("Manifests (*.manifest *.txt);;All files (*)"));
        if (!path.isEmpty())
            m_manifest->setText(path);
    });
    connect(m_save, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Save Manifest"), QString(),
                                                          tr("Manifests (*.manifest *.txt);;All files (*)"));
        QString error;
        if (!path.isEmpty() && !saveManifest(path, error))
            QMessageBox::warning(this, tr("Save Manifest"), error);
    });
}

void VerifyDialog::setManifest(const QString &path)
{
    m_manifest->setText(path);
}

bool VerifyDialog::running() const
{
    return m_jobs->isRunning();
}

QString VerifyDialog::summary() const
{
    return m_summary->text();
}

void VerifyDialog::start()
{
    if (!m_model)
        return;
    std::optional<std::vector<gguf::ManifestLine>> manifest;
    if (const QString path = m_manifest->text().trimmed(); !path.isEmpty()) {
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly)) {
            m_summary->setText(tr("The manifest %1 cannot be read: %2").arg(path, f.errorString()));
            return;
        }
        manifest = gguf::parseManifest(f.readAll().toStdString());
        if (manifest->empty()) {
            m_summary->setText(tr("No line of %1 starts with xxh64, sha1, sha256 or uuid.").arg(path));
            return;
        }
    }
    gguf::HashSelection which;
    which.perTensor = m_perTensor->isChecked();
    for (const gguf::HashKind k : gguf::kHashKinds)
        if (m_kinds[size_t(k)]->isChecked())
            which.set(k);
    if (!which.any())
        which.set(manifest ? gguf::strongestKind(*manifest).value_or(gguf::HashKind::Xxh64) : gguf::HashKind::Xxh64);
    m_results->clear();
    m_lines.clear();
    m_save->setEnabled(false);
    m_summary->setText(tr("Hashing…"));
    const std::string file = m_model->primary().path();
    m_jobs->start(
        tr("Hashing the tensors of %1").arg(QString::fromStdString(file)),
        [model = m_model, which, manifest, file](const gguf::ProgressFn &progress) {
            VerifyOutcome out;
            out.hashes = gguf::hashModel(*model, which, progress);
            if (manifest && !out.hashes.error) {
                std::vector<std::string> tensors;
                for (const gguf::SplitModel::TensorRef &t : model->tensors())
                    tensors.emplace_back(t.info->name);
                out.check = gguf::checkAgainst(out.hashes.lines, *manifest, file, tensors);
            }
            return out;
        },
        [this, file](const VerifyOutcome &out) {
            if (out.hashes.cancelled)
                return;
            if (out.hashes.error) {
                m_summary->setText(tr("Not hashed: %1").arg(QString::fromStdString(out.hashes.error->message)));
                return;
            }
            for (size_t i = 0; i < out.hashes.lines.size(); ++i) {
                const gguf::HashLine &line = out.hashes.lines[i];
                const QString result =
                    out.check ? QString::fromLatin1(gguf::checkResultName(out.check->lines[i].result)) : QString();
                auto *item = new QTreeWidgetItem(
                    m_results, {QString::fromLatin1(gguf::hashKindName(line.kind)),
                                line.tensor.empty() ? tr("(the whole model)") : QString::fromStdString(line.tensor),
                                QString::fromStdString(line.digest), result});
                if (out.check && out.check->lines[i].result == gguf::CheckResult::Mismatch)
                    for (int c = 0; c < 4; ++c)
                        item->setForeground(c, QColor(0xda, 0x44, 0x53));
                m_lines << QString::fromStdString(gguf::hashLineText(line, file));
            }
            for (int c = 0; c < 3; ++c)
                m_results->resizeColumnToContents(c);
            m_save->setEnabled(true);
            const QString hashed = tr("%n tensor(s), %1 of data hashed.", nullptr, int(m_model->tensors().size()))
                                       .arg(QLocale().formattedDataSize(qint64(out.hashes.bytes)));
            if (!out.check)
                m_summary->setText(hashed);
            else if (out.check->ok())
                m_summary->setText(tr("✔ Every line matches the manifest. %1").arg(hashed));
            else if (out.check->missing)
                m_summary->setText(tr("✘ The manifest has no entry for this model."));
            else {
                QStringList names;
                for (const std::string &d : out.check->differing)
                    names << QString::fromStdString(d);
                m_summary->setText(tr("✘ Differs from the manifest: %1").arg(names.join(QStringLiteral(", "))));
            }
        });
}

bool VerifyDialog::saveManifest(const QString &path, QString &error) const
{
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        error = tr("%1 cannot be written: %2").arg(path, f.errorString());
        return false;
    }
    for (const QString &line : m_lines)
        f.write(line.toUtf8() + '\n');
    if (!f.flush()) {
        error = tr("%1 could not be written whole: %2").arg(path, f.errorString());
        return false;
    }
    return true;
}
